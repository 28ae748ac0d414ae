#!/usr/bin/env python3
"""Differential testing of N generated modules, in parallel.

    utils/run-differential.py [-n 2000] [-j 2] [--seed 0] [--chunk 50]
                              [--build-dir build] [--keep-failures DIR]
                              [-- extra hx-smith options]

Splits seeds SEED .. SEED+N-1 into chunks, runs `hx-smith --check` on each
chunk (-j workers at a time; each checks its modules in-process), and
prints the count, the wall time and every failure with its seed. A worker
that dies (a crash, an abort, a timeout) has its chunk rerun one seed per
process, so the seed that crashes is named too. Exits 1 when any failed.
"""
import argparse
import concurrent.futures
import os
import subprocess
import sys
import time


def run(cmd, timeout):
    try:
        p = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout)
        return p.returncode, p.stdout, p.stderr
    except subprocess.TimeoutExpired:
        return None, "", "timeout after %d s" % timeout


def check_chunk(smith, first, count, extra, timeout):
    """Returns [(seed, description)] of the failures of one chunk."""
    base = [smith, "--check", "--seed=%d" % first, "--count=%d" % count] + extra
    rc, out, err = run(base, timeout * count)
    if rc in (0, 1):
        return [(int(line.split()[1].split("=")[1]), line)
                for line in out.splitlines() if line.startswith("FAIL seed=")]
    # The worker died: find the seed, one process each.
    failures = []
    for seed in range(first, first + count):
        rc, out, err = run([smith, "--check", "--seed=%d" % seed, "--count=1"] + extra, timeout)
        if rc == 1:
            failures += [(seed, l) for l in out.splitlines() if l.startswith("FAIL")]
        elif rc != 0:
            why = "exit %s" % rc if rc is not None else err
            failures.append((seed, "FAIL seed=%d crash: %s %s" % (seed, why, err.strip()[-400:])))
    return failures


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("-n", type=int, default=2000, help="modules (default 2000)")
    ap.add_argument("-j", type=int, default=2, help="parallel workers (default 2)")
    ap.add_argument("--seed", type=int, default=0, help="the first seed")
    ap.add_argument("--chunk", type=int, default=50, help="seeds per worker run")
    ap.add_argument("--timeout", type=int, default=60, help="seconds per module")
    ap.add_argument("--build-dir", default=os.path.join(
        os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "build"))
    ap.add_argument("--keep-failures", help="write DIR/seed-S.ir for each failure")
    ap.add_argument("extra", nargs="*", help="more hx-smith options (after --)")
    a = ap.parse_args()
    if a.n < 1 or a.j < 1 or a.chunk < 1:
        ap.error("-n, -j and --chunk must be positive")
    smith = os.path.join(a.build_dir, "bin", "hx-smith")
    if not os.access(smith, os.X_OK):
        ap.error("no hx-smith at %s (build first, or give --build-dir)" % smith)
    extra = list(a.extra)
    if a.keep_failures:
        extra.append("--keep-failures=" + a.keep_failures)

    start = time.time()
    failures = []
    chunks = [(s, min(a.chunk, a.seed + a.n - s)) for s in range(a.seed, a.seed + a.n, a.chunk)]
    with concurrent.futures.ThreadPoolExecutor(max_workers=a.j) as pool:
        futures = [pool.submit(check_chunk, smith, s, c, extra, a.timeout) for s, c in chunks]
        for f in concurrent.futures.as_completed(futures):
            failures += f.result()
    elapsed = time.time() - start
    failures.sort()
    for seed, line in failures:
        print(line)
    print("%d modules (seeds %d to %d), -j %d: %d failed, %.1f s wall"
          % (a.n, a.seed, a.seed + a.n - 1, a.j, len(failures), elapsed))
    if failures:
        print("failing seeds: " + " ".join(str(s) for s, _ in failures))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
