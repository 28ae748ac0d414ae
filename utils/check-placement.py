#!/usr/bin/env python3
"""Checks the cost-based placements against brute force on generated modules.

    utils/check-placement.py [--bin DIR] [--seed 1] [-n 200] [--calls 8]
                             [--classes 20] [--audit 0] [-j 2]

DIR holds hx-smith and hx-opt (default: where PATH finds hx-opt, else
build/bin). For each seed, hx-smith writes a module (two devices, random annotations,
--calls operator calls); for min-copy and min-time, `hx-opt -plan-devices
--placement=P --verify-optimal-placement=CLASSES` plans it and, when it has
at most CLASSES free classes, enumerates every placement of them and fails
unless the cut's is the cheapest. Then the planned module must pass
-verify-placement (every cross-device edge through a device_copy, every call's
arguments on its device, no operator on a target that lacks it), planning
it again must change nothing (idempotence), and the bytes the cost model
estimated must be the bytes the plan copies. With --audit N, N random
placements per module and strategy are forced (--force-placement) and the
cut's model must price each as the plan costs it, up to one constant. A module the generator
or the default placement rejects is skipped. Prints the counts (modules,
checked by enumeration, cheaper than the default placement) and every
failure with its seed; exits 1 when any failed.
"""
import argparse
import concurrent.futures
import os
import random
import re
import shutil
import subprocess
import sys
import tempfile


def run(cmd, stdin=None):
    p = subprocess.run(cmd, input=stdin, capture_output=True, text=True, timeout=120)
    return p.returncode, p.stdout, p.stderr


def report_costs(report, strategy):
    """(the cut model's cost, the plan's cost) from a --placement-report:
    bytes for min-copy, picoseconds for min-time (the report's ms), or None."""
    model = re.search(r"^cut: .*; cost \d+ -> (\d+) (?:bytes|ps)$", report, re.M)
    plan = re.search(r"^%s: +\d+ cop(?:y|ies), (\d+) bytes; estimated ([0-9.]+) ms" % strategy,
                     report, re.M)
    if not model or not plan:
        return None
    actual = int(plan.group(1)) if strategy == "min-copy" else float(plan.group(2)) * 1e9
    return int(model.group(1)), actual


def audit_model(hx_opt, src, strategy, report, seed, samples):
    """The cut's model must price every placement as the capture makes it,
    up to a constant (explicit copies, the operators of fixed classes): then
    the model's optimum, which --verify-optimal-placement checks by
    enumeration, is the optimum of the plan. Checks the cut's placement and
    `samples` random ones (--force-placement)."""
    m = re.search(r"^cut: (\d+) free classes", report, re.M)
    if not m or int(m.group(1)) == 0:
        return []
    n = int(m.group(1))
    cut = report_costs(report, strategy)
    if not cut:
        return ["%s: no cost in the placement report" % strategy]
    offset = cut[1] - cut[0]
    # The report prints ms to 6 decimals (1000 ps); the model rounds each
    # term to a picosecond.
    slack = 0 if strategy == "min-copy" else 1000 + n * 4
    rng = random.Random(seed * 2 + (strategy == "min-time"))
    for _ in range(samples):
        labels = "".join(rng.choice("01") for _ in range(n))
        rc, _, err = run([hx_opt, "-plan-devices", "--placement=" + strategy,
                          "--placement-report", "--force-placement=" + labels, src,
                          "-o", os.devnull])
        got = report_costs(err, strategy) if rc == 0 else None
        if got is None:
            continue  # e.g. an operator on a target that lacks it
        if abs(got[1] - got[0] - offset) > slack:
            return ["%s: the model prices placement %s at %d, the plan costs %s (the cut's "
                    "placement: model %d, plan %s)" % (strategy, labels, got[0], got[1],
                                                        cut[0], cut[1])]
    return []


