#!/usr/bin/env python3
"""Counts the fusion groups, by kind, and the places where fuse-ops must not
fuse, by rule, in hx-smith's modules after plan-devices and fuse-ops:

    fusion-coverage.py [N] [--build-dir build]     (seeds 1..N, default 200)

A measure of how well the differential tests (which run each module fused
and unfused) cover fusion; the counts read the printed modules, so they are
approximate (a "never" counts an edge fuse-ops left between two calls it
could otherwise have joined)."""
import collections
import os
import re
import subprocess
import sys

BUILD = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "build")
if "--build-dir" in sys.argv:
    i = sys.argv.index("--build-dir")
    BUILD = sys.argv[i + 1]
    del sys.argv[i:i + 2]
SEEDS = int(sys.argv[1]) if len(sys.argv) > 1 else 200

EW = set("add subtract multiply divide maximum minimum power equal less greater where negative abs exp log sqrt rsqrt tanh sigmoid nn.relu erf nn.leaky_relu copy clip cast nn.bias_add".split())
ANCH = set("nn.conv2d nn.conv1d nn.dense nn.batch_matmul nn.max_pool2d nn.avg_pool2d nn.adaptive_avg_pool2d nn.global_avg_pool2d".split())
RED = set("sum mean max min".split())
stats = collections.Counter()
for seed in range(1, SEEDS + 1):
    src = subprocess.run([os.path.join(BUILD, "bin", "hx-smith"), f"--seed={seed}"], capture_output=True, text=True).stdout
    out = subprocess.run([os.path.join(BUILD, "bin", "hx-opt"), "-plan-devices", "-fuse-ops", "-"], input=src, capture_output=True, text=True).stdout
    defs, uses, infn = {}, collections.Counter(), 0
    for line in out.splitlines():
        if re.match(r"\s*%\d+ = fn ", line):
            infn = 1; body = []; continue
        if infn:
            if line.strip() == "};":
                infn = 0
                ops = [re.match(r"\s*(?:%\d+ = )?([a-z_.0-9]+)\(", l) for l in body]
                ops = [m.group(1) for m in ops if m]
                if any(o in ANCH for o in ops): stats["group: anchor " + next(o for o in ops if o in ANCH) + " + epilogue"] += 1
                elif any(o in RED for o in ops):
                    r = next(i for i, o in enumerate(ops) if o in RED)
                    stats["group: reduction" + (" + prologue" if r > 0 else "") + (" + epilogue" if r < len(ops) - 1 else "")] += 1
                else: stats["group: elementwise chain"] += 1
                continue
            body.append(line); continue
        m = re.match(r"\s*(%\d+) = ([a-z_.0-9]+)\((.*)\);", line)
        if m:
            defs[m.group(1)] = (m.group(2), re.findall(r"%\d+", m.group(3)))
        for u in re.findall(r"%\d+", line.split("=", 1)[-1] if m else line):
            uses[u] += 1
    def src_op(v):
        while v in defs and defs[v][0] in ("on_device",):
            v = defs[v][1][0] if defs[v][1] else None
        return defs.get(v, (None, []))[0]
    for v, (op, args) in defs.items():
        for a in args:
            if op in EW and a in defs and defs[a][0] == "device_copy" and src_op(defs[a][1][0] if defs[a][1] else None) in EW:
                stats["never: across device_copy"] += 1
            if op in EW and a in defs and defs[a][0] in EW and uses[a] > 1:
                stats["never: value used outside"] += 1
            if op in ANCH and a in defs and defs[a][0] in EW:
                stats["never: operand of a non-reduction anchor"] += 1
            if op in EW and a in defs and defs[a][0] in ("reshape", "transpose", "expand_dims", "squeeze", "strided_slice"):
                stats["never: through an injective operator"] += 1
            if op == "nn.bias_add" and args.index(a) == 1 and a in defs and defs[a][0] in EW:
                stats["never: a bias_add's bias"] += 1
for k, n in sorted(stats.items()):
    print(f"{n:5d}  {k}")
