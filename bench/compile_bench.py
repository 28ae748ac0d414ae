#!/usr/bin/env python3
"""Compile-speed benchmark for hx-opt (issue 2, "Speed").

1. Generates realistic, type-correct modules of about 10k, 100k and 1M lines
   into bench/out/ (deterministic; regenerated only when missing or when the
   generator changed): 10 to 50 defs of varying sizes with mixed operators
   (add, multiply, subtract, nn.relu, clip, nn.dense, reshape, transpose, sum,
   concatenate over tuples, split with projections, on_device annotations on
   two virtual devices), `let`s, and calls between globals, followed by a
   `#[metadata]` device table. The modules pass `infer-type` and
   `plan-devices` (a failing pipeline is reported and makes the exit status 1).
2. Times each pipeline on each file: the reference pipeline is the empty one
   (parse -> verify -> print, `hx-opt FILE -o /dev/null`); every other
   pipeline (`infer-type` by default, more with `--pass`) is timed the same
   way. Pass times come from `--time-passes` and are shown relative to the
   parse time measured in the same process (its `(parse)` row); the phases
   a pass reports (plan-devices' rewrite, constraints, ..., capture) are
   listed under it with their own time(1M)/time(100k). Each measurement is
   the fastest of `--reps` runs (each --time-passes row its own fastest), the
   sizes interleaved run by run; wall time, cpu time and peak RSS of the
   child come from wait4(2).
3. Prints one table per pipeline and checks the targets:
     - >= 100,000 lines/s at 1M lines, parse -> verify -> print;
     - <= 2 GiB peak RSS;
     - time(1M) / time(100k) <= 11 (near-linear scaling);
     - each pass adds <= 50% of the parse time (plan-devices: <= 100%, and
       its own time(1M)/time(100k) <= 11).
   With a 3M size (`--sizes 100000,1000000,3000000`) it also prints each
   pass's time(3M)/time(1M): the scaling once nothing fits in the cache.
4. A control (with 100k and 1M among the sizes; `--no-control` skips it):
   the 100k module ten times over (its globals renamed per copy), 1M lines
   whose defs have the 100k module's sizes. The generated 1M module has a
   few defs of 90k-150k lines, where the 100k module's largest has 24k: a
   pass that reads a def more than once finds it in the cache at 100k but
   not at 1M. Each pass's time(control)/time(100k) next to its
   time(1M)/time(100k) separates that effect of def size from growth in
   the size of the module (no target).
   Exits 1 if a pipeline fails on a generated file (every generated file must
   pass `-infer-type`), 0 otherwise; `--strict` also fails on missed targets.

Examples:
    bench/compile_bench.py                          # 10k, 100k, 1M lines
    bench/compile_bench.py --sizes 10000,100000
    bench/compile_bench.py --pass plan-devices --pass infer-type,plan-devices
    bench/compile_bench.py --sizes 100000,1000000,3000000 --pass plan-devices
"""

import argparse
import os
import random
import re
import subprocess
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
GENERATOR_VERSION = 4  # bump when the generated text changes

TARGET_LINES_PER_S = 100_000
TARGET_RSS_MIB = 2048
TARGET_RATIO = 11.0
TARGET_PASS_SHARE = 0.50
# Per-pass targets (share of the parse time at the largest size); others use
# TARGET_PASS_SHARE. plan-devices (issue 4): no slower than parsing, and its
# own time(1M)/time(100k) <= TARGET_RATIO.
PASS_TARGETS = {"infer-type": 0.50, "plan-devices": 1.00}
RATIO_CHECKED_PASSES = {"plan-devices"}


# ---- module generator --------------------------------------------------------


def tensor(shape, dtype="float32"):
    return "Tensor[(%s), %s]" % (", ".join(str(d) for d in shape), dtype)


