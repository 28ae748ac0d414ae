#!/usr/bin/env python3
"""torchvision's detectors (random weights) exported to ONNX and run by hx,
their detections compared with PyTorch's, or timed beside PyTorch eager:

    torch-detectors.py OUTDIR --check HX_RUN [--only a,b] [hx-run flags...]
    torch-detectors.py OUTDIR --bench HX_RUN [--only a,b] [--threads N] [--repeat R]
                       [--also "FLAGS"]... [--torch-device cuda]
    torch-detectors.py OUTDIR --conditioning [--only a,b]

Each model takes one 3x320x320 image and is exported at opset 13. Its
weights are drawn so that scores spread out: torchvision zero-initializes
parts of the heads (every score ties, and any order is then a valid
answer) and random weights shrink the activations layer after layer, so
the norms' statistics are calibrated on random images and the heads drawn
from N(0, std) with a std per model. The image has structure at several
scales. --check prints `NAME: ok (N detections, max score difference D)`
when hx's boxes, labels and scores are PyTorch's: the same detections
(matched one to one by label, a score within 1e-3, box corners within
BOX_TOLERANCE pixels), whatever their order, and the largest differences.
--bench times hx-run (best of R runs after a first, --time-runs) and
PyTorch eager on the cpu, both on N threads; each --also times hx-run again
with those flags added (say, the backbone on a GPU and the tail on the
cpu), and --torch-device=cuda times PyTorch's model on that device too
(warmed up, each run ended by a synchronize). --conditioning shows that a draw is fit to compare with: PyTorch's own
detections at one thread, at two and in float64 (`NAME: conditioned` when
they match one another by the same rule). A draw whose decisions (a
proposal kept or suppressed, a score beside a threshold) turn on float
rounding fails it, and no implementation could be held to it; the seeds
below pass. Needs Debian's /usr/bin/python3 (torch, torchvision, onnx,
numpy).
"""
import argparse
import inspect
import os
import subprocess
import sys
import time
import warnings

import numpy as np

# A box corner within a pixel of PyTorch's (of 320): two-stage detectors
# decode boxes twice, and float differences in the proposals move them.
BOX_TOLERANCE = 1.0

# name: the std of the heads' weights that spreads the scores, whether it is
# times 1/sqrt(fan in), and the seed of the draw (one that --conditioning
# passes).
MODELS = {
    "ssdlite320_mobilenet_v3_large": (0.2, False, 0),
    "retinanet_resnet50_fpn": (0.005, False, 0),
    "fasterrcnn_mobilenet_v3_large_320_fpn": (0.5, True, 2),
}


def build(name, spec):
    import torch
    import torchvision
    std, per_fan, seed = spec
    torch.manual_seed(seed)
    m = getattr(torchvision.models.detection, name)(weights=None, weights_backbone=None).eval()
    with torch.no_grad():
        norms = [mod for mod in m.modules() if isinstance(mod, torch.nn.BatchNorm2d)]
        for mod in norms:
            mod.reset_running_stats()
            mod.momentum = None
        m.train()
        for _ in range(2):
            m.backbone(torch.rand(4, 3, 320, 320))
        m.eval()
        # An FPN has no norms: scale its output convolutions to unit outputs.
        fpn = getattr(m.backbone, "fpn", None)
        if fpn is not None:
            feats = list(m.backbone(torch.rand(2, 3, 320, 320)).values())
            for block, f in zip(fpn.layer_blocks, feats):
                conv = block[0] if isinstance(block, torch.nn.Sequential) else block
                conv.weight /= f.std()
                if conv.bias is not None:
                    conv.bias /= f.std()
        for n, p in m.named_parameters():
            if "head" in n or "rpn" in n or "roi_heads" in n:
                s = std / (p[0].numel() ** 0.5) if per_fan and p.dim() > 1 else std
                # Box regressions small: large deltas clip every box to nothing.
                p.normal_(0, s / 10 if ("bbox" in n or "regression" in n) else s)
    g = torch.Generator().manual_seed(1)
    x = sum(torch.nn.functional.interpolate(torch.rand(1, 3, s, s, generator=g), size=(320, 320),
                                            mode="bilinear", align_corners=False)[0] / (i + 1)
            for i, s in enumerate((4, 10, 25, 80)))
    return m, ((x - x.min()) / (x.max() - x.min())).contiguous()


def export(name, out):
    import torch
    m, x = build(name, MODELS[name])
    path = os.path.join(out, name + ".onnx")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        # PyTorch 2.9 and later export through dynamo by default, which
        # cannot trace the detectors' data-dependent tails.
        legacy = {"dynamo": False} if "dynamo" in inspect.signature(torch.onnx.export).parameters else {}
        torch.onnx.export(m, ([x],), path, opset_version=13, input_names=["image"], **legacy)
    np.save(os.path.join(out, name + ".image.npy"), x.numpy())
    return m, x, path


