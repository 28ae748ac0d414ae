#!/usr/bin/env python3
"""Cost-based placement benchmark (plan-devices --placement).

1. Speed: plan-devices with --placement=min-copy and min-time on the 1M-line
   bench module (bench/compile_bench.py's generator, bench/out/), timed with
   --time-passes (the plan-devices row, fastest of --reps), next to
   plan-devices' own time with the default placement measured in the same
   run. Target: min-copy within 2x of the default. Also prints the cut's size
   (free classes, copy terms, nodes, arcs, augmentations; from one
   --placement-report run).
2. End to end: for the seed shapes (examples/shared-input.ir, the seed-000
   and seed-001 runtime tests), 5 generated heterogeneous modules (hx-smith,
   seeds 1-5, 12 calls) and the ResNet-style network with only its tail
   annotated (gen-network.py --tail-only, ci size), each strategy's plan:
   bytes copied (the placement report's total) and the run time of
   `hx-run --repeat R` (median of the per-run totals of --profile, on two
   cpu instances here: the cuda virtual device runs on cpu:1 without a
   GPU), side by side with the default placement's.

Examples:
    bench/placement_bench.py
    bench/placement_bench.py --reps 3 --no-speed
"""

import argparse
import os
import re
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
sys.path.insert(0, HERE)
import compile_bench  # noqa: E402

STRATEGIES = ["default", "min-copy", "min-time"]


def plan_time(hx_opt, path, strategy, reps):
    pipeline = "plan-devices" if strategy == "default" else \
        "plan-devices{placement=%s}" % strategy
    best = None
    for _ in range(reps):
        run = compile_bench.run_once(hx_opt, path, pipeline)
        if run.rc != 0:
            sys.exit("plan-devices --placement=%s failed on %s:\n%s" % (strategy, path, run.stderr))
        secs = run.get("plan-devices")
        best = secs if best is None or secs < best else best
    return best


def cut_stats(hx_opt, path, strategy):
    p = subprocess.run([hx_opt, "-plan-devices", "--placement=" + strategy,
                        "--placement-report", path, "-o", os.devnull],
                       stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    m = re.search(r"^cut: .*$", p.stderr, re.M)
    return m.group(0) if m else "cut: ?"


def total_bytes(report):
    m = re.search(r"^total:\n((?:  .*\n)*)", report, re.M)
    if not m:
        return 0
    return sum(int(b) for b in re.findall(r"(\d+) bytes", m.group(1)))


def end_to_end(bindir, path, strategy, repeat, tmp, extra):
    planned = os.path.join(tmp, "planned.ir")
    p = subprocess.run([os.path.join(bindir, "hx-opt"), "-plan-devices", "--placement=" + strategy,
                        "--placement-report", path, "-o", planned] + extra,
                       stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    if p.returncode != 0:
        return None, None
    copied = total_bytes(p.stderr)
    r = subprocess.run([os.path.join(bindir, "hx-run"), planned, "--random-inputs", "--no-plan",
                        "--repeat=%d" % repeat, "--profile", "--seed=1"],
                       stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    m = re.search(r"^total ([0-9.]+) ms", r.stderr, re.M)
    if r.returncode != 0 or not m:
        return copied, None
    return copied, float(m.group(1))


def main():
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--bin", default=os.path.join(ROOT, "build", "bin"))
    ap.add_argument("--out", default=os.path.join(ROOT, "bench", "out"))
    ap.add_argument("--reps", type=int, default=3)
    ap.add_argument("--repeat", type=int, default=20, help="hx-run --repeat")
    ap.add_argument("--no-speed", dest="speed", action="store_false")
    a = ap.parse_args()
    hx_opt = os.path.join(a.bin, "hx-opt")

    if a.speed:
        os.makedirs(a.out, exist_ok=True)
        path = compile_bench.ensure_module(1_000_000, a.out)
        print("== speed: plan-devices on %s (%d lines), fastest of %d"
              % (os.path.relpath(path, ROOT), compile_bench.count_lines(path), a.reps))
        base = plan_time(hx_opt, path, "default", a.reps)
        print("  %-9s %8.3f s   (reference)" % ("default", base))
        for s in ("min-copy", "min-time"):
            t = plan_time(hx_opt, path, s, a.reps)
            target = "  target <= 2.00x: %s" % ("met" if t <= 2 * base else "MISSED") \
                if s == "min-copy" else ""
            print("  %-9s %8.3f s   %.2fx the default%s" % (s, t, t / base, target))
            print("            %s" % cut_stats(hx_opt, path, s))

    print("== end to end: bytes copied and run time (hx-run --repeat %d, two cpu instances)"
          % a.repeat)
    with tempfile.TemporaryDirectory() as tmp:
        cases = [("examples/shared-input.ir", os.path.join(ROOT, "examples", "shared-input.ir"),
                  []),
                 ("seed-000", os.path.join(ROOT, "test", "Runtime", "seed-000.ir"), []),
                 ("seed-001", os.path.join(ROOT, "test", "Runtime", "seed-001.ir"), [])]
        for seed in range(1, 6):
            path = os.path.join(tmp, "smith-%d.ir" % seed)
            with open(path, "w") as f:
                subprocess.run([os.path.join(a.bin, "hx-smith"), "--seed=%d" % seed,
                                "--calls=12"], stdout=f, check=True)
            cases.append(("hx-smith --seed=%d" % seed, path, []))
        net = os.path.join(tmp, "resnet-tail.ir")
        subprocess.run([sys.executable, os.path.join(ROOT, "utils", "gen-network.py"), "resnet",
                        net, "--ir-only", "--tail-only"], check=True)
        cases.append(("resnet, tail only", net, ["--default-device=cuda"]))
        print("  %-22s %-10s %12s %12s" % ("module", "strategy", "bytes", "run us"))
        for name, path, extra in cases:
            for s in STRATEGIES:
                copied, ms = end_to_end(a.bin, path, s, a.repeat, tmp, extra)
                print("  %-22s %-10s %12s %12s" % (
                    name if s == "default" else "", s,
                    "fails" if copied is None else copied,
                    "-" if ms is None else "%.0f" % (1e3 * ms)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
