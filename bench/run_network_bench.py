#!/usr/bin/env python3
"""Real-network benchmark: the full-size networks of utils/gen-network.py
(ResNet-18-style, ResNet-50, ResNeXt-50 32x4d, MobileNetV2 at batch 1, 224x224,
a GPT-style block, GPT-2 small and one of its blocks, a BERT-base layer and a
10-layer MLP) through hx on the CPU, next to PyTorch eager running
the same network on the same weights (read from the same .npy files) in the
same run — a second, independent oracle.

For each network it prints parse, infer-type + plan-devices, fuse-ops,
compile and one run (mean of --repeat) for hx, the same run with --no-fuse,
PyTorch's time per run (median of --repeat) with hx's speed-up over it, and
the max relative error of hx's output against PyTorch's.

    python3 bench/run_network_bench.py [--build-dir build] [--repeat 5] [--only KIND]

KIND: resnet (ResNet-18-style), resnet50, resnext50 (32x4d), mobilenetv2,
gpt, gpt2 (GPT-2 small at TVM's test shape, 274 GFLOP), gpt2block (one of
its blocks), bert (a BERT-base layer, 128 tokens), mlp (10 layers of width
1024, batch 64); all by default.

Needs Debian's python3-torch (and python3-numpy); without it the PyTorch
column says so. Every virtual device is mapped to one cpu instance, so
this measures the CPU backend (copies between the two virtual devices remain
as steps).
"""
import argparse
import os
import re
import statistics
import subprocess
import sys
import time

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")
KINDS = ["resnet", "resnet50", "resnext50", "mobilenetv2", "gpt", "gpt2", "gpt2block", "bert",
         "mlp"]


def hx_times(build, ir, data, repeat, outdir, extra=()):
    # The weights are bound as constants (--params); the image or the tokens
    # stay a run-time input, as in deployment (bound too, the whole network
    # would fold to a constant at load).
    inputs = [f"--input={n}={os.path.join(data, n)}.npy" for n in ("data", "tokens")
              if os.path.exists(os.path.join(data, n + ".npy"))]
    cmd = [os.path.join(build, "bin", "hx-run"), ir, "--params", data] + inputs + [
           "--device=cpu:0", "--device=cpu:0", "--time-passes", f"--repeat={repeat}",
           "--output-dir", outdir] + list(extra)
    p = subprocess.run(cmd, capture_output=True, text=True)
    if p.returncode:
        sys.exit(f"hx-run failed:\n{p.stderr}")
    t = {}
    for line in p.stderr.splitlines():
        m = re.match(r"\s*([0-9.]+) \(\s*[0-9.]+%\)\s+(.*)$", line)
        if m:
            name = m.group(2).strip()
            t[name] = t.get(name, 0.0) + float(m.group(1))
    return t


