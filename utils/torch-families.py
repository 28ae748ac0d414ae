#!/usr/bin/env python3
"""One model of each family PyTorch users bring, exported to ONNX by
torch.onnx.export and run by hx, against PyTorch's own outputs:

    torch-families.py OUTDIR --check HX_RUN [--full] [--only a,b] [--opset 17]
    torch-families.py OUTDIR --bench HX_RUN [--full] [--threads N] [--repeat R] [--ort DIR] [--rounds N] [--python]

The families: alexnet, vgg, resnet, wide_resnet, squeezenet, densenet,
inception_v3, googlenet, shufflenet_v2, mobilenet_v2, mobilenet_v3, mnasnet,
efficientnet, efficientnet_v2, regnet, convnext, vit, swin, the segmentation
models fcn, deeplabv3 and lraspp, nn.LSTM, nn.GRU, nn.TransformerEncoder, and
BERT- and GPT-2-style blocks. By default each is built small (few layers,
narrow, a small image) so that the suite stays quick; --full builds
torchvision's own configuration at 224x224. Weights are random (seeded),
nothing is downloaded.

--check prints one line per model: `NAME: ok (error E against PyTorch)`,
where E is the largest |hx - PyTorch| over the output's largest |PyTorch|
and must be at most 1e-4; `NAME: refused: REASON` when the exporter or hx's
importer refuses it; `NAME: FAIL ...` otherwise (exit 1 on a FAIL).
--bench prints each model's best time on hx (hx-run --repeat) beside
PyTorch eager's, and with --ort DIR ONNX Runtime's (bench/ort/setup.sh
installs it; bench/ort/ort-time.js times it), on the same number of
threads, and the geomeans of the ratios; --rounds N times hx and ONNX
Runtime in turn N times and keeps the best of each (a shared machine's busy
spells then fall on both sides); --python also times each model through
hx's Python API (the package built beside HX_RUN, in build/python:
hx.compile(...).run on the NumPy input), its per-run cost beside hx-run's.
Needs Debian's /usr/bin/python3 (torch, torchvision, onnx).
"""
import argparse
import math
import os
import re
import subprocess
import sys
import time

import numpy as np
import torch
import torch.nn as nn
import torchvision.models as tvm
import torchvision.models.segmentation as seg

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))


def _blocks():
    """The GPT-2- and BERT-style blocks of export-torch-models.py."""
    import importlib.util
    spec = importlib.util.spec_from_file_location(
        "etm", os.path.join(os.path.dirname(os.path.abspath(__file__)), "export-torch-models.py"))
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


class Recurrent(nn.Module):
    """nn.LSTM / nn.GRU over a batch-first sequence, then a linear head."""

    def __init__(self, kind, inp, hidden, layers, bidirectional):
        super().__init__()
        self.rnn = kind(inp, hidden, num_layers=layers, batch_first=True, bidirectional=bidirectional)
        self.head = nn.Linear(hidden * (2 if bidirectional else 1), 4)

    def forward(self, x):
        y, _ = self.rnn(x)
        return self.head(y)


class Segmentation(nn.Module):
    """torchvision's segmentation models return a dict: its "out"."""

    def __init__(self, model):
        super().__init__()
        self.model = model

    def forward(self, x):
        return self.model(x)["out"]


class Encoder(nn.Module):
    def __init__(self, d, heads, ff, layers):
        super().__init__()
        layer = nn.TransformerEncoderLayer(d, heads, ff, dropout=0.0, batch_first=True)
        self.enc = nn.TransformerEncoder(layer, layers)

    def forward(self, x):
        return self.enc(x)


def image(size):
    return (1, 3, size, size)


