#!/usr/bin/env python3
"""Contraction kernels against PyTorch eager: one operator per module, the
shapes of the networks users run (ResNet-50, MobileNetV2, ResNeXt-50 32x4d,
GPT-2), hx's cpu time per call next to PyTorch's on the same shapes, with the
same number of threads on both sides.

    /usr/bin/python3 bench/run_kernel_bench.py [--build-dir build] [--threads N]
        [--repeat 20] [--rounds 3] [--only NAME,...]

hx: `hx-run --random-inputs --repeat=R --profile --threads=N`, the kernel's
mean time per run, best of --rounds processes. PyTorch: the same operator on
random float32 tensors under torch.no_grad(), torch.set_num_threads(N) and
OPENBLAS_NUM_THREADS=N (PyTorch's matrix products call OpenBLAS, which
ignores set_num_threads), best of --rounds rounds of R calls after a
warm-up. Needs Debian's python3-torch under /usr/bin/python3; without it the
PyTorch column says so.
"""
import argparse
import os
import re
import subprocess
import sys
import tempfile
import time

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")

# name: (hx operator call, parameter shapes, torch expression over x, w)
CONV = "nn.conv2d(%x, %w, strides=[{s}, {s}], padding=[{p}, {p}, {p}, {p}], groups={g}, " \
       "channels={o}, kernel_size=[{k}, {k}])"