class DefGen:
    """One `def`: a dataflow chain over a (batch, hidden) activation.

    Every block leaves a value of the def's activation shape in `cur`, so the
    blocks compose in any order and the module type-checks.

    Devices follow TVM's PlanDevices rules so that plan-devices succeeds: a
    primitive call puts its arguments and result on one device, so everything
    that touches the weights runs on the def's `home` device; `on_device`
    islands run a few weight-free operators on the other device (the input is
    pinned to home, the island's result is left free, so plan-devices inserts
    the copies); calls go only to defs with the same home device.
    """

    def __init__(self, rng, name, batch, hidden, callees, home, num_devices):
        self.rng = rng
        self.name = name
        self.batch = batch
        self.hidden = hidden
        self.callees = callees  # earlier defs with the same (batch, hidden)
        self.home = home
        self.num_devices = num_devices
        self.num_weights = rng.randint(2, 5)
        self.lines = []
        self.counter = 0  # %N graph bindings, numbered from 0 as hx prints them
        self.lets = 0
        self.recent = []  # earlier activations, for DAG sharing

    def params(self):
        return ["%x"] + ["%%w%d" % i for i in range(self.num_weights)] + ["%b"]

    def signature(self):
        b, h = self.batch, self.hidden
        ps = ["%%x: %s" % tensor((b, h))]
        ps += ["%%w%d: %s" % (i, tensor((h, h))) for i in range(self.num_weights)]
        ps.append("%%b: %s" % tensor((h,)))
        return "def @%s(%s) -> %s {" % (self.name, ", ".join(ps), tensor((b, h)))

    def bind(self, text):
        name = "%%%d" % self.counter
        self.counter += 1
        self.lines.append("  %s = %s;" % (name, text))
        return name

    def let(self, text):
        name = "%%v%d" % self.lets
        self.lets += 1
        self.lines.append("  let %s = %s;" % (name, text))
        return name

    def other(self, cur):
        return self.rng.choice(self.recent[-8:]) if self.recent else cur

    def weight(self):
        return "%%w%d" % self.rng.randrange(self.num_weights)

    def block(self, cur):
        rng, b, h = self.rng, self.batch, self.hidden
        kind = rng.choices(
            ["dense", "bias", "binary", "relu", "clip", "layout", "sum",
             "concat", "device", "let", "call"],
            weights=[14, 8, 14, 10, 6, 5, 5, 4, 6, 5, 3 if self.callees else 0])[0]
        if kind == "dense":
            return self.bind("nn.dense(%s, %s, units=%d)" % (cur, self.weight(), h))
        if kind == "bias":
            return self.bind("add(%s, %%b)" % cur)
        if kind == "binary":
            op = rng.choice(["add", "multiply", "subtract"])
            return self.bind("%s(%s, %s)" % (op, cur, self.other(cur)))
        if kind == "relu":
            return self.bind("nn.relu(%s)" % cur)
        if kind == "clip":
            lo = rng.choice(["0f", "-1f", "-0.5f"])
            hi = rng.choice(["6f", "1f", "3.5f"])
            return self.bind("clip(%s, a_min=%s, a_max=%s)" % (cur, lo, hi))
        if kind == "layout":
            r = self.bind("reshape(%s, newshape=[%d, %d, 2])" % (cur, b, h // 2))
            t = self.bind("transpose(%s, axes=[0, 2, 1])" % r)
            return self.bind("reshape(%s, newshape=[%d, %d])" % (t, b, h))
        if kind == "sum":
            s = self.bind("sum(%s, axis=[1], keepdims=True)" % cur)
            return self.bind("multiply(%s, %s)" % (cur, s))
        if kind == "concat":
            t = self.bind("(%s, %s)" % (cur, self.other(cur)))
            c = self.bind("concatenate(%s, axis=1)" % t)
            s = self.bind("split(%s, indices_or_sections=2, axis=1)" % c)
            p0 = self.bind("%s.0" % s)
            p1 = self.bind("%s.1" % s)
            return self.bind("add(%s, %s)" % (p0, p1))
        if kind == "device":
            home = "virtual_device=meta[VirtualDevice][%d]" % self.home
            if rng.random() < 0.3:
                return self.bind("on_device(%s, %s)" % (cur, home))
            other = "virtual_device=meta[VirtualDevice][%d]" % (
                (self.home + rng.randrange(1, self.num_devices)) % self.num_devices)
            x = self.bind("on_device(%s, %s)" % (cur, home))
            for _ in range(rng.randint(1, 3)):
                if rng.random() < 0.5:
                    x = self.bind("nn.relu(%s)" % x)
                else:
                    x = self.bind("clip(%s, a_min=0f, a_max=6f)" % x)
            return self.bind("on_device(%s, %s)" % (x, other))
        if kind == "let":
            return self.let("nn.relu(%s)" % cur)
        callee = rng.choice(self.callees)
        args = [cur] + ["%%w%d" % (i % self.num_weights)
                        for i in range(callee.num_weights)] + ["%b"]
        return self.bind("@%s(%s)" % (callee.name, ", ".join(args)))

    def generate(self, body_lines):
        self.lines.append(self.signature())
        cur = "%x"
        while len(self.lines) < body_lines:
            cur = self.block(cur)
            self.recent.append(cur)
        self.lines.append("  nn.relu(%s)" % cur)
        self.lines.append("}")
        return self.lines


METADATA = """#[metadata]
{
  "VirtualDevice": [
    {"device_type": "cpu", "virtual_device_id": 0, "target": "llvm"},
    {"device_type": "cuda", "virtual_device_id": 0, "target": "cuda"}
  ],
  "PassConfig": {"relay.fallback_device_type": "cuda"}
}
"""


def generate_module(lines, seed=2):
    """The text of a module of about `lines` lines."""
    rng = random.Random(seed * 1_000_003 + lines)
    num_defs = max(10, min(50, lines // 20_000))
    # Uneven sizes: a few big defs and many small ones, as in real models.
    weights = [rng.paretovariate(1.2) for _ in range(num_defs)]
    budget = lines - 1 - METADATA.count("\n")
    sizes = [max(8, int(budget * w / sum(weights))) for w in weights]
    shapes = [(1, 64), (4, 128), (16, 256), (8, 512)]
    out = ['#[version = "0.0.5"]']
    defs = []
    for i, size in enumerate(sizes):
        shape = shapes[i % len(shapes)]
        home = (i // len(shapes)) % 2
        callees = [d for d in defs if (d.batch, d.hidden, d.home) == shape + (home,)]
        name = "main" if i == len(sizes) - 1 else "f%d" % i
        d = DefGen(rng, name, shape[0], shape[1], callees, home, num_devices=2)
        out.extend(d.generate(size))
        defs.append(d)
    return "\n".join(out) + "\n" + METADATA


def ensure_file(path, make_text):
    """`path`, written from make_text() unless it is there from this
    generator version (a `.version` stamp beside it)."""
    stamp = path + ".version"
    if os.path.exists(path) and os.path.exists(stamp):
        with open(stamp) as f:
            if f.read().strip() == str(GENERATOR_VERSION):
                return path
    text = make_text()
    with open(path, "w") as f:
        f.write(text)
    with open(stamp, "w") as f:
        f.write(str(GENERATOR_VERSION))
    return path


def ensure_module(lines, outdir):
    return ensure_file(os.path.join(outdir, "bench-%d.ir" % lines),
                       lambda: generate_module(lines))


CONTROL = -1  # the key of the control module among the sizes


def control_module(outdir):
    """The text of the 100k module ten times over: copy k's globals get the
    suffix _ck (copy 0 keeps its names, so @main stays), one metadata
    section."""
    with open(ensure_module(100_000, outdir)) as f:
        text = f.read()
    head, _, meta = text.partition("#[metadata]")
    version, _, body = head.partition("\n")
    copies = [version, body.rstrip("\n")]
    for k in range(1, 10):
        copies.append(re.sub(r"@(\w+)", lambda m: "@%s_c%d" % (m.group(1), k), body).rstrip("\n"))
    return "\n".join(copies) + "\n#[metadata]" + meta


def ensure_control(outdir):
    return ensure_file(os.path.join(outdir, "bench-control-1000000.ir"),
                       lambda: control_module(outdir))


def count_lines(path):
    with open(path, "rb") as f:
        return sum(1 for _ in f)


# ---- measuring -----------------------------------------------------------------


class Run:
    """One hx-opt run: wall and cpu seconds, peak RSS, and the --time-passes
    report as an ordered list of (name, seconds). hx-opt reports `(parse)`,
    `(verify)` after parsing, each pass followed by its `(verify)` (verify-each),
    and `(print)`; the verifier rows are renamed `verify (after parse)` and
    `verify-each` here."""

    def __init__(self, wall, cpu, rss_kib, timings, rc, stderr):
        self.wall = wall
        self.cpu = cpu  # user + system seconds of the child
        self.rss_mib = rss_kib / 1024.0
        self.timings = timings
        self.rc = rc
        self.stderr = stderr

    def get(self, name):
        return sum(t for n, t in self.timings if n == name)

    def parse_s(self):
        """The parse time measured inside this run (None: hx-opt too old)."""
        return self.get("(parse)") if any(n == "(parse)" for n, _ in self.timings) else None

    def pass_rows(self, phases=False):
        """(name, seconds) of the passes and their verify-each, merged by name;
        with `phases`, the phases the passes timed instead."""
        out = {}
        for n, t in self.timings:
            if n not in ("(parse)", "(print)", "verify (after parse)") and ("/" in n) == phases:
                out[n] = out.get(n, 0.0) + t
        return list(out.items())


TIMING_LINE = re.compile(r"^\s+([0-9.]+) \(\s*[0-9.]+%\)  ( *)(- )?(.+?)\s*$")


def parse_time_passes(stderr):
    """Rows (name, seconds). A phase a pass timed (an indented `- name` row)
    is named after its parents: `plan-devices/analysis/constraints`."""
    rows = []
    parents = []  # names of the open rows, by depth
    for line in stderr.splitlines():
        m = TIMING_LINE.match(line)
        if not m or m.group(4) == "Total":
            continue
        depth = len(m.group(2)) // 2 if m.group(3) else 0
        del parents[depth:]
        name = "/".join(parents + [m.group(4)])
        parents.append(m.group(4))
        rows.append([name, float(m.group(1))])
    # The first (verify) follows (parse); later ones follow a pass.
    if rows and rows[0][0] == "(parse)" and len(rows) > 1 and rows[1][0] == "(verify)":
        rows[1][0] = "verify (after parse)"
    for r in rows:
        if r[0] == "(verify)":
            r[0] = "verify-each"
    return [tuple(r) for r in rows]


def run_once(hx_opt, path, pipeline):
    cmd = [hx_opt, path, "-o", os.devnull, "--time-passes"]
    if pipeline:
        cmd.append("--passes=" + pipeline)
    start = time.perf_counter()
    proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    stderr = proc.stderr.read().decode(errors="replace")
    _, status, usage = os.wait4(proc.pid, 0)
    wall = time.perf_counter() - start
    rc = os.waitstatus_to_exitcode(status)
    return Run(wall, usage.ru_utime + usage.ru_stime, usage.ru_maxrss,
               parse_time_passes(stderr), rc, stderr)


def measure_all(hx_opt, files, pipeline, reps):
    """For each file, the fastest of `reps` runs (its own --time-passes rows,
    so the ratios come from one process), with the lowest cpu time and peak
    RSS seen; or the first failing run. The sizes are interleaved (rep 1 of
    each size, then rep 2, ...), so a slow spell of a shared machine hits
    every size alike instead of skewing the ratios between them."""
    runs = {n: [] for n, _, _, _ in files}
    failed = {}
    for _ in range(reps):
        for n, path, _, _ in files:
            if n in failed:
                continue
            r = run_once(hx_opt, path, pipeline)
            if r.rc != 0:
                failed[n] = r
            else:
                runs[n].append(r)
    out = dict(failed)
    for n, rs in runs.items():
        if n in failed or not rs:
            continue
        best = min(rs, key=lambda r: r.wall)
        best.rss_mib = min(r.rss_mib for r in rs)
        best.cpu = min(r.cpu for r in rs)
        # Each --time-passes row is its own best too (a pass's fastest run
        # need not be the fastest process).
        best.timings = [(name, min(r.timings[i][1] for r in rs if len(r.timings) > i
                                   and r.timings[i][0] == name))
                        for i, (name, _) in enumerate(best.timings)]
        out[n] = best
    return out


# ---- report ----------------------------------------------------------------------


def fmt_lines(n, key=None):
    text = "%dk" % (n // 1000) if n < 1_000_000 else "%.1fM" % (n / 1e6)
    return text + "*" if key == CONTROL else text


def verdict(ok):
    return "ok" if ok else "MISSED"


def main():
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--sizes", default="10000,100000,1000000",
                    help="comma-separated line counts (default: %(default)s)")
    ap.add_argument("--pass", dest="pipelines", action="append", default=None,
                    metavar="PIPELINE",
                    help="a pipeline to time besides parsing (hx-opt --passes text, "
                         "e.g. 'plan-devices' or 'infer-type,plan-devices'); "
                         "repeatable; default: infer-type and plan-devices")
    ap.add_argument("--reps", type=int, default=5, help="repetitions, best-of (default 5)")
    ap.add_argument("--hx-opt", default=os.path.join(ROOT, "build", "bin", "hx-opt"))
    ap.add_argument("--out", default=os.path.join(ROOT, "bench", "out"))
    ap.add_argument("--generate-only", action="store_true")
    ap.add_argument("--strict", action="store_true", help="exit 1 when a target is missed")
    ap.add_argument("--no-control", dest="control", action="store_false",
                    help="skip the control module (the 100k module ten times over)")
    args = ap.parse_args()

    sizes = [int(s) for s in args.sizes.split(",") if s.strip()]
    pipelines = args.pipelines if args.pipelines is not None else ["infer-type", "plan-devices"]
    os.makedirs(args.out, exist_ok=True)

    files = []
    for n in sizes:
        t0 = time.perf_counter()
        path = ensure_module(n, args.out)
        files.append((n, path, count_lines(path), os.path.getsize(path)))
        print("input  %-28s %9d lines %7.1f MiB  (%.1fs to generate or find)"
              % (os.path.relpath(path, ROOT), files[-1][2], files[-1][3] / 2**20,
                 time.perf_counter() - t0))
    if args.control and 100_000 in sizes and 1_000_000 in sizes:
        t0 = time.perf_counter()
        path = ensure_control(args.out)
        files.append((CONTROL, path, count_lines(path), os.path.getsize(path)))
        print("input  %-28s %9d lines %7.1f MiB  (%.1fs to generate or find)"
              % (os.path.relpath(path, ROOT), files[-1][2], files[-1][3] / 2**20,
                 time.perf_counter() - t0))
        print("       * the control: the 100k module ten times over (defs of its sizes)")
    if args.generate_only:
        return 0
    if not os.access(args.hx_opt, os.X_OK):
        print("error: %s is not built (ninja -C build hx-opt)" % args.hx_opt, file=sys.stderr)
        return 1

    failed = False
    missed = []
    busy = False

    # The reference: parse -> verify -> print.
    ref = {}
    print("\n== parse -> verify -> print (hx-opt FILE -o /dev/null), best of %d =="
          % args.reps)
    print("   seconds = wall time of the process; parse/verify/print = its --time-passes rows")
    print("%8s %9s %11s %9s %9s %8s %8s %8s %9s" % (
        "lines", "seconds", "lines/s", "peak MiB", "cpu s", "parse s", "verify s",
        "print s", "MiB/s in"))
    measured = measure_all(args.hx_opt, files, "", args.reps)
    for n, path, lines, size in files:
        r = measured[n]
        if r.rc != 0:
            print("%8s  FAILED (exit %d):\n%s" % (fmt_lines(lines, n), r.rc, r.stderr[-2000:]))
            failed = True
            continue
        ref[n] = (r, lines)
        busy = busy or r.wall > 1.15 * r.cpu + 0.01
        internal = ("%8.3f %8.3f %8.3f" % (r.parse_s(), r.get("verify (after parse)"),
                                           r.get("(print)"))
                    if r.parse_s() is not None else "%8s %8s %8s" % ("-", "-", "-"))
        print("%8s %9.3f %11s %9.1f %9.3f %s %9.1f" % (
            fmt_lines(lines, n), r.wall, "{:,.0f}".format(lines / r.wall), r.rss_mib, r.cpu,
            internal, size / 2**20 / r.wall))

    print("\ntargets (for modules of up to 1M lines):")
    big = max((n for n in ref if n <= 1_000_000), default=None)
    if big is not None:
        r, lines = ref[big]
        lps = lines / r.wall
        ok = lps >= TARGET_LINES_PER_S
        final = big >= 1_000_000
        print("  speed  at %-6s %12s lines/s   target >= %s   %s"
              % (fmt_lines(lines), "{:,.0f}".format(lps), "{:,}".format(TARGET_LINES_PER_S),
                 verdict(ok) if final else "(the target is for 1M lines)"))
        if final and not ok:
            missed.append("speed")
    peak = max((r.rss_mib for n, (r, _) in ref.items() if 0 < n <= 1_000_000), default=0)
    ok = peak <= TARGET_RSS_MIB
    print("  memory peak     %12.1f MiB       target <= %d MiB   %s"
          % (peak, TARGET_RSS_MIB, verdict(ok)))
    if not ok:
        missed.append("memory")
    if 100_000 in ref and 1_000_000 in ref:
        ratio = ref[1_000_000][0].wall / ref[100_000][0].wall
        ok = ratio <= TARGET_RATIO
        print("  scaling time(1M)/time(100k) = %5.2f     target <= %.0f        %s"
              % (ratio, TARGET_RATIO, verdict(ok)))
        if not ok:
            missed.append("scaling")
        if CONTROL in ref:
            print("  control: time(1M*)/time(100k) = %5.2f   (no target; defs of the 100k "
                  "module's sizes)" % (ref[CONTROL][0].wall / ref[100_000][0].wall))
    else:
        print("  scaling time(1M)/time(100k): needs --sizes with 100000 and 1000000")

    # Each pipeline, relative to the parse time measured in the same process
    # (the `(parse)` row of its --time-passes report).
    for pipeline in pipelines:
        print("\n== pipeline '%s' (hx-opt FILE --passes=%s -o /dev/null), best of %d =="
              % (pipeline, pipeline, args.reps))
        print("   each pass (with its verify-each) as a share of the parse time of the same "
              "run;\n   'added' = wall time minus the parse -> verify -> print wall time above")
        print("%8s %9s %9s %9s %9s %9s %9s" % (
            "lines", "parse s", "passes s", "passes %", "wall s", "added %", "peak MiB"))
        per_pass = {}  # pass name -> {size: (lines, seconds, parse seconds)}
        phase_times = {}  # pass/phase -> {size: seconds}
        measured = measure_all(args.hx_opt, [f for f in files if f[0] in ref], pipeline,
                               args.reps)
        for n, path, lines, size in files:
            if n not in ref:
                continue
            base = ref[n][0]
            r = measured[n]
            if r.rc != 0:
                print("%8s  FAILED (exit %d):\n%s" % (fmt_lines(lines, n), r.rc,
                                                       r.stderr[-2000:]))
                failed = True
                continue
            busy = busy or r.wall > 1.15 * r.cpu + 0.01
            parse_s = r.parse_s()
            if parse_s is None:  # an hx-opt without the (parse) row
                parse_s = base.wall
            rows = r.pass_rows()
            pass_s = sum(t for _, t in rows)
            added = r.wall - base.wall
            print("%8s %9.3f %9.3f %8.1f%% %9.3f %8.1f%% %9.1f" % (
                fmt_lines(lines, n), parse_s, pass_s, 100 * pass_s / parse_s, r.wall,
                100 * added / base.wall, r.rss_mib))
            for name, t in rows:
                print("%8s   %-22s %8.3f s  %6.1f%% of parse" % ("", name, t,
                                                            100 * t / parse_s))
                if not name.startswith("("):
                    per_pass.setdefault(name, {})[n] = (lines, t, parse_s)
            for name, t in r.pass_rows(phases=True):
                depth = name.count("/")
                leaf = name.rsplit("/", 1)[1]
                print("%8s   %-22s %8.3f s" % ("", "  " * depth + "- " + leaf, t))
                phase_times.setdefault(name, {})[n] = t
        for name, by_size in per_pass.items():
            largest = max(by_size)
            lines, t, parse_s = by_size[largest]
            target = PASS_TARGETS.get(name, TARGET_PASS_SHARE)
            ok = t <= target * parse_s
            print("  target: '%s' takes <= %.0f%% of the parse time at %s: %.1f%%   %s"
                  % (name, 100 * target, fmt_lines(lines), 100 * t / parse_s, verdict(ok)))
            if not ok:
                missed.append(name)
            if 1_000_000 in by_size and 100_000 in by_size:
                ratio = by_size[1_000_000][1] / by_size[100_000][1]
                checked = name in RATIO_CHECKED_PASSES
                ok = ratio <= TARGET_RATIO or not checked
                print("  '%s' time(1M)/time(100k) = %5.2f%s   %s"
                      % (name, ratio, "     target <= %.0f" % TARGET_RATIO if checked else "",
                         verdict(ok) if checked else "(no target)"))
                if not ok:
                    missed.append(name + " scaling")
                if CONTROL in by_size:
                    print("  '%s' time(1M*)/time(100k) = %5.2f   (control, no target)"
                          % (name, by_size[CONTROL][1] / by_size[100_000][1]))
            if 3_000_000 in by_size and 1_000_000 in by_size:
                print("  '%s' time(3M)/time(1M)   = %5.2f   (no target; 3 is linear)"
                      % (name, by_size[3_000_000][1] / by_size[1_000_000][1]))
        scaled = [(name, by_size[1_000_000] / by_size[100_000],
                   by_size[CONTROL] / by_size[100_000] if CONTROL in by_size else None)
                  for name, by_size in phase_times.items()
                  if 1_000_000 in by_size and by_size.get(100_000)]
        if scaled:
            print("  phases, time(1M)/time(100k) (no target; shows where the time grows)%s:"
                  % (", and time(1M*)/time(100k)" if any(c for _, _, c in scaled) else ""))
            for name, ratio, control in scaled:
                print("    %-40s %5.2f" % (name, ratio)
                      + ("   %5.2f" % control if control is not None else ""))

    if busy:
        print("\nwarning: some wall times exceed the process's cpu time by more than 15%: "
              "the machine was busy; compare the cpu column")
    if failed:
        return 1
    if missed:
        print("\nmissed targets: " + ", ".join(missed))
        return 1 if args.strict else 0
    return 0


if __name__ == "__main__":
    sys.exit(main())