def compare(want, got):
    """Unmatched count, and the largest score and box-corner differences of
    the matches."""
    used = np.zeros(len(got["scores"]), bool)
    unmatched, worst, box = 0, 0.0, 0.0
    for i in range(len(want["scores"])):
        corner = np.abs(got["boxes"] - want["boxes"][i]).max(axis=1) if len(got["boxes"]) else []
        ok = (~used & (got["labels"] == want["labels"][i])
              & (np.abs(got["scores"] - want["scores"][i]) <= 1e-3) & (corner <= BOX_TOLERANCE))
        cand = np.where(ok)[0]
        if not len(cand):
            unmatched += 1
            continue
        j = cand[np.argmin(np.abs(got["scores"][cand] - want["scores"][i]))]
        used[j] = True
        worst = max(worst, float(abs(got["scores"][j] - want["scores"][i])))
        box = max(box, float(corner[j]))
    return unmatched + int((~used).sum()), worst, box


def torch_best(m, x, repeat, device):
    """PyTorch eager's best time of REPEAT runs, in ms, on DEVICE (None: as
    built, on the cpu); on a GPU after warm-up runs, each run synchronized."""
    import torch
    sync = lambda: None
    if device:
        m, x = m.to(device), x.to(device)
        sync = lambda: torch.cuda.synchronize() if device.startswith("cuda") else None
    times = []
    with torch.no_grad():
        for i in range(repeat + (3 if device else 0)):
            sync()
            t = time.perf_counter()
            m([x])
            sync()
            times.append(time.perf_counter() - t)
    if device:
        m.to("cpu")
    return min(times[3 if device else 0:]) * 1e3


def conditioning(name):
    """PyTorch's detections at one thread, two, and in float64: unmatched
    pairs (1 vs 2 threads, 1 vs float64, 2 vs float64)."""
    import torch
    m, x = build(name, MODELS[name])
    res = []
    with torch.no_grad():
        for t in (1, 2):
            torch.set_num_threads(t)
            res.append({k: v.numpy() for k, v in m([x])[0].items()})
        res.append({k: v.numpy() for k, v in m.double()([x.double()])[0].items()})
    return len(res[2]["scores"]), [compare(res[a], res[b])[0] for a, b in ((0, 1), (0, 2), (1, 2))]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("out")
    ap.add_argument("--check")
    ap.add_argument("--bench")
    ap.add_argument("--conditioning", action="store_true")
    ap.add_argument("--only")
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--repeat", type=int, default=10)
    ap.add_argument("--also", action="append", default=[], metavar="FLAGS",
                    help="--bench: time hx-run again with these flags added")
    ap.add_argument("--torch-device", help="--bench: time PyTorch on this device too (cuda)")
    args, rest = ap.parse_known_args()
    import torch
    os.makedirs(args.out, exist_ok=True)
    names = args.only.split(",") if args.only else list(MODELS)
    status = 0
    for name in names:
        if args.conditioning:
            n, bad = conditioning(name)
            print(f"{name}: {'conditioned' if not any(bad) else 'NOT conditioned'} ({n} detections; "
                  f"unmatched: 1 vs 2 threads {bad[0]}, 1 thread vs float64 {bad[1]}, "
                  f"2 threads vs float64 {bad[2]})", flush=True)
            status |= int(any(bad))
            continue
        m, x, path = export(name, args.out)
        hx = args.check or args.bench
        cmd = [hx, path, "--input", "image=" + os.path.join(args.out, name + ".image.npy")]
        if args.bench:
            cmd += ["--threads=%d" % args.threads, "--repeat=%d" % args.repeat, "--time-runs"]
        torch.set_num_threads(args.threads)
        with torch.no_grad():
            want = {k: v.numpy() for k, v in m([x])[0].items()}
        line, timed = None, []
        for label, flags in [("hx", [])] + [("hx " + f, f.split()) for f in args.also]:
            outdir = os.path.join(args.out, "%s.out%d" % (name, len(timed)))
            r = subprocess.run(cmd + ["--output-dir=" + outdir] + rest + flags, capture_output=True,
                               text=True)
            if r.returncode != 0:
                print(f"{name}: FAIL ({label}: hx-run exit {r.returncode})\n{r.stderr[-2000:]}")
                break
            # The outputs in the order of the result's keys (the exporter's).
            got = {k: np.load(os.path.join(outdir, f"output_{i}.npy")) for i, k in enumerate(want)}
            bad, worst, box = compare(want, got)
            if bad:
                print(f"{name}: FAIL ({label}: {bad} detections unmatched of {len(want['scores'])} "
                      f"and {len(got['scores'])})")
                break
            if line is None:
                line = (f"{name}: ok ({len(want['scores'])} detections; largest differences: score "
                        f"{worst:.1e}, box corner {box:.2f} px)")
            else:
                line += f"; {label}: ok (score {worst:.1e}, box {box:.2f} px)"
            hx_ms = [l for l in r.stderr.splitlines() if "wall time per run" in l]
            timed.append((label, float(hx_ms[0].split("best ")[1].split(" ms")[0]) if hx_ms
                          else float("nan")))
        else:
            if args.bench:
                refs = [("PyTorch eager", torch_best(m, x, args.repeat, None))]
                if args.torch_device:
                    refs.append((f"PyTorch eager on {args.torch_device}",
                                 torch_best(m, x, args.repeat, args.torch_device)))
                line += "; " + ", ".join(f"{l} {t:.1f} ms" for l, t in timed + refs)
                line += f" (best of {args.repeat}, {args.threads} threads)"
            print(line, flush=True)
            continue
        status = 1
    return status


if __name__ == "__main__":
    sys.exit(main())
