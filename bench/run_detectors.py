#!/usr/bin/env python3
"""torchvision's three detectors (utils/torch-detectors.py: random weights
drawn so that scores spread out, one 3x320x320 image), each checked against
PyTorch and timed on hx beside PyTorch eager, on the same threads:

    /usr/bin/python3 bench/run_detectors.py [--threads N] [--repeat R] [--only a,b] [hx-run flags]

hx-run flags pass through (--default-device=cuda --placement=min-time: the
backbone on a cuda device, the tail on the cpu). docs/benchmarks.md records
its figures with their machine.
"""
import os
import subprocess
import sys
import tempfile

root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
with tempfile.TemporaryDirectory(prefix="hx-detectors-") as out:
    sys.exit(subprocess.call([sys.executable, os.path.join(root, "utils", "torch-detectors.py"), out,
                              "--bench", os.path.join(root, "build", "bin", "hx-run")]
                             + sys.argv[1:]))
