#!/usr/bin/env python3
"""Checks print(parse(print(m))) == print(m) for every input under the given
directories: each `.ir` file, split on `// -----` lines, that hx-opt accepts
(inputs that are meant to fail are skipped). Usage:

    check-round-trip.py HX_OPT DIR... [--pass FLAG]...

With --pass, the check is made after those passes as well (the output of the
pipeline must print back to itself). Prints one line per failure and a summary;
exits 1 on any failure.
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
                    for pipeline in [[]] + [[p] for p in passes]:
                        jobs.append((path, n, pipeline, chunk))

    def check(job):
        path, n, pipeline, chunk = job
        rc, once = run(hx, pipeline, chunk)
        if rc != 0:
            return None  # an input meant to fail, or not valid for this pass
        rc2, twice = run(hx, [], once.decode())
        return rc2 == 0 and twice == once

    # Independent hx-opt runs, one per core; results are reported in input order.
    with concurrent.futures.ThreadPoolExecutor(max_workers=os.cpu_count() or 1) as pool:
        results = list(pool.map(check, jobs))
    checked = sum(r is not None for r in results)
    failed = 0
    for (path, n, pipeline, _), ok in zip(jobs, results):
        if ok is False:
            failed += 1
            print("FAIL %s chunk %d %s" % (path, n, " ".join(pipeline)))
    print("round trip: %d checked, %d failed" % (checked, failed))
    return 1 if failed or checked == 0 else 0

if __name__ == "__main__":
    sys.exit(main())
