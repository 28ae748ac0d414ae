#!/usr/bin/env python3
"""Exports PyTorch models to ONNX for hx's tests and benches, with inputs and
PyTorch's outputs, all generated here with random weights (nothing is
downloaded).

    export-torch-models.py OUTDIR [--models resnet18,gpt2block] [--opsets 13,17]
                           [--batch N] [--size HW] [--dynamic-batch]

    export-torch-models.py OUTDIR --check HX_RUN [--split-head] [hx-run flags...]

For each model M and opset O it writes OUTDIR/M-opsetO.onnx, the input
OUTDIR/M-opsetO.input.npy and PyTorch's output OUTDIR/M-opsetO.expected.npy.
--check then runs each model with hx-run and compares its output with
PyTorch's (one line per model; exit 1 if any differs). --split-head pins
the body to a cuda virtual device and the model's head (its classifier, or a
transformer block's last layer) to the cpu with --place.
Models: resnet18, resnet50, mobilenet_v2, resnext50 (torchvision, random
weights, eval mode), gpt2block and bertblock (transformer layers written
here: causal self-attention with a GELU MLP, and a post-norm encoder layer
with an attention mask). Needs Debian's /usr/bin/python3 (torch,
torchvision, onnx).
"""
import argparse
import math
import os
import subprocess
import sys

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F