def families(full):
    """name -> (constructor, input shape). Small unless `full`."""
    from torchvision.models import resnet as R
    from torchvision.models.densenet import DenseNet
    from torchvision.models.vgg import VGG, make_layers
    from torchvision.models.vision_transformer import VisionTransformer
    from torchvision.models.swin_transformer import SwinTransformer

    def vgg_small():
        m = VGG(make_layers([8, "M", 16, "M", 32, "M"], batch_norm=True), num_classes=10)
        m.avgpool = nn.AdaptiveAvgPool2d((2, 2))
        m.classifier = nn.Sequential(nn.Linear(32 * 4, 32), nn.ReLU(), nn.Linear(32, 10))
        return m

    def alexnet_small():
        # AlexNet's features; its 6x6 pooling and 4096-wide classifier would
        # need a 224x224 image and 230 MB of weights.
        m = tvm.alexnet(num_classes=10)
        m.avgpool = nn.AdaptiveAvgPool2d((1, 1))
        m.classifier = nn.Sequential(nn.Dropout(), nn.Linear(256, 10))
        return m

    blocks = _blocks()
    if full:
        s = 224
        return {
            "alexnet": (lambda: tvm.alexnet(), image(s)),
            "vgg": (lambda: tvm.vgg11_bn(), image(s)),
            "resnet": (lambda: tvm.resnet50(), image(s)),
            "wide_resnet": (lambda: tvm.wide_resnet50_2(), image(s)),
            "squeezenet": (lambda: tvm.squeezenet1_1(), image(s)),
            "densenet": (lambda: tvm.densenet121(), image(s)),
            "inception_v3": (lambda: tvm.inception_v3(aux_logits=False, init_weights=True), image(299)),
            "googlenet": (lambda: tvm.googlenet(aux_logits=False, init_weights=True), image(s)),
            "shufflenet_v2": (lambda: tvm.shufflenet_v2_x1_0(), image(s)),
            "mobilenet_v2": (lambda: tvm.mobilenet_v2(), image(s)),
            "mobilenet_v3": (lambda: tvm.mobilenet_v3_large(), image(s)),
            "mnasnet": (lambda: tvm.mnasnet1_0(), image(s)),
            "efficientnet": (lambda: tvm.efficientnet_b0(), image(s)),
            "efficientnet_v2": (lambda: tvm.efficientnet_v2_s(), image(s)),
            "regnet": (lambda: tvm.regnet_y_400mf(), image(s)),
            "convnext": (lambda: tvm.convnext_tiny(), image(s)),
            "vit": (lambda: tvm.vit_b_16(), image(s)),
            "swin": (lambda: tvm.swin_t(), image(s)),
            "fcn": (lambda: Segmentation(seg.fcn_resnet50(weights_backbone=None, aux_loss=False)), image(s)),
            "deeplabv3": (lambda: Segmentation(seg.deeplabv3_mobilenet_v3_large(weights_backbone=None, aux_loss=False)), image(s)),
            "lraspp": (lambda: Segmentation(seg.lraspp_mobilenet_v3_large(weights_backbone=None)), image(s)),
            "lstm": (lambda: Recurrent(nn.LSTM, 64, 128, 2, True), (1, 32, 64)),
            "gru": (lambda: Recurrent(nn.GRU, 64, 128, 2, True), (1, 32, 64)),
            "transformer_encoder": (lambda: Encoder(256, 4, 1024, 4), (1, 64, 256)),
            "bertblock": (lambda: blocks.make("bertblock", 1, 64)[0], (1, 64, 256)),
            "gpt2block": (lambda: blocks.make("gpt2block", 1, 64)[0], (1, 64, 256)),
        }
    s = 64
    return {
        "alexnet": (alexnet_small, image(s)),
        "vgg": (vgg_small, image(32)),
        "resnet": (lambda: R.ResNet(R.BasicBlock, [1, 1, 1, 1], num_classes=10), image(32)),
        "wide_resnet": (lambda: R.ResNet(R.Bottleneck, [1, 1, 1, 1], width_per_group=128, num_classes=10), image(32)),
        "squeezenet": (lambda: tvm.squeezenet1_1(num_classes=10), image(s)),
        "densenet": (lambda: DenseNet(growth_rate=8, block_config=(2, 2, 2, 2), num_init_features=16, num_classes=10), image(s)),
        "inception_v3": (lambda: tvm.inception_v3(num_classes=10, aux_logits=False, init_weights=True), image(75)),
        "googlenet": (lambda: tvm.googlenet(num_classes=10, aux_logits=False, init_weights=True), image(s)),
        "shufflenet_v2": (lambda: tvm.shufflenet_v2_x0_5(num_classes=10), image(s)),
        "mobilenet_v2": (lambda: tvm.mobilenet_v2(num_classes=10, width_mult=0.25), image(s)),
        "mobilenet_v3": (lambda: tvm.mobilenet_v3_small(num_classes=10, width_mult=0.25), image(s)),
        "mnasnet": (lambda: tvm.mnasnet0_5(num_classes=10), image(s)),
        "efficientnet": (lambda: tvm.efficientnet_b0(num_classes=10, width_mult=0.25), image(s)),
        "efficientnet_v2": (lambda: tvm.efficientnet_v2_s(num_classes=10), image(32)),
        "regnet": (lambda: tvm.regnet_y_400mf(num_classes=10), image(s)),
        "convnext": (lambda: tvm.convnext.ConvNeXt(
            [tvm.convnext.CNBlockConfig(16, 32, 1), tvm.convnext.CNBlockConfig(32, None, 1)], num_classes=10), image(32)),
        "vit": (lambda: VisionTransformer(image_size=32, patch_size=8, num_layers=2, num_heads=2,
                                          hidden_dim=32, mlp_dim=64, num_classes=10), image(32)),
        "swin": (lambda: SwinTransformer(patch_size=[4, 4], embed_dim=16, depths=[1, 1], num_heads=[1, 2],
                                         window_size=[4, 4], num_classes=10), image(32)),
        "fcn": (lambda: Segmentation(seg.fcn_resnet50(weights_backbone=None, num_classes=3, aux_loss=False)), image(32)),
        "deeplabv3": (lambda: Segmentation(seg.deeplabv3_mobilenet_v3_large(weights_backbone=None, num_classes=3, aux_loss=False)), image(32)),
        "lraspp": (lambda: Segmentation(seg.lraspp_mobilenet_v3_large(weights_backbone=None, num_classes=3)), image(32)),
        "lstm": (lambda: Recurrent(nn.LSTM, 8, 16, 2, True), (1, 5, 8)),
        "gru": (lambda: Recurrent(nn.GRU, 8, 16, 2, True), (1, 5, 8)),
        "transformer_encoder": (lambda: Encoder(32, 2, 64, 2), (1, 8, 32)),
        "bertblock": (lambda: blocks.BertBlock(d=32, heads=2, seq=8), (1, 8, 32)),
        "gpt2block": (lambda: blocks.GPT2Block(d=32, heads=2, seq=8), (1, 8, 32)),
    }


