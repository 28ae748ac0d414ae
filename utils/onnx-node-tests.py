#!/usr/bin/env python3
"""Runs ONNX's backend node tests through hx and checks each outcome against
a reviewed list.

    onnx-node-tests.py generate DIR
        write ONNX's node tests (DIR/node/test_*/model.onnx and
        test_data_set_0/{input,output}_N.pb) from the installed onnx package
    onnx-node-tests.py run DIR --hx-run HX_RUN --expected LIST [options]
        run every test: `hx-run model.onnx --input ... --check-against=REF`
        compares hx's cpu results with ONNX's expected outputs by hx's
        comparison rule (docs/testing.md)

Each test ends as one of:
    pass     hx ran it and every output agrees
    refused  hx exits 1 with an error before running (an op type, a dtype,
             an opset, an input only the run knows)
    wrong    hx ran it and an output disagrees
    crash    anything else: a signal, another exit status, a timeout

LIST names every test expected to be refused, one per line with its reason
as hx printed it (`test_name: reason`); every other test must pass. A line
`test_name: differs: why` (written by hand, kept by --update) names a test
whose expected data contradict what hx does on purpose (with ONNX Runtime
and PyTorch); its disagreement counts as `differs`, not `wrong`. `run`
exits 1 if any test gives a wrong answer or crashes, if a test the list does
not name is refused, or if a listed test now passes (take it off the list:
--update rewrites LIST from this run). It prints the counts, and with
--by-op the counts per op type (docs/onnx.md's table).

Needs Debian's /usr/bin/python3 (onnx, numpy).
"""
import argparse
import collections
import concurrent.futures
import os
import re
import subprocess
import sys
import tempfile

import numpy as np


def numpy_aliases():
    # onnx 1.12's generators use aliases NumPy 1.24 removed.
    for name, value in (("float", float), ("int", int), ("bool", bool),
                        ("object", object), ("complex", complex)):
        if not hasattr(np, name):
            setattr(np, name, value)


def generate(out):
    numpy_aliases()
    from onnx.backend.test.cmd_tools import main
    saved = sys.argv
    sys.argv = ["onnx", "generate-data", "-o", out]
    try:
        main()
    finally:
        sys.argv = saved


def read_pb(path):
    import onnx
    from onnx import numpy_helper
    t = onnx.TensorProto()
    with open(path, "rb") as f:
        t.ParseFromString(f.read())
    return numpy_helper.to_array(t)


def as_declared(a, value_info):
    """The test data hold a bfloat16 value's bits as uint16; hx reads and
    writes bfloat16 in .npy files as float32 (exactly): convert."""
    import onnx
    if value_info.type.tensor_type.elem_type == onnx.TensorProto.BFLOAT16 and a.dtype == np.uint16:
        return (a.astype(np.uint32) << 16).view(np.float32)
    return a


def first_error(text):
    """The first error line hx printed, without the path of the model."""
    for line in text.splitlines():
        m = re.search(r"error: (.*)", line)
        if m:
            msg = m.group(1)
            # Drop the model's path so the list does not depend on DIR.
            msg = re.sub(r"\S*model\.onnx:?\s*", "", msg)
            # And the temporary folder of the inputs (input_1.npy stays).
            msg = re.sub(r"/\S*/(input_\d+\.npy)", r"\1", msg)
            # The lists of what hx imports change with every operator added.
            msg = re.split(r"; hx imports [A-Z]| \(re-export", msg)[0]
            return msg.strip()
    lines = [l for l in text.splitlines() if l.strip()]
    return lines[0].strip() if lines else "(no message)"


def run_one(test_dir, hx_run, timeout):
    """(outcome, message) of one test."""
    name = os.path.basename(test_dir)
    data = os.path.join(test_dir, "test_data_set_0")
    model_path = os.path.join(test_dir, "model.onnx")
    import onnx
    try:
        model = onnx.load(model_path)
    except Exception as e:  # pragma: no cover - the generator wrote it
        return "crash", f"onnx cannot load the model: {e}"
    inits = {i.name for i in model.graph.initializer}
    inputs = [i for i in model.graph.input if i.name not in inits]
    with tempfile.TemporaryDirectory(prefix=name + ".") as tmp:
        ref = os.path.join(tmp, "ref")
        os.mkdir(ref)
        args = [hx_run, model_path, "--threads=1", "--check-against=" + ref]
        try:
            for i, vi in enumerate(inputs):
                pb = os.path.join(data, f"input_{i}.pb")
                if not os.path.exists(pb):
                    continue  # an optional input left out
                path = os.path.join(tmp, f"input_{i}.npy")
                np.save(path, as_declared(read_pb(pb), vi))
                args.append(f"--input={vi.name}={path}")
            i = 0
            while os.path.exists(os.path.join(data, f"output_{i}.pb")):
                out = read_pb(os.path.join(data, f"output_{i}.pb"))
                if i < len(model.graph.output):
                    out = as_declared(out, model.graph.output[i])
                np.save(os.path.join(ref, f"output_{i}.npy"), out)
                i += 1
        except Exception as e:
            # Sequences and optionals, which NumPy cannot hold.
            return "refused", "the test's data is not a tensor (" + type(e).__name__ + ")"
        try:
            p = subprocess.run(args, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                               timeout=timeout, text=True, errors="replace")
        except subprocess.TimeoutExpired:
            return "crash", f"no answer within {timeout} s"
    out = p.stdout
    if p.returncode == 0:
        return "pass", ""
    if p.returncode == 1 and ": FAILED" in out:
        return "wrong", first_error(out) if "error:" in out else out.strip().splitlines()[0]
    if p.returncode == 1 and "error:" in out:
        return "refused", first_error(out)
    return "crash", f"exit status {p.returncode}: " + (out.strip().splitlines() or [""])[-1][:300]


