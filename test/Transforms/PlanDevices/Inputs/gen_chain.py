#!/usr/bin/env python3
"""A chain of N adds: the first on the cpu, the last on cuda, none between."""
import sys

n = int(sys.argv[1])
out = sys.stdout
out.write('#[version = "0.0.5"]\n')
out.write('def @main(%x: Tensor[(16), float32], %y: Tensor[(16), float32]) {\n')
out.write('  %0 = add(%x, %y);\n')
out.write('  %1 = on_device(%0, virtual_device=meta[VirtualDevice][0]);\n')
for i in range(2, n + 1):
    out.write('  %%%d = add(%%%d, %%y);\n' % (i, i - 1))
out.write('  on_device(%%%d, virtual_device=meta[VirtualDevice][1])\n}\n' % n)
out.write('#[metadata]\n{"VirtualDevice": [{"device_type": "cpu"}, {"device_type": "cuda"}],\n')
out.write(' "PassConfig": {"relay.fallback_device_type": "cuda"}}\n')