def torch_net(kind, data):
    import numpy as np
    import torch
    import torch.nn.functional as F

    # Every .npy is read once, before anything is timed.
    weights = {f[:-4]: torch.from_numpy(np.load(os.path.join(data, f)))
               for f in os.listdir(data) if f.endswith(".npy")}

    def w(name):
        return weights[name]

    def conv_bn(x, name, stride, relu="relu"):
        weight = w(name + "_weight")
        k = weight.shape[-1]
        groups = x.shape[1] // weight.shape[1]
        x = F.conv2d(x, weight, stride=stride, padding=k // 2, groups=groups)
        x = F.batch_norm(x, w(name + "_mean"), w(name + "_var"), w(name + "_gamma"),
                         w(name + "_beta"), training=False, eps=1e-5)
        if relu == "relu":
            x = F.relu(x)
        elif relu == "relu6":
            x = torch.clamp(x, 0, 6)
        return x

    def classifier(x):
        x = torch.flatten(F.adaptive_avg_pool2d(x, 1), 1)
        return F.softmax(F.linear(x, w("fc_weight"), w("fc_bias")), dim=-1)

    if kind == "resnet":
        def run():
            x = conv_bn(w("data"), "stem", 2)
            x = F.max_pool2d(x, 3, 2, 1)
            stage_in = x.shape[1]
            for s in range(4):
                for b in range(2):
                    name = f"layer{s + 1}_{b}"
                    stride = 2 if s > 0 and b == 0 else 1
                    y = conv_bn(x, name + "_conv1", stride)
                    y = conv_bn(y, name + "_conv2", 1, relu=None)
                    if name + "_down_weight" in weights:
                        x = conv_bn(x, name + "_down", stride, relu=None)
                    x = F.relu(y + x)
            return classifier(x)
        return run

    if kind in ("resnet50", "resnext50"):
        def run():
            x = conv_bn(w("data"), "stem", 2)
            x = F.max_pool2d(x, 3, 2, 1)
            s = 1
            while f"layer{s}_0_conv1_weight" in weights:
                b = 0
                while f"layer{s}_{b}_conv1_weight" in weights:
                    name = f"layer{s}_{b}"
                    stride = 2 if s > 1 and b == 0 else 1
                    y = conv_bn(x, name + "_conv1", 1)
                    y = conv_bn(y, name + "_conv2", stride)
                    y = conv_bn(y, name + "_conv3", 1, relu=None)
                    if name + "_down_weight" in weights:
                        x = conv_bn(x, name + "_down", stride, relu=None)
                    x = F.relu(y + x)
                    b += 1
                s += 1
            return classifier(x)
        return run

    if kind == "mobilenetv2":
        # The stride of each block, as gen-network.py's settings give it.
        strides = []
        for _, _, n, first in [(1, 16, 1, 1), (6, 24, 2, 2), (6, 32, 3, 2), (6, 64, 4, 2),
                               (6, 96, 3, 1), (6, 160, 3, 2), (6, 320, 1, 1)]:
            strides += [first] + [1] * (n - 1)

        def run():
            x = conv_bn(w("data"), "stem", 2, relu="relu6")
            for i, stride in enumerate(strides):
                name = f"block{i}"
                y = x
                if name + "_expand_weight" in weights:
                    y = conv_bn(y, name + "_expand", 1, relu="relu6")
                y = conv_bn(y, name + "_dw", stride, relu="relu6")
                y = conv_bn(y, name + "_project", 1, relu=None)
                x = y + x if stride == 1 and y.shape == x.shape else y
            return classifier(conv_bn(x, "last", 1, relu="relu6"))
        return run

    def layer_norm(x, name):
        g = w(name + "_gamma")
        return F.layer_norm(x, g.shape, g, w(name + "_beta"), eps=1e-5)

    def dense(x, name):
        return F.linear(x, w(name + "_weight"), w(name + "_bias"))

    if kind == "mlp":
        def run():
            x = w("data")
            l = 0
            while f"fc{l}_weight" in weights:
                x = dense(x, f"fc{l}")
                l += 1
                if f"fc{l}_weight" in weights:
                    x = F.relu(x)
            return x
        return run

    if kind == "bert":
        def run():
            x = w("data")
            t, d = x.shape
            heads = {768: 12}.get(d, 2)
            hd = d // heads
            qkv = dense(x, "attn")
            q, k, v = (qkv[:, i * d:(i + 1) * d].reshape(t, heads, hd).transpose(0, 1)
                       for i in range(3))
            att = torch.softmax(q @ k.transpose(1, 2) * (1 / hd ** 0.5), -1)
            o = (att @ v).transpose(0, 1).reshape(t, d)
            x = layer_norm(x + dense(o, "proj"), "ln1")
            h = dense(x, "fc")
            h = h * 0.5 * (1 + torch.erf(h * 0.70710678))
            return layer_norm(x + dense(h, "out"), "ln2")
        return run

    def run():
        tokens = w("tokens").long()
        seqs, t = tokens.shape
        wte = w("wte")
        d = wte.shape[1]
        x = (wte[tokens] + w("wpe")[:t]).reshape(seqs * t, d)
        mask = w("causal_mask")
        # As gen-network.py: gpt full 4 heads, gpt2 full 12, ci sizes 2.
        heads = {256: 4, 768: 12}.get(d, 2)
        hd = d // heads
        layer = 0
        while f"h{layer}_ln1_gamma" in weights:
            h = layer_norm(x, f"h{layer}_ln1")
            qkv = dense(h, f"h{layer}_attn")
            q, k, v = (qkv[:, i * d:(i + 1) * d].reshape(seqs, t, heads, hd).transpose(1, 2)
                       .reshape(seqs * heads, t, hd) for i in range(3))
            att = torch.softmax(q @ k.transpose(1, 2) * (1 / hd ** 0.5) + mask, -1)
            o = (att @ v).reshape(seqs, heads, t, hd).transpose(1, 2).reshape(seqs * t, d)
            x = x + dense(o, f"h{layer}_proj")
            h = dense(layer_norm(x, f"h{layer}_ln2"), f"h{layer}_fc")
            h = h * 0.5 * (1 + torch.erf(h * 0.70710678))
            x = x + dense(h, f"h{layer}_out")
            layer += 1
        x = layer_norm(x, "ln_f")
        return x if kind in ("gpt2", "gpt2block") else F.linear(x, wte)
    return run


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--build-dir", default=os.path.join(ROOT, "build"))
    p.add_argument("--repeat", type=int, default=5)
    p.add_argument("--only", choices=KINDS)
    a = p.parse_args()
    out = os.path.join(ROOT, "bench", "out", "networks")
    os.makedirs(out, exist_ok=True)
    model = next((l.split(":", 1)[1].strip() for l in open("/proc/cpuinfo")
                  if l.startswith("model name")), "?")
    print(f"machine: {model}, {os.cpu_count()} cpus")
    try:
        import numpy as np
        import torch
        torch.set_num_threads(os.cpu_count())
        have_torch = True
    except ImportError:
        have_torch = False
        print("PyTorch: not installed (apt-get install python3-torch): no reference column")
    for kind in KINDS:
        if a.only and kind != a.only:
            continue
        ir, data = os.path.join(out, kind + ".ir"), os.path.join(out, kind)
        if not os.path.exists(ir):
            subprocess.run([sys.executable, os.path.join(ROOT, "utils", "gen-network.py"), kind,
                            ir, "--form", "params", "--size", "full", "--data-dir", data],
                           check=True)
        t = hx_times(a.build_dir, ir, data, a.repeat, os.path.join(out, kind + "-hx"))
        plan = t.get("infer-type", 0) + t.get("plan-devices", 0)
        run = t.get("(run)", 0) / a.repeat
        u = hx_times(a.build_dir, ir, data, a.repeat, os.path.join(out, kind + "-hx-unfused"),
                     ["--no-fuse"])
        unfused = u.get("(run)", 0) / a.repeat
        print(f"{kind}: hx parse {t.get('(parse)', 0) * 1e3:.0f} ms, infer-type + plan-devices "
              f"{plan * 1e3:.1f} ms, fuse-ops {t.get('fuse-ops', 0) * 1e3:.1f} ms, "
              f"compile {t.get('(compile)', 0):.2f} s, "
              f"run {run * 1e3:.1f} ms (mean of {a.repeat}); --no-fuse run {unfused * 1e3:.1f} ms: "
              f"fused {unfused / run:.2f}x faster", flush=True)
        if not have_torch:
            continue
        net = torch_net(kind, data)
        with torch.no_grad():
            ref = net()
            times = []
            for _ in range(a.repeat):
                s = time.perf_counter()
                net()
                times.append(time.perf_counter() - s)
        got = np.load(os.path.join(out, kind + "-hx", "output_0.npy"))
        want = ref.numpy()
        # As hx-run --check measures: |a - b| / max(1, |b|).
        err = float(np.max(np.abs(got - want) / np.maximum(np.abs(want), 1.0)))
        aerr = float(np.max(np.abs(got - want)))
        ref_t = statistics.median(times)
        print(f"{kind}: PyTorch {torch.__version__} eager run {ref_t * 1e3:.1f} ms "
              f"(median of {a.repeat}): hx {ref_t / run:.2f}x faster; hx vs PyTorch: max abs "
              f"error {aerr:.2e}, max |a-b|/max(1,|b|) {err:.2e}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
