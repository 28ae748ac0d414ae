#!/usr/bin/env python3
"""How fast a compiled model (.hxc) loads, and a compile the compile cache serves,
beside compiling the model again:

    /usr/bin/python3 bench/run_compiled_load.py [--threads N] [--repeat R] [--model resnet50]

ResNet-50 from torchvision (random weights, seeded; one 3x224x224 image) is
exported to ONNX and compiled once by hx-compile. Then, best of R runs each,
on N threads:
  - hx-run MODEL.onnx (import, plan, compile, run) beside hx-run MODEL.hxc
    (read, type, link the saved kernels, run): whole processes;
  - in Python, hx.compile(MODEL.onnx) and its first run beside
    hx.load_compiled(MODEL.hxc) and its first run: the API's own time.
  - the compile cache: in new processes with an empty cache directory, the
    first hx-run (compiles, fills the cache) beside the second (loads), and
    the same for hx.compile in a new Python process (the call's own time).
Each figure is printed next to its reference from the same run, with the
ratio and the targets (the load and first result in at most 40% of the
compile-and-run time, and under 0.3 s; a second compile in a new process
in under 10% of the first). docs/benchmarks.md records them
with their machine. Needs Debian's /usr/bin/python3 (torch, torchvision,
onnx) and a build in build/.
"""
import argparse
import os
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
BIN = os.path.join(ROOT, "build", "bin")


def export(model_name, path):
    import torch
    import torchvision
    torch.manual_seed(0)
    model = getattr(torchvision.models, model_name)(weights=None).eval()
    x = torch.randn(1, 3, 224, 224)
    torch.onnx.export(model, x, path, opset_version=17, input_names=["input"])


def best_process(cmd, repeat):
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        times.append(time.perf_counter() - start)
    return min(times)


PY_COMPILE = """
import sys, time
sys.path.insert(0, sys.argv[1])
import hx
start = time.perf_counter()
hx.compile(sys.argv[2], threads=int(sys.argv[3]))
print(time.perf_counter() - start)
"""


def cache_pair(cmd, env, repeat, python=False):
    """Best of `repeat` (first, second) runs, each pair on an empty cache."""
    firsts, seconds = [], []
    for i in range(repeat):
        env = dict(env, HX_CACHE="1", HX_CACHE_DIR=os.path.join(env["HX_BENCH_TMP"], f"c{i}"))
        pair = []
        for _ in range(2):
            start = time.perf_counter()
            out = subprocess.run(cmd, check=True, env=env, stdout=subprocess.PIPE,
                                 stderr=subprocess.DEVNULL, text=True).stdout
            pair.append(float(out.split()[-1]) if python else time.perf_counter() - start)
        firsts.append(pair[0])
        seconds.append(pair[1])
    return min(firsts), min(seconds)


def best_python(fn, repeat):
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return min(times)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--threads", type=int, default=os.cpu_count() or 1)
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--model", default="resnet50", help="a torchvision model name")
    args = ap.parse_args()
    sys.path.insert(0, os.path.join(ROOT, "build", "python"))
    import numpy as np
    import hx

    with tempfile.TemporaryDirectory(prefix="hx-compiled-") as tmp:
        onnx_path = os.path.join(tmp, args.model + ".onnx")
        hxc = os.path.join(tmp, args.model + ".hxc")
        export(args.model, onnx_path)
        threads = f"--threads={args.threads}"
        start = time.perf_counter()
        subprocess.run([os.path.join(BIN, "hx-compile"), onnx_path, "-o", hxc, threads], check=True)
        compile_once = time.perf_counter() - start
        size = os.path.getsize(hxc)

        run = [os.path.join(BIN, "hx-run"), "--random-inputs", "--no-cache", threads]
        cold = best_process(run[:1] + [onnx_path] + run[1:], args.repeat)
        warm = best_process(run[:1] + [hxc] + run[1:], args.repeat)
        env = dict(os.environ, HX_BENCH_TMP=tmp)
        cache_run = cache_pair([run[0], onnx_path, "--random-inputs", threads], env, args.repeat)
        cache_py = cache_pair([sys.executable, "-c", PY_COMPILE, os.path.join(ROOT, "build", "python"),
                               onnx_path, str(args.threads)], env, args.repeat, python=True)

        x = np.random.default_rng(0).standard_normal((1, 3, 224, 224)).astype(np.float32)
        py_cold = best_python(
            lambda: hx.compile(onnx_path, threads=args.threads, cache=False).run(x), args.repeat)
        py_warm = best_python(lambda: hx.load_compiled(hxc, threads=args.threads).run(x),
                              args.repeat)
        want = hx.compile(onnx_path, threads=args.threads, cache=False).run(x)[0]
        got = hx.load_compiled(hxc, threads=args.threads).run(x)[0]
        same = np.array_equal(want, got)

    print(f"{args.model}: {size / 1e6:.1f} MB .hxc, hx-compile {compile_once:.2f} s, "
          f"{args.threads} threads, best of {args.repeat}")
    print(f"{'':36}{'compile+run':>12}{'.hxc load+run':>15}{'ratio':>8}")
    for label, a, b in (("hx-run (whole process)", cold, warm),
                        ("Python (compile / load + first run)", py_cold, py_warm)):
        print(f"{label:36}{a * 1e3:9.0f} ms{b * 1e3:12.0f} ms{b / a:8.2f}")
    print(f"{'compile cache, new processes':36}{'first':>12}{'second':>15}")
    for label, (a, b) in (("hx-run (whole process)", cache_run),
                          ("Python (hx.compile's time)", cache_py)):
        print(f"{label:36}{a * 1e3:9.0f} ms{b * 1e3:12.0f} ms{b / a:8.2f}")
    print("target: second <= 0.10 of the first: "
          f"{'met' if cache_run[1] / cache_run[0] <= 0.1 else 'MISSED'} (hx-run), "
          f"{'met' if cache_py[1] / cache_py[0] <= 0.1 else 'MISSED'} (Python)")
    print("targets: ratio <= 0.40 and load+run < 300 ms: "
          f"{'met' if py_warm / py_cold <= 0.4 and py_warm < 0.3 else 'MISSED'} (Python), "
          f"{'met' if warm / cold <= 0.4 and warm < 0.3 else 'MISSED'} (hx-run)")
    print(f"results of the loaded model equal the compiled one's: {same}")
    return 0 if same else 1


if __name__ == "__main__":
    sys.exit(main())
