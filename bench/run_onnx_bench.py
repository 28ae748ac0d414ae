#!/usr/bin/env python3
"""Models from PyTorch through ONNX into hx: torchvision's ResNet-18,
ResNet-50, MobileNetV2 and ResNeXt-50 32x4d at batch 1, 224x224, and the
GPT-2-style and BERT-style blocks of utils/export-torch-models.py (64 tokens,
width 256), all with random weights, exported at opset 13 by Debian's
PyTorch. For each it prints hx's import + load + compile time, hx's run
(mean of --repeat, fused, through hx-run), PyTorch eager's run on the same
model and input in the same run (median of --repeat) with hx's speed-up over
it, and hx's error against PyTorch's output.

    /usr/bin/python3 bench/run_onnx_bench.py [--build-dir build] [--repeat 5]
                                             [--only resnet18,...] [--threads N]

Both sides use the same number of threads (--threads, default: every cpu):
torch.set_num_threads and OPENBLAS_NUM_THREADS for PyTorch, hx-run
--threads for hx.
"""
import argparse
import importlib.util
import os
import re
import statistics
import subprocess
import sys
import time

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")


def load_exporter():
    spec = importlib.util.spec_from_file_location(
        "export_torch_models", os.path.join(ROOT, "utils", "export-torch-models.py"))
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--build-dir", default=os.path.join(ROOT, "build"))
    p.add_argument("--repeat", type=int, default=5)
    p.add_argument("--only")
    p.add_argument("--threads", type=int, default=os.cpu_count())
    a = p.parse_args()
    os.environ["OPENBLAS_NUM_THREADS"] = str(a.threads)
    import numpy as np
    import torch
    torch.set_num_threads(a.threads)
    ex = load_exporter()
    out = os.path.join(ROOT, "bench", "out", "onnx")
    os.makedirs(out, exist_ok=True)
    model_name = next((l.split(":", 1)[1].strip() for l in open("/proc/cpuinfo")
                       if l.startswith("model name")), "?")
    print(f"machine: {model_name}, {os.cpu_count()} cpus; {a.threads} threads on both sides; "
          f"PyTorch {torch.__version__}")
    for name in (a.only.split(",") if a.only else ex.MODELS):
        torch.manual_seed(0)
        model, x = ex.make(name, 1, 224)
        model.eval()
        stem = os.path.join(out, name)
        with torch.no_grad():
            torch.onnx.export(model, x, stem + ".onnx", opset_version=13, input_names=["input"],
                              output_names=["output"])
            np.save(stem + ".input.npy", x.numpy())
            ref = model(x)
            times = []
            for _ in range(a.repeat):
                s = time.perf_counter()
                model(x)
                times.append(time.perf_counter() - s)
        cmd = [os.path.join(a.build_dir, "bin", "hx-run"), stem + ".onnx",
               f"--input=input={stem}.input.npy", f"--threads={a.threads}", "--time-passes",
               f"--repeat={a.repeat}", "--output-dir", stem + ".out"]
        s = time.perf_counter()
        r = subprocess.run(cmd, capture_output=True, text=True)
        whole = time.perf_counter() - s
        if r.returncode:
            print(f"{name}: hx-run failed:\n{r.stderr}")
            continue
        t = {}
        for line in r.stderr.splitlines():
            m = re.match(r"\s*([0-9.]+) \(\s*[0-9.]+%\)\s+(.*)$", line)
            if m:
                t[m.group(2).strip()] = t.get(m.group(2).strip(), 0.0) + float(m.group(1))
        run = t.get("(run)", 0) / a.repeat
        load = whole - t.get("(run)", 0)
        got = np.load(os.path.join(stem + ".out", "output_0.npy"))
        want = ref.numpy()
        err = float(np.max(np.abs(got - want)) / max(1e-6, float(np.max(np.abs(want)))))
        ref_t = statistics.median(times)
        print(f"{name}: hx import + load + compile {load:.2f} s, run {run * 1e3:.1f} ms; "
              f"PyTorch eager {ref_t * 1e3:.1f} ms: hx {ref_t / run:.2f}x faster; "
              f"error {err:.1e} against PyTorch", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
