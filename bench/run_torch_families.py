#!/usr/bin/env python3
"""The full-size model of each family utils/torch-families.py knows (torchvision's
own configurations at 224x224, the recurrent and transformer models at their
usual widths), each timed on hx beside PyTorch eager, on the same threads:

    /usr/bin/python3 bench/run_torch_families.py [--threads N] [--repeat R] [--only a,b]

It runs `utils/torch-families.py OUTDIR --bench build/bin/hx-run --full`;
docs/benchmarks.md records its figures with their machine.
"""
import os
import subprocess
import sys
import tempfile

root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
with tempfile.TemporaryDirectory(prefix="hx-families-") as out:
    sys.exit(subprocess.call([sys.executable, os.path.join(root, "utils", "torch-families.py"), out,
                              "--bench", os.path.join(root, "build", "bin", "hx-run"), "--full"]
                             + sys.argv[1:]))