def export(name, make, shape, out, opset):
    """Writes NAME.onnx, NAME.input.npy and NAME.expected.npy; None, or the
    exporter's refusal."""
    torch.manual_seed(0)
    model = make().eval()
    # Batch norms with running statistics away from 0 and 1, so that a
    # dropped normalization shows.
    for m in model.modules():
        if isinstance(m, nn.BatchNorm2d):
            m.running_mean.uniform_(-0.1, 0.1)
            m.running_var.uniform_(0.5, 1.5)
    x = torch.randn(*shape)
    with torch.no_grad():
        want = model(x)
    stem = os.path.join(out, name)
    try:
        torch.onnx.export(model, x, stem + ".onnx", opset_version=opset, input_names=["input"],
                          output_names=["output"], do_constant_folding=True)
    except Exception as e:
        return "the exporter failed: " + (str(e).strip().splitlines() or [type(e).__name__])[0][:200]
    np.save(stem + ".input.npy", x.numpy())
    np.save(stem + ".expected.npy", want.numpy())
    return None, model, x


def first_error(text):
    for line in text.splitlines():
        m = re.search(r"error: (.*)", line)
        if m:
            return re.sub(r"\S*\.onnx:?\s*", "", m.group(1)).split("; hx imports ")[0][:240]
    return text.strip().splitlines()[-1][:240] if text.strip() else "(no message)"