def conv(n, c, h, o, k, s, p, g=1):
    call = CONV.format(s=s, p=p, g=g, o=o, k=k)
    shapes = [(n, c, h, h), (o, c // g, k, k)]
    torch = f"torch.nn.functional.conv2d(x, w, stride={s}, padding={p}, groups={g})"
    flops = 2 * n * o * ((h + 2 * p - k) // s + 1) ** 2 * (c // g) * k * k
    return call, shapes, torch, flops


def dense(m, k, n):
    return ("nn.dense(%x, %w)", [(m, k), (n, k)], "torch.nn.functional.linear(x, w)",
            2 * m * n * k)


def bmm(b, m, k, n):
    return ("nn.batch_matmul(%x, %w)", [(b, m, k), (b, n, k)],
            "torch.bmm(x, w.transpose(1, 2))", 2 * b * m * n * k)


WORKLOADS = {
    "dense-1024": dense(1024, 1024, 1024),
    "dense-1x4096x4096": dense(1, 4096, 4096),
    "dense-gpt2-1600x768x3072": dense(1600, 768, 3072),
    # The same with the weights bound as constants (hx-run --params): packed
    # when the executable is built.
    "dense-1024-constw": dense(1024, 1024, 1024) + (True,),
    "dense-gpt2-constw": dense(1600, 768, 3072) + (True,),
    # GPT-2 at TVM's test shape: 32 sequences of 50 tokens, 12 heads of 64.
    "bmm-gpt2-qk": bmm(384, 50, 64, 50),
    "bmm-gpt2-av": bmm(384, 50, 50, 64),
    "conv-stem-7x7s2": conv(1, 3, 224, 64, 7, 2, 3),
    "conv-3x3-64-56": conv(1, 64, 56, 64, 3, 1, 1),
    "conv-1x1-256to64-56": conv(1, 256, 56, 64, 1, 1, 0),
    "conv-3x3s2-128-28": conv(1, 128, 56, 128, 3, 2, 1),
    "conv-3x3-512-7": conv(1, 512, 7, 512, 3, 1, 1),
    "conv-1x1-512to2048-7": conv(1, 512, 7, 2048, 1, 1, 0),
    "conv-1x1-1024to2048s2-14": conv(1, 1024, 14, 2048, 1, 2, 0),
    "conv-depthwise-144-56": conv(1, 144, 56, 144, 3, 1, 1, g=144),
    "conv-depthwise-384-14": conv(1, 384, 14, 384, 3, 1, 1, g=384),
    "conv-grouped-32x4d-56": conv(1, 128, 56, 128, 3, 1, 1, g=32),
    "conv-grouped-32x8d-28": conv(1, 256, 28, 256, 3, 1, 1, g=32),
    # ResNeXt-50 32x4d's later stages: 16 and 32 channels per group.
    "conv-grouped-32x16-14": conv(1, 512, 14, 512, 3, 1, 1, g=32),
    "conv-grouped-32x32-7": conv(1, 1024, 7, 1024, 3, 1, 1, g=32),
}


def module(call, shapes):
    params = ", ".join(f"%{n}: Tensor[({', '.join(map(str, s))}), float32]"
                       for n, s in zip("xw", shapes))
    return f'#[version = "0.0.5"]\ndef @main({params}) {{\n  {call}\n}}\n'


def hx_seconds(build, text, threads, repeat, rounds, const_weights):
    with tempfile.NamedTemporaryFile("w", suffix=".ir", delete=False) as f:
        f.write(text)
        path = f.name
    best = None
    hx_run = os.path.join(build, "bin", "hx-run")
    inputs = ["--random-inputs"]
    data = tempfile.mkdtemp()
    try:
        if const_weights:
            # The weights bound as constants (--params), the data a run-time
            # input.
            subprocess.run([hx_run, path, "--random-inputs", "--save-inputs", data],
                           check=True, capture_output=True)
            inputs = ["--params", data, "--input", f"x={data}/x.npy"]
        for _ in range(rounds):
            p = subprocess.run([hx_run, path] + inputs +
                               [f"--repeat={repeat}", "--profile", f"--threads={threads}"],
                               capture_output=True, text=True)
            if p.returncode:
                sys.exit(f"hx-run failed:\n{p.stderr}")
            m = re.search(r"^total ([0-9.]+) ms", p.stdout + p.stderr, re.M)
            t = float(m.group(1)) / 1e3
            best = t if best is None else min(best, t)
    finally:
        os.unlink(path)
        for f in os.listdir(data):
            os.unlink(os.path.join(data, f))
        os.rmdir(data)
    return best


TORCH = r"""
import sys, time, torch
torch.set_num_threads(int(sys.argv[1]))
repeat, rounds = int(sys.argv[2]), int(sys.argv[3])
shapes = eval(sys.argv[4]); expr = sys.argv[5]
g = torch.Generator().manual_seed(0)
x, w = (torch.rand(s, generator=g) * 2 - 1 for s in shapes)
f = eval("lambda x, w: " + expr)
with torch.no_grad():
    for _ in range(3):
        f(x, w)
    best = 1e30
    for _ in range(rounds):
        t = time.perf_counter()
        for _ in range(repeat):
            f(x, w)
        best = min(best, (time.perf_counter() - t) / repeat)
print(best)
"""


def torch_seconds(threads, repeat, rounds, shapes, expr):
    env = dict(os.environ, OPENBLAS_NUM_THREADS=str(threads), OMP_NUM_THREADS=str(threads))
    p = subprocess.run(["/usr/bin/python3", "-c", TORCH, str(threads), str(repeat), str(rounds),
                        repr(shapes), expr], capture_output=True, text=True, env=env)
    if p.returncode:
        return None, p.stderr.strip().splitlines()[-1] if p.stderr.strip() else "failed"
    return float(p.stdout), None


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--build-dir", default=os.path.join(ROOT, "build"))
    ap.add_argument("--threads", type=int, default=os.cpu_count())
    ap.add_argument("--repeat", type=int, default=20)
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--only", default="")
    a = ap.parse_args()
    names = [n for n in WORKLOADS if not a.only or n in a.only.split(",")]
    print(f"threads: {a.threads} on both sides; hx mean of {a.repeat} runs, best of "
          f"{a.rounds} processes; PyTorch best of {a.rounds} rounds of {a.repeat}")
    print(f"{'workload':28} {'hx ms':>9} {'GFLOP/s':>8} {'torch ms':>9} {'GFLOP/s':>8} "
          f"{'torch/hx':>8}")
    for n in names:
        call, shapes, expr, flops = WORKLOADS[n][:4]
        const_weights = len(WORKLOADS[n]) > 4
        hx = hx_seconds(a.build_dir, module(call, shapes), a.threads, a.repeat, a.rounds,
                        const_weights)
        ref, why = torch_seconds(a.threads, a.repeat, a.rounds, shapes, expr)
        tcol = f"{ref * 1e3:9.3f} {flops / ref / 1e9:8.1f} {ref / hx:8.2f}" if ref else \
            f"  (PyTorch: {why})"
        print(f"{n:28} {hx * 1e3:9.3f} {flops / hx / 1e9:8.1f} {tcol}")


if __name__ == "__main__":
    main()