def check(bindir, seed, calls, classes, audit=0):
    hx_opt = os.path.join(bindir, "hx-opt")
    rc, module, err = run([os.path.join(bindir, "hx-smith"), "--seed=%d" % seed,
                           "--calls=%d" % calls])
    if rc != 0:
        return seed, "skipped", 0, 0, []
    failures, enumerated, cheaper = [], 0, 0
    with tempfile.TemporaryDirectory() as d:
        src = os.path.join(d, "in.ir")
        with open(src, "w") as f:
            f.write(module)
        for p in ("min-copy", "min-time"):
            out = os.path.join(d, p + ".ir")
            rc, _, err = run([hx_opt, "-plan-devices", "--placement=" + p, "--placement-report",
                              "--verify-optimal-placement=%d" % classes, src, "-o", out])
            if rc != 0:
                if rc != 1 or "internal error" in err:
                    failures.append("%s: exit %d: %s" % (p, rc, err.strip()[:400]))
                continue
            m = re.search(r"cut: (\d+) free classes", err)
            if m and int(m.group(1)) <= classes:
                enumerated += 1
            costs = re.findall(r"^(?:min-copy|min-time|default): +\d+ cop(?:y|ies), (\d+) bytes; "
                               r"estimated ([0-9.]+) ms", err, re.M)
            if len(costs) == 2:
                key = 0 if p == "min-copy" else 1
                if float(costs[0][key]) < float(costs[1][key]):
                    cheaper += 1
            # The cost model counts the copies the capture makes.
            total = re.search(r"^total:\n((?:  .*\n)*)", err, re.M)
            copied = sum(int(b) for b in re.findall(r"(\d+) bytes", total.group(1))) if total else 0
            if costs and int(costs[0][0]) != copied:
                failures.append("%s: estimated %s bytes, the plan copies %d"
                                % (p, costs[0][0], copied))
            if audit:
                failures += audit_model(hx_opt, src, p, err, seed, audit)
            rc, _, err = run([hx_opt, "-verify-placement", out, "-o", os.devnull])
            if rc != 0:
                failures.append("%s: -verify-placement: %s" % (p, err.strip()[:400]))
            rc, again, err = run([hx_opt, "-plan-devices", "--placement=" + p, out])
            if rc != 0 or again != open(out).read():
                failures.append("%s: planning the planned module changes it" % p)
    return seed, "checked", enumerated, cheaper, failures


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--bin", default=os.path.dirname(shutil.which("hx-opt") or "build/bin/hx-opt"))
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("-n", type=int, default=200)
    ap.add_argument("--calls", type=int, default=8)
    ap.add_argument("--classes", type=int, default=20)
    ap.add_argument("-j", type=int, default=os.cpu_count() or 2)
    ap.add_argument("--audit", type=int, default=0,
                    help="also price this many random placements per module and strategy "
                         "(--force-placement) and fail unless the cut's model prices them as "
                         "the plan costs them, up to a constant")
    ap.add_argument("--min-checked", type=int, default=0,
                    help="fail unless at least this many placements were enumerated")
    a = ap.parse_args()
    totals = {"checked": 0, "skipped": 0}
    enumerated = cheaper = 0
    failed = []
    with concurrent.futures.ThreadPoolExecutor(a.j) as pool:
        jobs = [pool.submit(check, a.bin, s, a.calls, a.classes, a.audit)
                for s in range(a.seed, a.seed + a.n)]
        for j in jobs:
            seed, status, e, c, fails = j.result()
            totals[status] += 1
            enumerated += e
            cheaper += c
            failed += ["seed %d: %s" % (seed, f) for f in fails]
    print("placement: %d modules (%d skipped), %d placements checked against every "
          "alternative, %d cheaper than the default, %d failures"
          % (totals["checked"], totals["skipped"], enumerated, cheaper, len(failed)))
    for f in failed:
        print("FAIL " + f)
    if a.min_checked and enumerated < a.min_checked:
        print("FAIL only %d placements were checked by enumeration (--min-checked %d)"
              % (enumerated, a.min_checked))
        return 1
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
