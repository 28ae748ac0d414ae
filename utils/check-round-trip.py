#!/usr/bin/env python3
"""Checks print(parse(print(m))) == print(m) for every input under the given
directories: each `.ir` file, split on `// -----` lines, that hx-opt accepts
(inputs that are meant to fail, with exit status 1, are skipped). Usage:

    check-round-trip.py HX_OPT DIR... [--pass FLAG]... [--expect-ok=N]

With --pass, the check is made after those passes as well (the output of the
pipeline must print back to itself); a --pass value with spaces is a pipeline
of several flags ("-plan-devices -fuse-ops"). Every (chunk, pipeline) pair is one job.

A job fails when hx-opt exits with anything but 0 or 1 (an internal error or a
crash is never "an input meant to fail"), or when its output does not print
back to itself. With --expect-ok=N, exactly N jobs must succeed: an input that
used to be accepted and now fails with a user error is caught too. Adding a
test file changes N; the summary says which number to write.

Prints one line per failure and a summary; exits 1 on any failure.
"""
import concurrent.futures
import os
import subprocess
import sys


def chunks(text):
    cur = []
    for line in text.split("\n"):
        if line.strip().startswith("// -----"):
            yield "\n".join(cur)
            cur = []
        else:
            cur.append(line)
    yield "\n".join(cur)


def run(hx, args, text):
    p = subprocess.run([hx] + args + ["-"], input=text.encode(), capture_output=True, timeout=120)
    return p.returncode, p.stdout


def main():
    args = sys.argv[1:]
    passes = []
    expect_ok = None
    for a in list(args):
        if a.startswith("--expect-ok="):
            expect_ok = int(a[len("--expect-ok="):])
            args.remove(a)
    while "--pass" in args:
        i = args.index("--pass")
        passes.append(args[i + 1])
        del args[i:i + 2]
    hx, dirs = args[0], args[1:]
    jobs = []
    for d in dirs:
        for root, _, files in sorted(os.walk(d)):
            for f in sorted(files):
                if not f.endswith(".ir"):
                    continue
                path = os.path.join(root, f)
                with open(path, encoding="utf-8", errors="surrogateescape") as fh:
                    text = fh.read()
                for n, chunk in enumerate(chunks(text)):
                    for pipeline in [[]] + [p.split() for p in passes]:
                        jobs.append((path, n, pipeline, chunk))

    def check(job):
        path, n, pipeline, chunk = job
        rc, once = run(hx, pipeline, chunk)
        if rc == 1:
            return None, ""  # an input meant to fail, or not valid for this pass
        if rc != 0:
            return False, "exit status %d" % rc
        rc2, twice = run(hx, [], once.decode())
        if rc2 != 0:
            return False, "re-parse: exit status %d" % rc2
        return twice == once, "prints differently"

    # Independent hx-opt runs, one per core; results are reported in input order.
    with concurrent.futures.ThreadPoolExecutor(max_workers=os.cpu_count() or 1) as pool:
        results = list(pool.map(check, jobs))
    checked = sum(ok is not None for ok, _ in results)
    failed = 0
    for (path, n, pipeline, _), (ok, why) in zip(jobs, results):
        if ok is False:
            failed += 1
            print("FAIL %s chunk %d %s: %s" % (path, n, " ".join(pipeline), why))
    print("round trip: %d checked, %d failed" % (checked, failed))
    if expect_ok is not None and checked != expect_ok:
        print("FAIL expected %d inputs to be accepted, %d were: an input that was "
              "accepted now fails, or a test file was added or removed (then "
              "update --expect-ok in test/round-trip.test to %d)" % (expect_ok, checked, checked))
        return 1
    return 1 if failed or checked == 0 else 0

if __name__ == "__main__":
    sys.exit(main())