def check(a, names, table):
    failed = False
    for name in names:
        make, shape = table[name]
        r = export(name, make, shape, a.outdir, a.opset)
        if isinstance(r, str):
            print(f"{name}: refused: {r}", flush=True)
            continue
        stem = os.path.join(a.outdir, name)
        p = subprocess.run([a.hx_run, stem + ".onnx", f"--input=input={stem}.input.npy",
                            f"--output-dir={stem}.hx"] + a.hxflags,
                           stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        if p.returncode == 1 and "error:" in p.stdout:
            print(f"{name}: refused: {first_error(p.stdout)}", flush=True)
            continue
        if p.returncode != 0:
            print(f"{name}: FAIL: hx-run exit {p.returncode}: {p.stdout.strip()[-300:]}", flush=True)
            failed = True
            continue
        got = np.load(os.path.join(stem + ".hx", "output_0.npy"))
        want = np.load(stem + ".expected.npy")
        err = (float(np.abs(got.astype(np.float64) - want).max() / max(np.abs(want).max(), 1e-30))
               if got.shape == want.shape else float("inf"))
        if err <= a.tolerance:
            print(f"{name}: ok (error {err:.2e} against PyTorch)", flush=True)
        else:
            print(f"{name}: FAIL: error {err:.2e} against PyTorch (shape {got.shape} vs {want.shape})", flush=True)
            failed = True
    return 1 if failed else 0


def ort_time(a, stem):
    """ONNX Runtime's best time in ms (bench/ort/ort-time.js), or the reason it has none."""
    js = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "bench", "ort", "ort-time.js")
    p = subprocess.run(["node", js, a.ort, stem + ".onnx", stem + ".input.npy", str(a.threads), str(a.repeat)],
                       stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    m = re.search(r"best ([0-9.]+) ms", p.stdout)
    return float(m.group(1)) if p.returncode == 0 and m else (p.stderr.strip() or "failed")[-160:]


def python_module(a, stem):
    """The model compiled through hx's Python API (the package in build/python
    beside HX_RUN), on one cpu device of --threads threads."""
    build = os.path.dirname(os.path.dirname(os.path.abspath(a.hx_run)))
    sys.path.insert(0, os.path.join(build, "python"))
    import hx
    return hx.compile(hx.load(stem + ".onnx"), devices=["cpu"], threads=a.threads)


def python_time(a, compiled, stem):
    """The best of --repeat runs through the Python API, in ms, after one."""
    x = np.load(stem + ".input.npy")
    compiled.run(x)
    best = math.inf
    for _ in range(a.repeat):
        t = time.perf_counter()
        compiled.run(x)
        best = min(best, time.perf_counter() - t)
    return best * 1e3


def geomean(xs):
    return math.exp(sum(math.log(x) for x in xs) / len(xs)) if xs else float("nan")


def bench(a, names, table):
    torch.set_num_threads(a.threads)
    os.environ["OPENBLAS_NUM_THREADS"] = str(a.threads)
    ort_cols = f" {'ORT ms':>10} {'ORT/hx':>7}" if a.ort else ""
    py_cols = f" {'hx.run ms':>10}" if a.python else ""
    rounds = f" in each of {a.rounds} rounds" if a.rounds > 1 else ""
    print(f"{'model':22} {'hx ms':>10}{py_cols}{ort_cols} {'PyTorch ms':>11} {'PyTorch/hx':>10}   "
          f"({a.threads} threads each side, best of {a.repeat}{rounds}; >1: hx faster)")
    vs_torch, vs_ort = [], []
    for name in names:
        make, shape = table[name]
        r = export(name, make, shape, a.outdir, a.opset)
        if isinstance(r, str):
            print(f"{name:22} refused: {r}")
            continue
        _, model, x = r
        with torch.no_grad():
            model(x)
            best = math.inf
            for _ in range(a.repeat):
                t = time.perf_counter()
                model(x)
                best = min(best, time.perf_counter() - t)
        stem = os.path.join(a.outdir, name)
        # --rounds: hx and ONNX Runtime in turn, the best of each over the
        # rounds, so that both sides meet the same quiet and busy spells of
        # a shared machine.
        hx_ms, o, py_ms, refused = math.inf, math.inf, math.inf, None
        compiled = python_module(a, stem) if a.python else None
        for _ in range(a.rounds):
            p = subprocess.run([a.hx_run, stem + ".onnx", f"--input=input={stem}.input.npy",
                                f"--threads={a.threads}", f"--repeat={a.repeat}", "--time-runs"],
                               stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
            m = re.search(r"best ([0-9.]+) ms", p.stderr)
            if p.returncode != 0 or not m:
                refused = first_error(p.stderr)
                break
            hx_ms = min(hx_ms, float(m.group(1)))
            if a.ort:
                t = ort_time(a, stem)
                o = min(o, t) if isinstance(t, float) and isinstance(o, float) else t
            if compiled:
                py_ms = min(py_ms, python_time(a, compiled, stem))
        if refused:
            print(f"{name:22} refused: {refused}")
            continue
        vs_torch.append(best * 1e3 / hx_ms)
        ort = ""
        if a.ort:
            if isinstance(o, float):
                vs_ort.append(o / hx_ms)
                ort = f" {o:10.2f} {o / hx_ms:6.2f}x"
            else:
                ort = f" {'-':>10} {'-':>7}"
                print(f"{name}: ONNX Runtime failed: {o}", file=sys.stderr)
        py = f" {py_ms:10.2f}" if a.python else ""
        print(f"{name:22} {hx_ms:10.2f}{py}{ort} {best * 1e3:11.2f} {best * 1e3 / hx_ms:9.2f}x", flush=True)
    ort = f" {'':10} {geomean(vs_ort):6.2f}x" if a.ort else ""
    print(f"{'geomean':22} {'':10}{ort} {'':11} {geomean(vs_torch):9.2f}x")
    return 0


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("outdir")
    mode = ap.add_mutually_exclusive_group(required=True)
    mode.add_argument("--check", dest="hx_run_check", metavar="HX_RUN")
    mode.add_argument("--bench", dest="hx_run_bench", metavar="HX_RUN")
    ap.add_argument("--full", action="store_true", help="torchvision's own sizes at 224x224")
    ap.add_argument("--only", help="comma-separated family names")
    ap.add_argument("--opset", type=int, default=17)
    ap.add_argument("--tolerance", type=float, default=1e-4)
    ap.add_argument("--threads", type=int, default=os.cpu_count() or 1)
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--rounds", type=int, default=1,
                    help="--bench: time hx and ONNX Runtime in turn this many times, the best of each")
    ap.add_argument("--python", action="store_true",
                    help="--bench: also time each model through hx's Python API (build/python)")
    ap.add_argument("--ort", default=os.environ.get("HX_ORT_DIR"),
                    help="--bench: also time ONNX Runtime, installed in this directory by "
                         "bench/ort/setup.sh (default: $HX_ORT_DIR)")
    a, a.hxflags = ap.parse_known_args()
    os.makedirs(a.outdir, exist_ok=True)
    table = families(a.full)
    names = a.only.split(",") if a.only else list(table)
    for n in names:
        if n not in table:
            sys.exit(f"unknown family '{n}' (one of {', '.join(table)})")
    if a.hx_run_check:
        a.hx_run = a.hx_run_check
        return check(a, names, table)
    a.hx_run = a.hx_run_bench
    return bench(a, names, table)


if __name__ == "__main__":
    sys.exit(main())
