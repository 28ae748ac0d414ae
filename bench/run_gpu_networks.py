#!/usr/bin/env python3
"""Whole networks on a GPU (batch 1; gpt2block: TVM's 32 x 50 tokens): hx
next to PyTorch eager on the same GPU, and next to hx on the host's cores,
in one run.

    run_gpu_networks.py [--hx-run PATH] [--nets resnet,mobilenetv2,...]
                        [--repeat N] [--size full|ci] [--workdir DIR]

Each network is written by utils/gen-network.py (--form hx: the weights are
constants of the module, uploaded to the GPU once) at its real size, its
input drawn by hx-run (--random-inputs=scaled). hx runs it as annotated, the
body on cuda and the head on the cpu, and reports the wall time of one
run() (hx-run --time-runs: best and median of N). The host figure runs the
same module on two cpu instances. PyTorch's figure is torchvision's model of
the same architecture (random weights, eval, no_grad, float32) on cuda:
best and median of N forward passes after 5 warm-up passes, each ended by
torch.cuda.synchronize(). Without torch, torchvision or a CUDA device the
reference column says so. Needs no NumPy: it runs with any python3 beside
the GPU bundle (. /tmp/hx/env.sh puts hx-run on PATH).
"""
import argparse
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
# gen-network.py kind -> torchvision constructor of the same architecture.
NETS = {"resnet": "resnet18", "resnet50": "resnet50", "mobilenetv2": "mobilenet_v2",
        "gpt2block": None}
WALL = re.compile(r"wall time per run: best ([0-9.]+) ms, median ([0-9.]+) ms")


def hx_wall(hx_run, module, flags, repeat):
    cmd = [hx_run, module, "--random-inputs=scaled", f"--repeat={repeat}", "--time-runs", *flags]
    r = subprocess.run(cmd, capture_output=True, text=True)
    m = WALL.search(r.stderr)
    if r.returncode != 0 or not m:
        tail = "\n".join(r.stderr.strip().splitlines()[-3:])
        raise RuntimeError(f"{' '.join(cmd)}: exit {r.returncode}\n{tail}")
    return float(m.group(1)), float(m.group(2))


def torch_wall(name, repeat):
    """Best and median ms of torchvision's `name` on cuda, or why not."""
    try:
        import torch
        import torchvision
    except ImportError as e:
        return None, f"no {e.name}"
    if not torch.cuda.is_available():
        return None, "torch has no CUDA device"
    model = getattr(torchvision.models, name)().eval().cuda()
    x = torch.randn(1, 3, 224, 224, device="cuda")
    times = []
    with torch.no_grad():
        for i in range(5 + repeat):
            start = time.perf_counter()
            model(x)
            torch.cuda.synchronize()
            if i >= 5:
                times.append(1e3 * (time.perf_counter() - start))
    return (min(times), statistics.median(times)), f"torch {torch.__version__}"


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--hx-run", default=shutil.which("hx-run") or os.path.join(ROOT, "build", "bin", "hx-run"))
    ap.add_argument("--nets", default=",".join(NETS))
    ap.add_argument("--repeat", type=int, default=30)
    ap.add_argument("--size", default="full", choices=["full", "ci"])
    ap.add_argument("--workdir")
    a = ap.parse_args()
    work = a.workdir or tempfile.mkdtemp(prefix="hx-gpu-nets.")
    os.makedirs(work, exist_ok=True)
    failed = 0
    lines = []
    for kind in a.nets.split(","):
        if kind not in NETS:
            sys.exit(f"run_gpu_networks: unknown network '{kind}' (known: {', '.join(NETS)})")
        module = os.path.join(work, kind + ".ir")
        t0 = time.time()
        subprocess.run([sys.executable, os.path.join(ROOT, "utils", "gen-network.py"), kind, module,
                        "--form", "hx", "--size", a.size], check=True, stdout=subprocess.DEVNULL)
        print(f"{kind}: written in {time.time() - t0:.1f} s", flush=True)
        try:
            gpu = hx_wall(a.hx_run, module, ["--default-device=cuda"], a.repeat)
            host = hx_wall(a.hx_run, module, ["--device=cpu", "--device=cpu"], max(5, a.repeat // 4))
        except RuntimeError as e:
            print(f"{kind}: FAIL {e}")
            failed += 1
            continue
        ref, why = torch_wall(NETS[kind], a.repeat) if NETS[kind] else (None, "no torchvision model")
        line = f"{kind}: hx on cuda {gpu[0]:.3f} ms (median {gpu[1]:.3f})"
        if ref:
            line += f" vs PyTorch eager on cuda {ref[0]:.3f} ms (median {ref[1]:.3f}, {why}) = {ref[0] / gpu[0]:.2f}x"
        else:
            line += f" vs PyTorch eager: - ({why})"
        line += f"; hx on the host {host[0]:.3f} ms ({host[0] / gpu[0]:.1f}x the GPU's time)"
        print(line, flush=True)
        lines.append(line)
    print()
    for line in lines:
        print(line)
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