class GPT2Block(nn.Module):
    """Pre-norm causal self-attention and a tanh-GELU MLP, as GPT-2 has."""

    def __init__(self, d=256, heads=4, seq=64):
        super().__init__()
        self.h = heads
        self.ln1 = nn.LayerNorm(d)
        self.qkv = nn.Linear(d, 3 * d)
        self.proj = nn.Linear(d, d)
        self.ln2 = nn.LayerNorm(d)
        self.fc = nn.Linear(d, 4 * d)
        self.out = nn.Linear(4 * d, d)
        self.register_buffer("mask", torch.tril(torch.ones(seq, seq, dtype=torch.bool)).view(1, 1, seq, seq))

    def forward(self, x):
        b, t, d = x.shape
        q, k, v = self.qkv(self.ln1(x)).split(d, dim=2)
        q = q.view(b, t, self.h, d // self.h).transpose(1, 2)
        k = k.view(b, t, self.h, d // self.h).transpose(1, 2)
        v = v.view(b, t, self.h, d // self.h).transpose(1, 2)
        att = (q @ k.transpose(-2, -1)) / math.sqrt(d // self.h)
        att = att.masked_fill(~self.mask[:, :, :t, :t], float("-inf"))
        y = F.softmax(att, dim=-1) @ v
        y = y.transpose(1, 2).contiguous().view(b, t, d)
        x = x + self.proj(y)
        h = self.fc(self.ln2(x))
        h = 0.5 * h * (1.0 + torch.tanh(math.sqrt(2.0 / math.pi) * (h + 0.044715 * torch.pow(h, 3.0))))
        return x + self.out(h)


class BertBlock(nn.Module):
    """Post-norm encoder layer with an additive attention mask and erf-GELU."""

    def __init__(self, d=256, heads=4, seq=64):
        super().__init__()
        self.h = heads
        # The last tokens are padding: an additive mask, as BERT builds from
        # its attention_mask input.
        mask = torch.zeros(1, 1, 1, seq)
        mask[:, :, :, seq - 4:] = -10000.0
        self.register_buffer("mask", mask)
        self.q = nn.Linear(d, d)
        self.k = nn.Linear(d, d)
        self.v = nn.Linear(d, d)
        self.o = nn.Linear(d, d)
        self.ln1 = nn.LayerNorm(d, eps=1e-12)
        self.fc = nn.Linear(d, 4 * d)
        self.out = nn.Linear(4 * d, d)
        self.ln2 = nn.LayerNorm(d, eps=1e-12)

    def heads(self, x):
        b, t, d = x.shape
        return x.view(b, t, self.h, d // self.h).permute(0, 2, 1, 3)

    def forward(self, x):
        b, t, d = x.shape
        q, k, v = self.heads(self.q(x)), self.heads(self.k(x)), self.heads(self.v(x))
        scores = torch.matmul(q, k.transpose(-1, -2)) / math.sqrt(d // self.h)
        p = nn.functional.softmax(scores + self.mask[:, :, :, :t], dim=-1)
        ctx = torch.matmul(p, v).permute(0, 2, 1, 3).reshape(b, t, d)
        x = self.ln1(x + self.o(ctx))
        return self.ln2(x + self.out(F.gelu(self.fc(x))))


def make(name, batch, size):
    import torchvision.models as tv
    if name == "resnet18":
        return tv.resnet18(), torch.randn(batch, 3, size, size)
    if name == "resnet50":
        return tv.resnet50(), torch.randn(batch, 3, size, size)
    if name == "mobilenet_v2":
        return tv.mobilenet_v2(), torch.randn(batch, 3, size, size)
    if name == "resnext50":
        return tv.resnext50_32x4d(), torch.randn(batch, 3, size, size)
    if name == "gpt2block":
        return GPT2Block(), torch.randn(batch, 64, 256)
    if name == "bertblock":
        return BertBlock(), torch.randn(batch, 64, 256)
    sys.exit(f"export-torch-models.py: unknown model '{name}'")


# The head of each model for --split-head: a --place pattern.
HEADS = {"resnet18": "Gemm", "resnet50": "Gemm", "mobilenet_v2": "Gemm", "resnext50": "Gemm",
         "gpt2block": "/out/*", "bertblock": "/ln2/*"}

MODELS = ["resnet18", "resnet50", "mobilenet_v2", "resnext50", "gpt2block", "bertblock"]


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("outdir")
    ap.add_argument("--models", default=",".join(MODELS))
    ap.add_argument("--opsets", default="13,17")
    ap.add_argument("--batch", type=int, default=1)
    ap.add_argument("--size", type=int, default=224, help="image height and width")
    ap.add_argument("--dynamic-batch", action="store_true", help="export dim 0 of the input as dynamic")
    ap.add_argument("--check", metavar="HX_RUN", help="run each model with hx-run and compare")
    ap.add_argument("--split-head", action="store_true", help="head on the cpu, body on cuda")
    ap.add_argument("--tolerance", type=float, default=1e-3,
                    help="largest error, relative to the output's largest magnitude")
    a, hxflags = ap.parse_known_args()
    failed = 0
    os.makedirs(a.outdir, exist_ok=True)
    torch.set_num_threads(1)
    for name in a.models.split(","):
        for opset in [int(o) for o in a.opsets.split(",")]:
            torch.manual_seed(0)
            model, x = make(name, a.batch, a.size)
            model.eval()
            with torch.no_grad():
                # Random batch-norm statistics, so folding them is visible.
                for mod in model.modules():
                    if isinstance(mod, nn.BatchNorm2d):
                        mod.running_mean.uniform_(-0.1, 0.1)
                        mod.running_var.uniform_(0.5, 1.5)
                y = model(x)
            stem = os.path.join(a.outdir, f"{name}-opset{opset}")
            dyn = {"input": {0: "batch"}, "output": {0: "batch"}} if a.dynamic_batch else None
            torch.onnx.export(model, x, stem + ".onnx", opset_version=opset, input_names=["input"],
                              output_names=["output"], dynamic_axes=dyn, do_constant_folding=True)
            np.save(stem + ".input.npy", x.numpy())
            np.save(stem + ".expected.npy", y.numpy())
            if not a.check:
                print(stem + ".onnx")
                continue
            flags = list(hxflags)
            if a.split_head:
                # Every node on cuda, then the head on the cpu: the last
                # matching --place wins.
                flags += ["--place=*=cuda", f"--place={HEADS[name]}=cpu", "--placement-report"]
            r = subprocess.run([a.check, stem + ".onnx", f"--input=input={stem}.input.npy",
                                f"--output-dir={stem}.out", *flags], capture_output=True, text=True)
            label = f"{name}-opset{opset}"
            if r.returncode != 0:
                print(f"{label}: FAIL (hx-run exit {r.returncode})\n{r.stderr}")
                failed += 1
                continue
            got = np.load(os.path.join(stem + ".out", "output_0.npy"))
            want = y.numpy()
            err = np.abs(got.astype(np.float64) - want).max() / max(1e-6, np.abs(want).max())
            ok = got.shape == want.shape and err <= a.tolerance
            failed += not ok
            where = ""
            if a.split_head:
                cpu = sum(" on cpu" in l and " at " in l for l in (r.stdout + r.stderr).splitlines())
                cuda = sum(" on cuda" in l and " at " in l for l in (r.stdout + r.stderr).splitlines())
                copies = sum(l.strip().startswith("copy ") for l in (r.stdout + r.stderr).splitlines())
                where = f", {cpu} calls on cpu, {cuda} on cuda, {copies} copies"
            print(f"{label}: {'ok' if ok else 'FAIL'} (error {err:.1e} against PyTorch{where})")
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
