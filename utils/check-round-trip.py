#!/usr/bin/env python3
"""Checks print(parse(print(m))) == print(m) for every input under the given
directories: each `.ir` file, split on `// -----` lines. Usage:

    check-round-trip.py HX_OPT DIR... [--pass FLAG]... [--rejected=PATH]...

With --pass, the check is made after those passes as well (the output of the
pipeline must print back to itself); a --pass value with spaces is a pipeline
of several flags ("-plan-devices -fuse-ops"). Every (chunk, pipeline) pair is
one job.

A job fails when hx-opt exits with anything but 0 or 1 (an internal error or a
crash is never "an input meant to fail"), or when its output does not print
back to itself. Plain hx-opt must accept every chunk unless the chunk says it
should not (an `expected-error`) or its file is one of the reviewed --rejected
ones (PATH relative to the DIR it is under: inputs other tests run under
`not`, or that need a flag or a file beside them). So an input that used to be
accepted and now fails with a user error is caught, and a new test file needs
nothing here unless hx-opt rejects it on its own. A listed file whose every
chunk hx-opt accepts fails too, so the list stays true. A pass may reject an input (exit
status 1): that pipeline is then skipped for it. Files without a function
(`def @`: generator scripts' RUN lines only) are skipped.

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
    rejected = set()
    for a in list(args):
        if a.startswith("--rejected="):
            rejected.add(os.path.normpath(a[len("--rejected="):]))
            args.remove(a)
    while "--pass" in args:
        i = args.index("--pass")
        passes.append(args[i + 1])
        del args[i:i + 2]
    hx, dirs = args[0], args[1:]
    jobs = []
    listed = set()
    for d in dirs:
        for root, _, files in sorted(os.walk(d)):
            for f in sorted(files):
                if not f.endswith(".ir"):
                    continue
                path = os.path.join(root, f)
                rel = os.path.normpath(os.path.relpath(path, d))
                with open(path, encoding="utf-8", errors="surrogateescape") as fh:
                    text = fh.read()
                code = [l for l in text.splitlines() if not l.lstrip().startswith("//")]
                if not any("def @" in l for l in code):
                    continue
                listed_here = rel in rejected
                if listed_here:
                    listed.add(rel)
                for n, chunk in enumerate(chunks(text)):
                    for pipeline in [[]] + [p.split() for p in passes]:
                        jobs.append((path, n, pipeline, chunk, listed_here))
    unknown = sorted(rejected - listed)

    def check(job):
        path, n, pipeline, chunk, listed_here = job
        rc, once = run(hx, pipeline, chunk)
        if rc == 1:
            if not pipeline and not listed_here and "expected-error" not in chunk:
                return False, "hx-opt rejects it, and it neither has an expected-error " \
                              "nor is --rejected in round-trip.test"
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
    for (path, n, pipeline, _, _), (ok, why) in zip(jobs, results):
        if ok is False:
            failed += 1
            print("FAIL %s chunk %d %s: %s" % (path, n, " ".join(pipeline), why))
    # A listed file must still be rejected somewhere (in some chunk).
    rejected_paths = {path for (path, _, pipeline, chunk, listed_here), (ok, _) in
                      zip(jobs, results) if listed_here and not pipeline and ok is None}
    for path in sorted({job[0] for job in jobs if job[4]} - rejected_paths):
        failed += 1
        print("FAIL %s: --rejected in round-trip.test, but hx-opt accepts it" % path)
    for rel in unknown:
        failed += 1
        print("FAIL --rejected=%s: no such .ir file" % rel)
    print("round trip: %d checked, %d failed" % (checked, failed))
    return 1 if failed or checked == 0 else 0


if __name__ == "__main__":
    sys.exit(main())