def read_expected(path):
    expected = {}
    if not os.path.exists(path):
        return expected
    with open(path) as f:
        for line in f:
            line = line.rstrip("\n")
            if not line or line.startswith("#"):
                continue
            name, _, reason = line.partition(": ")
            expected[name] = reason
    return expected


def op_type_of(test_dir):
    import onnx
    try:
        g = onnx.load(os.path.join(test_dir, "model.onnx")).graph
    except Exception:
        return "?"
    types = [n.op_type for n in g.node]
    return types[-1] if len(types) == 1 else (types[0] if types else "?")


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = ap.add_subparsers(dest="cmd", required=True)
    g = sub.add_parser("generate")
    g.add_argument("dir")
    r = sub.add_parser("run")
    r.add_argument("dir")
    r.add_argument("--hx-run", required=True)
    r.add_argument("--expected", required=True)
    r.add_argument("--update", action="store_true", help="rewrite --expected from this run")
    r.add_argument("--only", help="a regular expression over test names")
    r.add_argument("--jobs", type=int, default=os.cpu_count() or 1)
    r.add_argument("--timeout", type=float, default=120)
    r.add_argument("--by-op", action="store_true", help="print the counts per op type")
    r.add_argument("--verbose", "-v", action="store_true", help="print every test's outcome")
    a = ap.parse_args()
    if a.cmd == "generate":
        generate(a.dir)
        return 0

    root = os.path.join(a.dir, "node")
    tests = sorted(d for d in os.listdir(root) if d.startswith("test_"))
    if a.only:
        tests = [t for t in tests if re.search(a.only, t)]
    results = {}
    with concurrent.futures.ThreadPoolExecutor(max_workers=a.jobs) as pool:
        futures = {pool.submit(run_one, os.path.join(root, t), a.hx_run, a.timeout): t for t in tests}
        for f in concurrent.futures.as_completed(futures):
            results[futures[f]] = f.result()

    expected = read_expected(a.expected)
    problems = []
    counts = collections.Counter()
    for t in tests:
        outcome, msg = results[t]
        if outcome == "wrong" and expected.get(t, "").startswith("differs: "):
            outcome = "differs"
            results[t] = (outcome, expected[t])
        counts[outcome] += 1
        if a.verbose:
            print(f"{t}: {outcome}" + (f": {msg}" if msg else ""))
        if outcome in ("wrong", "crash"):
            problems.append(f"{t}: {outcome.upper()}: {msg}")
        elif outcome == "refused" and t not in expected:
            problems.append(f"{t}: refused, and the list expects it to pass: {msg}")
        elif outcome == "pass" and t in expected:
            problems.append(f"{t}: passes now; take it off {os.path.basename(a.expected)}")

    if a.update:
        with open(a.expected, "w") as f:
            f.write("# ONNX node tests hx refuses, with the reason it gives (utils/onnx-node-tests.py\n"
                    "# run --update writes this list; every test not named here must pass).\n")
            for t in tests:
                if results[t][0] in ("refused", "differs"):
                    f.write(f"{t}: {results[t][1]}\n")

    total = len(tests)
    print(f"onnx node tests: {total}: {counts['pass']} pass ({100.0 * counts['pass'] / max(total, 1):.1f}%), "
          f"{counts['refused']} refused, {counts['wrong']} wrong, {counts['crash']} crash"
          + (f" ({counts['differs']} listed as differing on purpose)" if counts['differs'] else ""))
    if a.by_op:
        per = collections.defaultdict(collections.Counter)
        for t in tests:
            per[op_type_of(os.path.join(root, t))][results[t][0]] += 1
        for op in sorted(per):
            c = per[op]
            print(f"  {op}: {c['pass']} pass, {c['refused']} refused"
                  + (f", {c['wrong']} wrong" if c['wrong'] else "")
                  + (f", {c['crash']} crash" if c['crash'] else ""))
    for p in problems:
        print(p)
    return 1 if problems and not a.update else 0


if __name__ == "__main__":
    sys.exit(main())
