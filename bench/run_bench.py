#!/usr/bin/env python3
"""Execution benchmark: builds and runs bench/runtime_bench.cpp (hx-runtime-bench).

Each figure is printed next to its reference, measured in the same process:
executor overhead per step (target <= 2 us), JIT time for 100 calls with 10
and with 100 distinct kernels, elementwise add over 2^24 float32 against
memcpy, nn.dense 1024^3 against OpenBLAS cblas_sgemm.

    python3 bench/run_bench.py [--build-dir build]
"""
import argparse
import os
import subprocess
import sys


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--build-dir", default=os.path.join(os.path.dirname(__file__), "..", "build"))
    a = p.parse_args()
    r = subprocess.run(["cmake", "--build", a.build_dir, "--target", "hx-runtime-bench"])
    if r.returncode:
        print("run_bench: cannot build hx-runtime-bench (is libopenblas-dev installed?)")
        return 1
    model = next((l.split(":", 1)[1].strip() for l in open("/proc/cpuinfo")
                  if l.startswith("model name")), "?")
    print(f"machine: {model}, {os.cpu_count()} cpus")
    return subprocess.run([os.path.join(a.build_dir, "bin", "hx-runtime-bench")]).returncode


if __name__ == "__main__":
    sys.exit(main())
