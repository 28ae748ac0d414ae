#!/usr/bin/env python3
"""Builds small ONNX models, one per converter case of hx's importer, with
random inputs and NumPy's reference outputs (nothing from a framework), and
checks hx against them.

    make-onnx.py OUTDIR [--only NAME]       write OUTDIR/NAME.onnx, inputs, expected
    make-onnx.py OUTDIR --check HX_RUN [--only NAME] [hx-run flags...]
                                             also run each through hx-run

--check runs `hx-run NAME.onnx --input ... --check` (the interpreter beside
the backend) and compares hx's outputs with NumPy's, printing one line per
case; exit 1 if any differs. Needs Debian's /usr/bin/python3 (onnx, numpy).
"""
import argparse
import itertools
import math
import os
import subprocess
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

rng = np.random.default_rng(0)
F32 = TensorProto.FLOAT


def rand(*shape):
    return rng.standard_normal(shape).astype(np.float32)


# ---- NumPy references -------------------------------------------------------

def conv2d(x, w, b=None, strides=(1, 1), pads=(0, 0, 0, 0), dil=(1, 1), group=1):
    n, c, h, wd = x.shape
    o, cg, kh, kw = w.shape
    xp = np.pad(x, ((0, 0), (0, 0), (pads[0], pads[2]), (pads[1], pads[3])))
    oh = (xp.shape[2] - dil[0] * (kh - 1) - 1) // strides[0] + 1
    ow = (xp.shape[3] - dil[1] * (kw - 1) - 1) // strides[1] + 1
    out = np.zeros((n, o, oh, ow), np.float64)
    og = o // group
    for g in range(group):
        for i in range(kh):
            for j in range(kw):
                patch = xp[:, g * cg:(g + 1) * cg,
                           i * dil[0]:i * dil[0] + strides[0] * (oh - 1) + 1:strides[0],
                           j * dil[1]:j * dil[1] + strides[1] * (ow - 1) + 1:strides[1]]
                out[:, g * og:(g + 1) * og] += np.einsum("nchw,oc->nohw", patch, w[g * og:(g + 1) * og, :, i, j])
    if b is not None:
        out += b.reshape(1, -1, 1, 1)
    return out.astype(np.float32)


def pool(x, k, s, pads, kind, ceil=False, include_pad=False):
    n, c, h, w = x.shape
    fill = -np.inf if kind == "max" else 0.0
    def outdim(i, a):
        span = i + pads[a] + pads[a + 2] - k[a]
        return (-(-span // s[a]) if ceil else span // s[a]) + 1
    oh, ow = outdim(h, 0), outdim(w, 1)
    xp = np.full((n, c, h + pads[0] + pads[2] + k[0], w + pads[1] + pads[3] + k[1]), fill, np.float64)
    xp[:, :, pads[0]:pads[0] + h, pads[1]:pads[1] + w] = x
    valid = np.zeros(xp.shape[2:])
    valid[pads[0]:pads[0] + h, pads[1]:pads[1] + w] = 1
    padded = np.zeros(xp.shape[2:])
    padded[:h + pads[0] + pads[2], :w + pads[1] + pads[3]] = 1
    out = np.zeros((n, c, oh, ow))
    for i in range(oh):
        for j in range(ow):
            win = xp[:, :, i * s[0]:i * s[0] + k[0], j * s[1]:j * s[1] + k[1]]
            if kind == "max":
                out[:, :, i, j] = win.max(axis=(2, 3))
            else:
                cnt = (padded if include_pad else valid)[i * s[0]:i * s[0] + k[0], j * s[1]:j * s[1] + k[1]].sum()
                out[:, :, i, j] = np.where(np.isfinite(win), win, 0).sum(axis=(2, 3)) / cnt
    return out.astype(np.float32)


def softmax(x, axis):
    e = np.exp(x - x.max(axis=axis, keepdims=True))
    return e / e.sum(axis=axis, keepdims=True)


def layer_norm(x, g, b, eps):
    m = x.mean(-1, keepdims=True)
    v = ((x - m) ** 2).mean(-1, keepdims=True)
    return ((x - m) / np.sqrt(v + eps) * g + b).astype(np.float32)


def nll_loss(logp, target, weight=None, ignore=None, reduction="mean"):
    """ONNX's NegativeLogLikelihoodLoss over (N, C, d...) and (N, d...)."""
    c = logp.shape[1]
    w = np.ones(c, np.float64) if weight is None else weight.astype(np.float64)
    valid = np.ones(target.shape, bool) if ignore is None else target != ignore
    t = np.where(valid, target, 0)
    picked = np.take_along_axis(logp.astype(np.float64), t[:, None], 1)[:, 0]
    tw = np.where(valid, w[t], 0)
    loss = -picked * tw
    if reduction == "none":
        return loss.astype(np.float32)
    if reduction == "sum":
        return np.float32(loss.sum())
    return np.float32(loss.sum() / tw.sum())


erf = np.vectorize(math.erf, otypes=[np.float32])

# ---- cases ------------------------------------------------------------------

CASES = {}


def case(name, opset=13):
    def register(fn):
        CASES[name] = (fn, opset)
        return fn
    return register


def node(op, ins, outs, **attrs):
    return helper.make_node(op, ins, outs, name="/" + op.lower() + "/" + op, **attrs)


def init(name, value):
    return numpy_helper.from_array(np.asarray(value), name)


@case("conv-bias-relu")
def _():
    x, w, b = rand(1, 3, 9, 9), rand(4, 3, 3, 3), rand(4)
    nodes = [node("Conv", ["x", "w", "b"], ["c"], pads=[1, 0, 1, 2], strides=[2, 1]), node("Relu", ["c"], ["y"])]
    return nodes, {"x": x}, [init("w", w), init("b", b)], [np.maximum(conv2d(x, w, b, (2, 1), (1, 0, 1, 2)), 0)]


@case("conv-same-upper-group", opset=11)
def _():
    x, w = rand(1, 4, 7, 8), rand(6, 2, 3, 3)
    nodes = [node("Conv", ["x", "w"], ["y"], auto_pad="SAME_UPPER", strides=[2, 2], group=2)]
    # SAME_UPPER, stride 2: out = ceil(in / 2); total pad = (out-1)*2 + 3 - in.
    return nodes, {"x": x}, [init("w", w)], [conv2d(x, w, None, (2, 2), (1, 0, 1, 1), group=2)]


@case("conv-dilated-depthwise")
def _():
    x, w = rand(1, 3, 10, 10), rand(3, 1, 3, 3)
    nodes = [node("Conv", ["x", "w"], ["y"], dilations=[2, 2], group=3, pads=[2, 2, 2, 2])]
    return nodes, {"x": x}, [init("w", w)], [conv2d(x, w, None, (1, 1), (2, 2, 2, 2), (2, 2), 3)]


@case("maxpool-ceil")
def _():
    x = rand(1, 2, 7, 7)
    nodes = [node("MaxPool", ["x"], ["y"], kernel_shape=[3, 3], strides=[2, 2], pads=[1, 1, 1, 1], ceil_mode=1)]
    return nodes, {"x": x}, [], [pool(x, (3, 3), (2, 2), (1, 1, 1, 1), "max", ceil=True)]


@case("avgpool-pads")
def _():
    x = rand(1, 2, 6, 6)
    nodes = [node("AveragePool", ["x"], ["a"], kernel_shape=[3, 3], strides=[1, 1], pads=[1, 1, 1, 1]),
             node("AveragePool", ["x"], ["b"], kernel_shape=[2, 2], strides=[2, 2], pads=[1, 1, 0, 0], count_include_pad=1)]
    return nodes, {"x": x}, [], [pool(x, (3, 3), (1, 1), (1, 1, 1, 1), "avg"),
                                 pool(x, (2, 2), (2, 2), (1, 1, 0, 0), "avg", include_pad=True)]


@case("gather-elements")
def _():
    x = rand(3, 5, 4)
    i = rng.integers(-5, 5, (3, 2, 4)).astype(np.int64)
    j = rng.integers(0, 4, (2, 5, 3)).astype(np.int32)
    nodes = [node("GatherElements", ["x", "i"], ["a"], axis=1), node("GatherElements", ["x", "j"], ["b"], axis=-1)]
    return nodes, {"x": x, "i": i}, [init("j", j)], [
        np.take_along_axis(x, np.where(i < 0, i + 5, i), 1), np.take_along_axis(x[:2], j, -1)]


@case("gather-nd", opset=12)
def _():
    x = rand(3, 4, 5)
    i = np.array([[[2, 1], [0, -1]], [[1, 3], [-3, 0]]], np.int64)
    j = np.array([[1], [3], [0]], np.int64)
    nodes = [node("GatherND", ["x", "i"], ["a"]), node("GatherND", ["x", "j"], ["b"], batch_dims=1)]
    return nodes, {"x": x, "i": i}, [init("j", j)], [
        x[i[..., 0], i[..., 1]], x[np.arange(3), j[:, 0]]]


@case("global-pools-flatten")
def _():
    x = rand(2, 3, 4, 5)
    nodes = [node("GlobalAveragePool", ["x"], ["a"]), node("Flatten", ["a"], ["y"]),
             node("GlobalMaxPool", ["x"], ["m"]), node("Flatten", ["x"], ["f"], axis=2)]
    return nodes, {"x": x}, [], [x.mean(axis=(2, 3)), x.max(axis=(2, 3), keepdims=True), x.reshape(6, 20)]


def hardmax(x, axis):
    return (np.arange(x.shape[axis]).reshape([-1 if d == axis % x.ndim else 1 for d in range(x.ndim)])
            == np.expand_dims(x.argmax(axis), axis)).astype(x.dtype)


@case("argmax-hardmax-prod")
def _():
    x, i = rand(3, 4, 5), rng.integers(-2, 3, (4, 6)).astype(np.int32)
    nodes = [node("ArgMax", ["x"], ["a"], axis=1, keepdims=0), node("ArgMin", ["x"], ["b"], axis=-1),
             node("ArgMax", ["i"], ["c"], axis=1, select_last_index=1), node("ArgMin", ["i"], ["d"]),
             node("Hardmax", ["x"], ["h"]), node("Hardmax", ["x"], ["h0"], axis=0),
             node("ReduceProd", ["x"], ["p"], axes=[0, 2], keepdims=0)]
    last = i.shape[1] - 1 - i[:, ::-1].argmax(1, keepdims=True)
    return nodes, {"x": x, "i": i}, [], [
        x.argmax(1), x.argmin(-1, keepdims=True), last.astype(np.int64), i.argmin(0, keepdims=True),
        hardmax(x, -1), hardmax(x, 0), x.astype(np.float64).prod((0, 2)).astype(np.float32)]


@case("hardmax-opset11", opset=11)
def _():
    x = rand(2, 3, 4)
    nodes = [node("Hardmax", ["x"], ["h"]), node("Hardmax", ["x"], ["l"], axis=-1),
             node("ArgMax", ["x"], ["a"])]
    return nodes, {"x": x}, [], [hardmax(x.reshape(2, 12), 1).reshape(2, 3, 4), hardmax(x, -1),
                                 x.argmax(0, keepdims=True)]


@case("batchnorm")
def _():
    x = rand(2, 3, 4, 4)
    g, b, m, v = rand(3), rand(3), rand(3), np.abs(rand(3)) + 0.5
    nodes = [node("BatchNormalization", ["x", "g", "b", "m", "v"], ["y"], epsilon=1e-3)]
    ref = (x - m.reshape(1, 3, 1, 1)) / np.sqrt(v.reshape(1, 3, 1, 1) + 1e-3) * g.reshape(1, 3, 1, 1) + b.reshape(1, 3, 1, 1)
    return nodes, {"x": x}, [init("g", g), init("b", b), init("m", m), init("v", v)], [ref]


@case("gemm-trans-alpha-beta")
def _():
    a, b, c = rand(5, 3), rand(4, 5), rand(4)
    nodes = [node("Gemm", ["a", "b", "c"], ["y"], transA=1, transB=1, alpha=0.5, beta=2.0)]
    return nodes, {"a": a}, [init("b", b), init("c", c)], [0.5 * a.T @ b.T + 2.0 * c]


@case("gemm-runtime-b")
def _():
    a, b = rand(3, 5), rand(5, 4)
    nodes = [node("Gemm", ["a", "b"], ["y"])]
    return nodes, {"a": a, "b": b}, [], [a @ b]


@case("matmul-2d-and-batched")
def _():
    a, w, p, q = rand(2, 3, 5), rand(5, 4), rand(2, 3, 4, 6), rand(2, 3, 6, 5)
    nodes = [node("MatMul", ["a", "w"], ["y"]), node("MatMul", ["p", "q"], ["z"])]
    return nodes, {"a": a, "p": p, "q": q}, [init("w", w)], [a @ w, p @ q]


@case("softmax-opset11-axis1", opset=11)
def _():
    x = rand(2, 3, 4)
    nodes = [node("Softmax", ["x"], ["y"], axis=1), node("LogSoftmax", ["x"], ["z"], axis=2)]
    flat = softmax(x.reshape(2, 12), 1).reshape(2, 3, 4)
    return nodes, {"x": x}, [], [flat, np.log(softmax(x, 2))]


@case("softmax-opset13-axis1")
def _():
    x = rand(2, 3, 4)
    return [node("Softmax", ["x"], ["y"], axis=1)], {"x": x}, [], [softmax(x, 1)]


@case("layernorm-opset17", opset=17)
def _():
    x, g, b = rand(2, 5, 8), rand(8), rand(8)
    nodes = [node("LayerNormalization", ["x", "g", "b"], ["y"], epsilon=1e-5),
             node("LayerNormalization", ["x", "g"], ["z"], axis=-1)]
    return nodes, {"x": x}, [init("g", g), init("b", b)], [layer_norm(x, g, b, 1e-5), layer_norm(x, g, 0, 1e-5)]


@case("layernorm-decomposed-gelu")
def _():
    x = rand(2, 8)
    nodes = [node("ReduceMean", ["x"], ["m"], axes=[-1]), node("Sub", ["x", "m"], ["d"]),
             node("Pow", ["d", "two"], ["d2"]), node("ReduceMean", ["d2"], ["v"], axes=[-1]),
             node("Add", ["v", "eps"], ["ve"]), node("Sqrt", ["ve"], ["s"]), node("Div", ["d", "s"], ["n"]),
             # GELU with erf: n * 0.5 * (1 + erf(n / sqrt(2)))
             node("Div", ["n", "sqrt2"], ["e0"]), node("Erf", ["e0"], ["e1"]), node("Add", ["e1", "one"], ["e2"]),
             node("Mul", ["n", "e2"], ["e3"]), node("Mul", ["e3", "half"], ["y"])]
    inits = [init("two", np.float32(2)), init("eps", np.float32(1e-5)), init("sqrt2", np.float32(math.sqrt(2))),
             init("one", np.float32(1)), init("half", np.float32(0.5))]
    n = layer_norm(x, 1, 0, 1e-5)
    return nodes, {"x": x}, inits, [n * 0.5 * (1 + erf(n / np.float32(math.sqrt(2))))]


@case("reshape-transpose-concat")
def _():
    x, y = rand(2, 3, 4), rand(2, 3, 4)
    nodes = [node("Reshape", ["x", "shape"], ["r"]), node("Transpose", ["r"], ["t"], perm=[1, 0, 2]),
             node("Concat", ["x", "y"], ["c"], axis=-1), node("Transpose", ["x"], ["d"])]
    return nodes, {"x": x, "y": y}, [init("shape", np.array([0, -1, 2], np.int64))], [
        x.reshape(2, 6, 2).transpose(1, 0, 2), np.concatenate([x, y], -1), x.transpose()]


@case("split-opset11", opset=11)
def _():
    x = rand(2, 7)
    nodes = [node("Split", ["x"], ["a", "b"], axis=1, split=[3, 4])]
    return nodes, {"x": x}, [], [x[:, :3], x[:, 3:]]


@case("split-slice-opset13")
def _():
    x = rand(4, 6)
    nodes = [node("Split", ["x", "sizes"], ["a", "b", "c"], axis=1),
             node("Slice", ["x", "st", "en", "ax", "sp"], ["s"])]
    inits = [init("sizes", np.array([1, 2, 3], np.int64)), init("st", np.array([1, -1], np.int64)),
             init("en", np.array([9223372036854775807, 0], np.int64)), init("ax", np.array([0, 1], np.int64)),
             init("sp", np.array([2, -2], np.int64))]
    return nodes, {"x": x}, inits, [x[:, :1], x[:, 1:3], x[:, 3:], x[1::2, -1:0:-2]]


@case("gather-unsqueeze-squeeze")
def _():
    x = rand(5, 4)
    idx = np.array([[4, 0], [-1, 2]], np.int64)
    nodes = [node("Gather", ["x", "idx"], ["g"], axis=0), node("Unsqueeze", ["x", "ax"], ["u"]),
             node("Squeeze", ["u", "ax"], ["s"])]
    return nodes, {"x": x}, [init("idx", idx), init("ax", np.array([0, 3], np.int64))], [
        x[idx], x]


@case("trilu", opset=14)
def _():
    x, i = rand(2, 3, 5), rng.integers(-9, 9, (4, 4)).astype(np.int64)
    k = np.array(1, np.int64)  # given at run time
    nodes = [node("Trilu", ["x", "km1"], ["u"]), node("Trilu", ["x", "k2"], ["l"], upper=0),
             node("Trilu", ["i"], ["iu"]), node("Trilu", ["x", "k"], ["ku"]), node("Trilu", ["i", "k"], ["kl"], upper=0)]
    inits = [init("km1", np.array(-1, np.int64)), init("k2", np.array(2, np.int64))]
    return nodes, {"x": x, "i": i, "k": k}, inits, [np.triu(x, -1), np.tril(x, 2), np.triu(i), np.triu(x, 1),
                                                     np.tril(i, 1)]


@case("unsqueeze-opset11", opset=11)
def _():
    x = rand(3, 2)
    nodes = [node("Unsqueeze", ["x"], ["u"], axes=[1, -1]), node("Squeeze", ["u"], ["s"], axes=[1]),
             node("Unsqueeze", ["x"], ["v"], axes=[0])]
    return nodes, {"x": x}, [], [x.reshape(3, 2, 1), x.reshape(1, 3, 2)]


@case("shape-folding")
def _():
    # x.view(x.size(0), -1) as exporters write it, and ConstantOfShape.
    x = rand(2, 3, 4)
    nodes = [node("Shape", ["x"], ["sh"]), node("Gather", ["sh", "zero"], ["n"], axis=0),
             node("Unsqueeze", ["n", "ax0"], ["n1"]), node("Concat", ["n1", "minus1"], ["shape"], axis=0),
             node("Reshape", ["x", "shape"], ["y"]),
             node("ConstantOfShape", ["shape2"], ["ones"], value=numpy_helper.from_array(np.array([1.5], np.float32))),
             node("Add", ["y", "ones"], ["z"])]
    inits = [init("zero", np.array(0, np.int64)), init("ax0", np.array([0], np.int64)),
             init("minus1", np.array([-1], np.int64)), init("shape2", np.array([2, 12], np.int64))]
    return nodes, {"x": x}, inits, [x.reshape(2, -1) + 1.5]


@case("elementwise")
def _():
    x, y = rand(3, 4), rand(4)
    c = np.array([[True, False, True, False]])
    nodes = [node("Clip", ["x", "lo", "hi"], ["a"]), node("Clip", ["x", "", "hi"], ["b"]),
             node("Where", ["c", "x", "y"], ["w"]), node("Cast", ["x"], ["i"], to=TensorProto.INT32),
             node("Sigmoid", ["x"], ["s"]), node("Tanh", ["x"], ["t"]), node("Max", ["x", "y", "lo"], ["m"]),
             node("LeakyRelu", ["x"], ["l"], alpha=0.2), node("Identity", ["x"], ["id"]),
             node("Dropout", ["x"], ["dr"]), node("Abs", ["x"], ["ab"]), node("Neg", ["x"], ["ng"]),
             node("Exp", ["x"], ["ex"]), node("Reciprocal", ["y"], ["rc"]), node("Greater", ["x", "y"], ["gt"]),
             node("ReduceSum", ["x", "rax"], ["rs"], keepdims=0), node("ReduceMax", ["x"], ["rm"], axes=[0])]
    inits = [init("lo", np.float32(-0.5)), init("hi", np.float32(0.5)), init("c", c), init("rax", np.array([1], np.int64))]
    return nodes, {"x": x, "y": y}, inits, [
        np.clip(x, -0.5, 0.5), np.minimum(x, 0.5), np.where(c, x, y), x.astype(np.int32), 1 / (1 + np.exp(-x)),
        np.tanh(x), np.maximum(np.maximum(x, y), -0.5), np.where(x > 0, x, 0.2 * x), x, x, np.abs(x), -x, np.exp(x),
        1 / y, x > y, x.sum(1), x.max(0, keepdims=True)]


@case("nllloss")
def _():
    x = np.log(softmax(rand(2, 3, 4), 1)).astype(np.float32)
    t = np.array([[0, 1, 2, 1], [2, 2, 0, 1]], np.int64)
    w = np.array([0.5, 1.5, 2.0], np.float32)
    nodes = [node("NegativeLogLikelihoodLoss", ["x", "t", "w"], ["a"], ignore_index=1),
             node("NegativeLogLikelihoodLoss", ["x", "t"], ["b"], reduction="none"),
             node("NegativeLogLikelihoodLoss", ["x", "t"], ["c"], reduction="sum", ignore_index=2),
             node("NegativeLogLikelihoodLoss", ["x", "t"], ["d"], ignore_index=0)]
    return nodes, {"x": x, "t": t}, [init("w", w)], [
        nll_loss(x, t, w, 1), nll_loss(x, t, reduction="none"), nll_loss(x, t, ignore=2, reduction="sum"),
        nll_loss(x, t, ignore=0)]


@case("softmax-cross-entropy", opset=12)
def _():
    x, t = rand(3, 5), np.array([4, 0, 2], np.int32)
    w = np.abs(rand(5)) + np.float32(0.1)
    logp = np.log(softmax(x.astype(np.float64), 1))
    nodes = [node("SoftmaxCrossEntropyLoss", ["x", "t", "w"], ["a", "lp"]),
             node("SoftmaxCrossEntropyLoss", ["x", "t"], ["b"], reduction="none", ignore_index=0)]
    return nodes, {"x": x, "t": t}, [init("w", w)], [
        nll_loss(logp, t, w), logp.astype(np.float32), nll_loss(logp, t, ignore=0, reduction="none")]


@case("pad", opset=11)
def _():
    x, v = rand(2, 3, 4), np.float32(1.5)
    nodes = [node("Pad", ["x", "p1", "v"], ["c"]), node("Pad", ["x", "p2"], ["e"], mode="edge"),
             node("Pad", ["x", "p2"], ["r"], mode="reflect"), node("Pad", ["x", "p1"], ["z"])]
    p1, p2 = [0, 1, 2, 1, 0, 3], [1, 2, 0, 0, 1, 3]
    w1, w2 = list(zip(p1[:3], p1[3:])), list(zip(p2[:3], p2[3:]))
    inits = [init("p1", np.array(p1, np.int64)), init("p2", np.array(p2, np.int64))]
    return nodes, {"x": x, "v": v}, inits, [
        np.pad(x, w1, constant_values=1.5), np.pad(x, w2, mode="edge"), np.pad(x, w2, mode="reflect"),
        np.pad(x, w1)]


@case("reduce-composites")
def _():
    x, p = rand(3, 4, 5), np.abs(rand(3, 4, 5)) + np.float32(0.1)
    xd = x.astype(np.float64)
    m = xd.max(axis=(0, 2), keepdims=True)
    lse = np.log(np.exp(xd - m).sum(axis=(0, 2), keepdims=True)) + m
    nodes = [node("ReduceL1", ["x"], ["l1"], axes=[1]), node("ReduceL2", ["x"], ["l2"], axes=[-1], keepdims=0),
             node("ReduceSumSquare", ["x"], ["ss"]), node("ReduceLogSum", ["p"], ["ls"], axes=[0, 1]),
             node("ReduceLogSumExp", ["x"], ["a"], axes=[0, 2]),
             node("ReduceLogSumExp", ["x"], ["b"], axes=[2, 0], keepdims=0)]
    return nodes, {"x": x, "p": p}, [], [
        np.abs(x).sum(1, keepdims=True), np.sqrt((xd * xd).sum(-1)).astype(np.float32),
        (xd * xd).sum(keepdims=True).astype(np.float32), np.log(p.astype(np.float64).sum((0, 1), keepdims=True)).astype(np.float32),
        lse.astype(np.float32), lse.reshape(4).astype(np.float32)]


@case("normalizations", opset=17)
def _():
    x, g, b = rand(2, 3, 4), rand(3, 4), rand(4)
    xd = x.astype(np.float64)
    m = xd.mean((1, 2), keepdims=True)
    inv = 1 / np.sqrt(((xd - m) ** 2).mean((1, 2), keepdims=True) + 1e-3)
    mv = xd.mean((0, 2), keepdims=True)
    mvn = (xd - mv) / (np.sqrt(((xd - mv) ** 2).mean((0, 2), keepdims=True)) + 1e-9)
    nodes = [node("LayerNormalization", ["x", "g", "b"], ["y", "mean", "invstd"], axis=1, epsilon=1e-3),
             node("LayerNormalization", ["x", "b"], ["z", "", "inv2"]),
             node("MeanVarianceNormalization", ["x"], ["mvn"], axes=[0, 2]),
             node("LpNormalization", ["x"], ["l1"], axis=1, p=1), node("LpNormalization", ["x"], ["l2"])]
    m2 = xd.mean(-1, keepdims=True)
    inv2 = 1 / np.sqrt(((xd - m2) ** 2).mean(-1, keepdims=True) + 1e-5)
    f = lambda v: v.astype(np.float32)
    return nodes, {"x": x}, [init("g", g), init("b", b)], [
        f((xd - m) * inv * g + b), f(m), f(inv), f((xd - m2) * inv2 * b), f(inv2), f(mvn),
        f(xd / np.abs(xd).sum(1, keepdims=True)), f(xd / np.sqrt((xd * xd).sum(-1, keepdims=True)))]
@case("rounding-trigonometric")
def _():
    x = rand(3, 4)
    h = np.array([0.5, 1.5, 2.5, -0.5, -2.5, 2.4, -2.6, 0.0, 3.0, -7.5], np.float32)
    u = np.tanh(x).astype(np.float32) * np.float32(0.9)  # inside (-1, 1)
    g = (1 + np.abs(x)).astype(np.float32)                # at least 1
    unary = [("Floor", "x", np.floor), ("Ceil", "x", np.ceil), ("Round", "h", np.round), ("Sign", "h", np.sign),
             ("Sin", "x", np.sin), ("Cos", "x", np.cos), ("Tan", "u", np.tan), ("Asin", "u", np.arcsin),
             ("Acos", "u", np.arccos), ("Atan", "x", np.arctan), ("Sinh", "x", np.sinh), ("Cosh", "x", np.cosh),
             ("Asinh", "x", np.arcsinh), ("Acosh", "g", np.arccosh), ("Atanh", "u", np.arctanh)]
    vals = {"x": x, "h": h, "u": u, "g": g}
    nodes = [node(op, [i], [op.lower()]) for op, i, _ in unary]
    return nodes, vals, [], [f(vals[i]).astype(np.float32) for _, i, f in unary]


@case("logical-comparisons-tests")
def _():
    x, y = rand(3, 4), rand(4)
    y[1] = x[0, 1]  # an equal pair
    p, q = x > 0, np.array([True, False, True, True])
    z = np.array([1.0, np.nan, np.inf, -np.inf, 0.0, -2.0], np.float32)
    nodes = [node("GreaterOrEqual", ["x", "y"], ["ge"]), node("LessOrEqual", ["x", "y"], ["le"]),
             node("And", ["p", "q"], ["and"]), node("Or", ["p", "q"], ["or"]), node("Xor", ["p", "q"], ["xor"]),
             node("Not", ["p"], ["not"]), node("IsNaN", ["z"], ["nan"]), node("IsInf", ["z"], ["inf"]),
             helper.make_node("IsInf", ["z"], ["posinf"], name="/isinf/pos", detect_negative=0),
             helper.make_node("IsInf", ["z"], ["neginf"], name="/isinf/neg", detect_positive=0)]
    return nodes, {"x": x, "y": y, "p": p, "q": q, "z": z}, [], [
        x >= y, x <= y, p & q, p | q, p ^ q, ~p, np.isnan(z), np.isinf(z), np.isposinf(z), np.isneginf(z)]


@case("mod")
def _():
    a = np.array([7, -7, 7, -7, 9, -3], np.int32)
    b = np.array([3, 3, -3, -3, 4, 5], np.int32)
    x = rand(2, 3) * np.float32(5)
    nodes = [node("Mod", ["a", "b"], ["floored"]), helper.make_node("Mod", ["a", "b"], ["trunc"], name="/mod/c", fmod=1),
             helper.make_node("Mod", ["x", "d"], ["fmod"], name="/mod/f", fmod=1)]
    return nodes, {"a": a, "b": b, "x": x}, [init("d", np.float32(-1.5))], [
        np.mod(a, b), np.fmod(a, b), np.fmod(x, np.float32(-1.5))]


@case("activations", opset=14)
def _():
    x = rand(2, 3, 4) * np.float32(3)
    slope = rand(4)
    def elu(v, alpha):
        return np.where(v > 0, v, alpha * (np.exp(v) - 1))
    sa, sg = 1.67326319217681884765625, 1.05070102214813232421875
    nodes = [node("Softplus", ["x"], ["sp"]), node("Softsign", ["x"], ["ss"]), node("Elu", ["x"], ["elu"], alpha=0.5),
             node("Selu", ["x"], ["selu"]), node("Celu", ["x"], ["celu"], alpha=2.0),
             node("ThresholdedRelu", ["x"], ["tr"], alpha=0.5), node("HardSigmoid", ["x"], ["hs"], alpha=0.25),
             node("HardSwish", ["x"], ["hsw"]), node("PRelu", ["x", "slope"], ["pr"]),
             node("Shrink", ["x"], ["sh"], lambd=1.0, bias=0.5)]
    return nodes, {"x": x}, [init("slope", slope)], [
        np.log1p(np.exp(x)), x / (1 + np.abs(x)), elu(x, 0.5), sg * elu(x, sa),
        np.maximum(x, 0) + np.minimum(0, 2.0 * (np.exp(x / 2.0) - 1)), np.where(x > 0.5, x, 0),
        np.clip(0.25 * x + 0.5, 0, 1), x * np.clip(x / 6 + 0.5, 0, 1), np.where(x < 0, slope * x, x),
        np.where(x < -1, x + 0.5, np.where(x > 1, x - 0.5, 0))]


@case("sum-mean-castlike", opset=15)
def _():
    a, b, c = rand(2, 3), rand(3), rand(2, 1)
    i = np.array([1, 2, 3], np.int64)
    nodes = [node("Sum", ["a", "b", "c"], ["sum"]), node("Mean", ["a", "b", "c"], ["mean"]),
             node("CastLike", ["a", "i"], ["cl"])]
    return nodes, {"a": a, "b": b, "c": c, "i": i}, [], [a + b + c, (a + b + c) / 3, a.astype(np.int64)]


@case("tied-weights")
def _():
    # One initializer used twice, once through an Identity: one table entry.
    x, w = rand(3, 20), rand(20, 20)
    nodes = [node("Identity", ["w"], ["w2"]), node("MatMul", ["x", "w"], ["a"]),
             node("MatMul", ["a", "w2"], ["y"])]
    return nodes, {"x": x}, [init("w", w)], [(x @ w) @ w]


@case("cumsum")
def _():
    x, i = rand(3, 4), rng.integers(-9, 9, (2, 5)).astype(np.int64)
    nodes = [node("CumSum", ["x", "one"], ["a"]), node("CumSum", ["x", "zero"], ["b"], exclusive=1),
             node("CumSum", ["x", "one"], ["c"], reverse=1), node("CumSum", ["i", "m1"], ["d"], reverse=1, exclusive=1)]
    inits = [init("one", np.array(1, np.int32)), init("zero", np.array([0], np.int64)), init("m1", np.array(-1, np.int64))]
    excl = lambda v, ax: np.cumsum(v, ax) - v
    rev = lambda v, ax: np.flip(np.cumsum(np.flip(v, ax), ax), ax)
    return nodes, {"x": x, "i": i}, inits, [np.cumsum(x, 1), excl(x, 0), rev(x, 1), rev(i, 1) - i]


@case("dynamic-batch")
def _():
    x, w = rand(3, 5), rand(5, 2)
    return [node("MatMul", ["x", "w"], ["m"]), node("Relu", ["m"], ["y"])], {"x": x}, [init("w", w)], [
        np.maximum(x @ w, 0)]


@case("split-num-outputs-opset18", opset=18)
def _():
    x = rand(2, 7)
    nodes = [node("Split", ["x"], ["a", "b", "c"], axis=1, num_outputs=3)]
    return nodes, {"x": x}, [], [x[:, :3], x[:, 3:6], x[:, 6:]]


@case("reduce-axes-input-opset18", opset=18)
def _():
    x = rand(2, 3, 4)
    nodes = [node("ReduceMean", ["x", "ax"], ["m"], keepdims=0), node("ReduceMax", ["x", "ax2"], ["mx"]),
             node("ReduceMin", ["x"], ["mn"], keepdims=0)]
    return nodes, {"x": x}, [init("ax", np.array([1], np.int64)), init("ax2", np.array([-1, 0], np.int64))], [
        x.mean(axis=1), x.max(axis=(0, 2), keepdims=True), np.array(x.min(), np.float32)]


@case("gelu-mish-opset20", opset=20)
def _():
    x = np.linspace(-4, 4, 24, dtype=np.float32).reshape(2, 12)
    erf = np.vectorize(math.erf)
    exact = 0.5 * x * (1 + erf(x / math.sqrt(2)))
    approx = 0.5 * x * (1 + np.tanh(math.sqrt(2 / math.pi) * (x + 0.044715 * x ** 3)))
    mish = x * np.tanh(np.log1p(np.exp(x)))
    nodes = [node("Gelu", ["x"], ["g"]), helper.make_node("Gelu", ["x"], ["t"], name="/gelu/tanh", approximate="tanh"),
             node("Mish", ["x"], ["m"])]
    return nodes, {"x": x}, [], [exact.astype(np.float32), approx.astype(np.float32), mish.astype(np.float32)]


def conv_nd(x, w, b=None, strides=None, pads=None, dil=None, group=1):
    """A 1-D to 3-D convolution, tap by tap."""
    nsp = x.ndim - 2
    strides, dil = strides or (1,) * nsp, dil or (1,) * nsp
    pads = pads or (0,) * (2 * nsp)
    xp = np.pad(x, [(0, 0), (0, 0)] + [(pads[i], pads[i + nsp]) for i in range(nsp)])
    k = w.shape[2:]
    outs = [(xp.shape[2 + i] - dil[i] * (k[i] - 1) - 1) // strides[i] + 1 for i in range(nsp)]
    o, cg = w.shape[:2]
    og = o // group
    out = np.zeros((x.shape[0], o, *outs))
    for g in range(group):
        for tap in itertools.product(*[range(kk) for kk in k]):
            sl = tuple(slice(tap[i] * dil[i], tap[i] * dil[i] + strides[i] * (outs[i] - 1) + 1, strides[i])
                       for i in range(nsp))
            patch = xp[(slice(None), slice(g * cg, (g + 1) * cg)) + sl]
            out[:, g * og:(g + 1) * og] += np.einsum("nc...,oc->no...", patch,
                                                     w[(slice(g * og, (g + 1) * og), slice(None)) + tap])
    if b is not None:
        out += b.reshape((1, -1) + (1,) * nsp)
    return out.astype(np.float32)


def pool_nd(x, k, s, pads, kind, ceil=False, include_pad=False, p=2):
    """A 1-D to 3-D max, average or Lp pool, window by window; ceil_mode's
    last windows read past the padding as padding."""
    nsp = x.ndim - 2
    def outdim(i):
        span = x.shape[2 + i] + pads[i] + pads[i + nsp] - k[i]
        return (-(-span // s[i]) if ceil else span // s[i]) + 1
    outs = [outdim(i) for i in range(nsp)]
    big = tuple(x.shape[2 + i] + pads[i] + pads[i + nsp] + k[i] + s[i] for i in range(nsp))
    xp = np.full(x.shape[:2] + big, -np.inf if kind == "max" else 0.0)
    inner = tuple(slice(pads[i], pads[i] + x.shape[2 + i]) for i in range(nsp))
    xp[(slice(None), slice(None)) + inner] = x
    valid, padded = np.zeros(big), np.zeros(big)
    valid[inner] = 1
    padded[tuple(slice(0, x.shape[2 + i] + pads[i] + pads[i + nsp]) for i in range(nsp))] = 1
    out = np.zeros(x.shape[:2] + tuple(outs))
    axes = tuple(range(2, 2 + nsp))
    for o in itertools.product(*[range(n) for n in outs]):
        win = tuple(slice(o[i] * s[i], o[i] * s[i] + k[i]) for i in range(nsp))
        w = xp[(slice(None), slice(None)) + win]
        if kind == "max":
            r = w.max(axis=axes)
        elif kind == "lp":
            r = (np.abs(w) ** p).sum(axis=axes) ** (1 / p)
        else:
            r = w.sum(axis=axes) / (padded if include_pad else valid)[win].sum()
        out[(slice(None), slice(None)) + o] = r
    return out.astype(np.float32)


@case("conv3d-groups-bias")
def _():
    x, w, b = rand(2, 4, 5, 6, 7), rand(6, 2, 3, 3, 2), rand(6)
    nodes = [node("Conv", ["x", "w", "b"], ["y"], pads=[1, 0, 1, 1, 1, 0], strides=[2, 1, 2],
                  dilations=[1, 2, 1], group=2)]
    return nodes, {"x": x}, [init("w", w), init("b", b)], [
        conv_nd(x, w, b, (2, 1, 2), (1, 0, 1, 1, 1, 0), (1, 2, 1), 2)]


@case("pool3d-max-avg")
def _():
    x = rand(1, 2, 5, 7, 6)
    k, st, pads = [2, 3, 3], [2, 2, 1], [1, 1, 0, 0, 1, 1]
    nodes = [node("MaxPool", ["x"], ["m"], kernel_shape=k, strides=st, pads=pads, ceil_mode=1),
             helper.make_node("AveragePool", ["x"], ["a"], name="/avg/exclude", kernel_shape=k, strides=st, pads=pads),
             helper.make_node("AveragePool", ["x"], ["i"], name="/avg/include", kernel_shape=k, strides=st, pads=pads,
                              count_include_pad=1)]
    return nodes, {"x": x}, [], [pool_nd(x, k, st, pads, "max", ceil=True), pool_nd(x, k, st, pads, "avg"),
                                 pool_nd(x, k, st, pads, "avg", include_pad=True)]


@case("lppool", opset=18)
def _():
    x, v = rand(1, 3, 7, 6), rand(2, 3, 9)
    nodes = [node("LpPool", ["x"], ["a"], kernel_shape=[3, 3], strides=[2, 2], pads=[1, 1, 1, 1]),
             helper.make_node("LpPool", ["x"], ["c"], name="/lppool/ceil", kernel_shape=[2, 2], strides=[2, 2],
                              ceil_mode=1, p=1),
             helper.make_node("LpPool", ["v"], ["b"], name="/lppool/1d", kernel_shape=[3], strides=[2], p=3)]
    return nodes, {"x": x, "v": v}, [], [
        pool_nd(x, (3, 3), (2, 2), (1, 1, 1, 1), "lp"), pool_nd(x, (2, 2), (2, 2), (0, 0, 0, 0), "lp", ceil=True, p=1),
        pool_nd(v, (3,), (2,), (0, 0), "lp", p=3)]


@case("scatter-reductions", opset=18)
def _():
    x, u = rand(4, 5), rand(4, 3)
    i = np.array([[1, -1, 3], [0, 0, 2], [4, 1, 1], [2, 3, -5]], np.int64)
    t = np.array([[1], [3], [1], [-4]], np.int64)
    v = rand(4, 5)
    def elements(reduce):
        y = x.astype(np.float64).copy()
        for r in range(4):
            for c in range(3):
                at = i[r, c] % 5
                y[r, at] = u[r, c] if reduce is None else reduce(y[r, at], u[r, c])
        return y.astype(np.float32)
    nd = x.astype(np.float64).copy()
    for r in range(4):
        nd[t[r, 0] % 4] += v[r]
    nodes = [node("ScatterElements", ["x", "i", "u"], ["a"], axis=1),
             helper.make_node("ScatterElements", ["x", "i", "u"], ["b"], name="/scatter/max", axis=-1, reduction="max"),
             helper.make_node("ScatterND", ["x", "t", "v"], ["c"], name="/scatternd/add", reduction="add")]
    return nodes, {"x": x, "u": u, "v": v}, [init("i", i), init("t", t)], [
        elements(None), elements(max), nd.astype(np.float32)]


def affine_grid(theta, size, align):
    """ONNX's AffineGrid: each point's (x, y[, z], 1) times theta^T."""
    spatial = size[2:]
    def coords(d):
        return np.linspace(-1, 1, d) if align else (2 * np.arange(d) + 1) / d - 1
    mesh = np.meshgrid(*[coords(d) for d in spatial], indexing="ij")
    base = np.stack([m.reshape(-1) for m in mesh[::-1]] + [np.ones(mesh[0].size)], axis=1)
    grid = np.einsum("pk,njk->npj", base, theta.astype(np.float64))
    return grid.reshape((size[0], *spatial, len(spatial))).astype(np.float32)


@case("affine-grid-opset20", opset=20)
def _():
    t2, t3 = rand(2, 2, 3), rand(1, 3, 4)
    s2, s3 = np.array([2, 3, 4, 5], np.int64), np.array([1, 1, 2, 3, 4], np.int64)
    nodes = [node("AffineGrid", ["t2", "s2"], ["a"]),
             helper.make_node("AffineGrid", ["t2", "s2"], ["b"], name="/affine/align", align_corners=1),
             helper.make_node("AffineGrid", ["t3", "s3"], ["c"], name="/affine/3d")]
    return nodes, {"t2": t2, "t3": t3}, [init("s2", s2), init("s3", s3)], [
        affine_grid(t2, s2, False), affine_grid(t2, s2, True), affine_grid(t3, s3, False)]


@case("cast-saturate-opset19", opset=19)
def _():
    # saturate concerns float8 targets only: to float16 and int32 it changes nothing.
    x = np.array([[-6e4, -2.5, 0.5, 3.75], [6.5e4, 1.5, -0.25, 100.0]], np.float32)
    nodes = [node("Cast", ["x"], ["h"], to=TensorProto.FLOAT16, saturate=1),
             helper.make_node("Cast", ["x"], ["i"], name="/cast/int", to=TensorProto.INT32, saturate=0)]
    return nodes, {"x": x}, [], [x.astype(np.float16), x.astype(np.int32)]


@case("einsum-diagonal", opset=12)
def _():
    a, b = rand(3, 4, 4), rand(4, 2)
    m = rand(5, 5)
    nodes = [node("Einsum", ["a", "b"], ["y0"], equation="bii,ij->bj"),
             helper.make_node("Einsum", ["m"], ["y1"], name="/einsum/trace", equation="ii->"),
             helper.make_node("Einsum", ["a"], ["y2"], name="/einsum/diag", equation="...ii->...i")]
    return nodes, {"a": a, "b": b, "m": m}, [], [
        np.einsum("bii,ij->bj", a, b).astype(np.float32), np.einsum("ii->", m).astype(np.float32),
        np.einsum("...ii->...i", a).astype(np.float32)]


def branch(name, nodes, outs):
    """An If branch: a subgraph without inputs whose outputs are float tensors
    (their shapes left to inference)."""
    return helper.make_graph(nodes, name, [], [helper.make_tensor_value_info(o, F32, [3, 4] if o == "y" else [3, 3, 4]) for o in outs])


@case("if-runtime-and-folded")
def _():
    x, w = rand(3, 4), rand(4, 4)
    # A run-time condition (the sum of x against 0): two outputs, each branch
    # computing from the outer values; a nested If inside the else branch.
    inner = helper.make_node("If", ["c2"], ["e1"], name="/if/inner",
                             then_branch=branch("inner_then", [node("Neg", ["x"], ["n"])], ["n"]),
                             else_branch=branch("inner_else", [node("Abs", ["x"], ["ab"])], ["ab"]))
    then_g = branch("then", [node("MatMul", ["x", "w"], ["t0"]), node("Relu", ["t0"], ["t1"]),
                             node("Exp", ["x"], ["t2"])], ["t1", "t2"])
    else_g = branch("else", [node("Sigmoid", ["x"], ["e0"]),
                             node("Less", ["x", "zero"], ["m"]), node("Cast", ["m"], ["m_f"], to=TensorProto.FLOAT),
                             node("ReduceMax", ["m_f"], ["mx"], keepdims=0), node("Greater", ["mx", "zero"], ["c2"]),
                             inner], ["e0", "e1"])
    # A condition known at import time (a shape comparison): only the taken
    # branch is imported, and the other holds an op hx does not import.
    folded_then = branch("folded_then", [node("Tanh", ["x"], ["f0"])], ["f0"])
    folded_else = branch("folded_else", [node("Det", ["w"], ["f1"])], ["f1"])
    nodes = [node("ReduceSum", ["x"], ["s"], keepdims=0), node("Greater", ["s", "zero"], ["c"]),
             helper.make_node("If", ["c"], ["y0", "y1"], name="/if/outer", then_branch=then_g, else_branch=else_g),
             node("Shape", ["x"], ["sh"]), node("Gather", ["sh", "zero_i"], ["d0"]),
             node("Equal", ["d0", "three"], ["c3"]),
             helper.make_node("If", ["c3"], ["y2"], name="/if/folded", then_branch=folded_then,
                              else_branch=folded_else)]
    inits = [init("w", w), init("zero", np.array(0, np.float32)), init("zero_i", np.array(0, np.int64)),
             init("three", np.array(3, np.int64))]
    if x.sum() > 0:
        y0, y1 = np.maximum(x @ w, 0), np.exp(x)
    else:
        y0 = 1 / (1 + np.exp(-x))
        y1 = -x if (x < 0).any() else np.abs(x)
    return nodes, {"x": x}, inits, [y0.astype(np.float32), y1.astype(np.float32), np.tanh(x)]


@case("value-dependent-shapes")
def _():
    # Shapes only the run knows: NonZero's count (GatherND through it),
    # Compress by a computed mask, NMS of boxes by run-time scores, and an
    # If whose branches differ in shape. hx runs them in stages.
    x = rand(3, 4)
    boxes = np.array([[[0, 0, 1, 1], [0, 0.1, 1, 1.1], [0, -0.1, 1, 0.9], [0, 10, 1, 11],
                       [0, 10.1, 1, 11.1], [0, 100, 1, 101]]], np.float32)
    scores = np.array([[[0.9, 0.75, 0.6, 0.95, 0.5, 0.3]]], np.float32)
    then_g = branch("then", [node("Concat", ["x", "x"], ["t0"], axis=0)], ["t0"])
    else_g = branch("else", [node("Neg", ["x"], ["e0"])], ["e0"])
    nodes = [node("Greater", ["x", "zero"], ["pos"]), node("NonZero", ["pos"], ["nz"]),
             node("Transpose", ["nz"], ["idx"], perm=[1, 0]), node("GatherND", ["x", "idx"], ["y0"]),
             node("ReduceMax", ["x"], ["rmax"], axes=[1], keepdims=0), node("Greater", ["rmax", "half"], ["rows"]),
             node("Compress", ["x", "rows"], ["y1"], axis=0),
             node("NonMaxSuppression", ["boxes", "scores", "three", "iou", "zero"], ["y2"]),
             node("ReduceSum", ["x"], ["s"], keepdims=0), node("Greater", ["s", "zero"], ["c"]),
             helper.make_node("If", ["c"], ["y3"], name="/if/shapes", then_branch=then_g, else_branch=else_g)]
    inits = [init("zero", np.array(0, np.float32)), init("half", np.array(0.5, np.float32)),
             init("three", np.array([3], np.int64)), init("iou", np.array([0.5], np.float32))]
    y3 = np.concatenate([x, x]) if x.sum() > 0 else -x
    return nodes, {"x": x, "boxes": boxes, "scores": scores}, inits, [
        x[x > 0], x[x.max(axis=1) > 0.5], np.array([[0, 0, 3], [0, 0, 0], [0, 0, 5]], np.int64), y3]


@case("run-time-shapes")
def _():
    # Shape arithmetic on a shape only the run knows (NonZero's count):
    # Shape, Size, ConstantOfShape, Range, and a Reshape, Expand, Slice, Tile
    # and TopK whose shape operand is computed from it (shape_of and the
    # dyn.* operators; the run goes in stages).
    x = rand(3, 4)
    nodes = [node("Greater", ["x", "zero"], ["pos"]), node("NonZero", ["pos"], ["nz"]),
             node("Transpose", ["nz"], ["idx"], perm=[1, 0]), node("GatherND", ["x", "idx"], ["v"]),
             node("Shape", ["v"], ["sh"]), node("Gather", ["sh", "z64"], ["n"], axis=0),
             node("Unsqueeze", ["n", "ax0"], ["n1"]), node("Min", ["n1", "three"], ["k"]),
             node("TopK", ["v", "k"], ["tv", "ti"], axis=0), node("Gather", ["v", "ti"], ["g"], axis=0),
             node("ConstantOfShape", ["sh"], ["ones"], value=helper.make_tensor("one", TensorProto.FLOAT, [1], [1.0])),
             node("Range", ["z64", "n", "o64"], ["r"]),
             node("Concat", ["o1", "sh"], ["rs_shape"], axis=0), node("Reshape", ["v", "rs_shape"], ["rs"]),
             node("Concat", ["two", "sh"], ["ex_shape"], axis=0), node("Expand", ["rs", "ex_shape"], ["ex"]),
             node("Slice", ["v", "zero1", "k"], ["sl"]),
             node("Sub", ["sh", "sh"], ["zsh"]), node("Add", ["zsh", "two"], ["reps"]), node("Tile", ["v", "reps"], ["tl"]),
             node("Size", ["v"], ["size"])]
    inits = [init("zero", np.array(0, np.float32)), init("z64", np.array(0, np.int64)),
             init("o64", np.array(1, np.int64)), init("ax0", np.array([0], np.int64)),
             init("three", np.array([3], np.int64)), init("o1", np.array([1], np.int64)),
             init("two", np.array([2], np.int64)), init("zero1", np.array([0], np.int64))]
    v = x[x > 0]
    n, k = len(v), min(len(v), 3)
    tv = -np.sort(-v)[:k]
    return nodes, {"x": x}, inits, [tv, tv, np.ones(n, np.float32), np.arange(n, dtype=np.int64),
                                    np.broadcast_to(v.reshape(1, n), (2, n)), v[:k], np.tile(v, 2),
                                    np.array(n, np.int64)]


def to_bf16(x):
    """float32 rounded to the nearest bfloat16 (ties to even), as float32."""
    u = np.asarray(x, np.float32).view(np.uint32).astype(np.uint64)
    return (((u + 0x7fff + ((u >> 16) & 1)) >> 16) << 16).astype(np.uint32).view(np.float32)


@case("bfloat16-cast-mul", opset=13)
def _():
    x, w = rand(3, 4), to_bf16(rand(4))
    # onnx's helper writes the bits of each value (exact: w holds bfloat16s).
    wt = helper.make_tensor("w", TensorProto.BFLOAT16, [4], w.tolist())
    nodes = [node("Cast", ["x"], ["xb"], to=TensorProto.BFLOAT16), node("Mul", ["xb", "w"], ["m"]),
             node("Exp", ["m"], ["y"]), helper.make_node("Cast", ["y"], ["z"], name="/cast/back", to=TensorProto.FLOAT)]
    m = to_bf16(to_bf16(x) * w)
    y = to_bf16(np.exp(m.astype(np.float64)).astype(np.float32))
    return nodes, {"x": x}, [wt], [y]


def body_graph(name, nodes, inputs, outputs):
    """A Loop body: inputs and outputs as (name, elem type, shape)."""
    return helper.make_graph(nodes, name, [helper.make_tensor_value_info(*i) for i in inputs],
                             [helper.make_tensor_value_info(*o) for o in outputs])


@case("loop-unrolled")
def _():
    x = rand(3, 4)
    I64, B = TensorProto.INT64, TensorProto.BOOL
    # Carried acc += x * i, a scan output of each iteration's acc, the
    # condition i < 2 (folded at import): the loop of trip count 5 ends after
    # iteration 2.
    body = body_graph("body", [node("Cast", ["i"], ["i_f"], to=F32), node("Mul", ["x", "i_f"], ["s"]),
                               node("Add", ["acc", "s"], ["acc2"]), node("Less", ["i", "two"], ["c2"]),
                               node("Relu", ["acc2"], ["scan"])],
                      [("i", I64, []), ("c", B, []), ("acc", F32, [3, 4])],
                      [("c2", B, []), ("acc2", F32, [3, 4]), ("scan", F32, [3, 4])])
    nodes = [node("Neg", ["x"], ["acc0"]),
             helper.make_node("Loop", ["five", "yes", "acc0"], ["y", "ys"], name="/loop/Loop", body=body)]
    inits = [init("five", np.array(5, np.int64)), init("yes", np.array(True)), init("two", np.array(2, np.int64))]
    acc, ys = -x.astype(np.float64), []
    for i in range(3):
        acc = acc + x * i
        ys.append(np.maximum(acc, 0))
    return nodes, {"x": x}, inits, [acc.astype(np.float32), np.stack(ys).astype(np.float32)]


@case("loop-while")
def _():
    # A while loop: its trip count is a graph input and its condition comes
    # from the data, so only the run knows the iterations. The body reads x
    # and a limit computed from it in the enclosing graph (parameters of
    # the loop's global) and an initializer (a constant). v grows by half
    # plus a tenth of x until its size passes the limit; k counts.
    x = rand(3, 4)
    I64, B = TensorProto.INT64, TensorProto.BOOL
    body = body_graph("body", [node("Mul", ["v", "half"], ["v1"]), node("Mul", ["x", "tenth"], ["xt"]),
                               node("Add", ["v1", "xt"], ["v2"]), node("Abs", ["v2"], ["a"]),
                               node("ReduceSum", ["a"], ["size"], keepdims=0),
                               node("Less", ["size", "limit"], ["c2"]), node("Add", ["k", "one"], ["k2"])],
                      [("i", I64, []), ("c", B, []), ("v", F32, [3, 4]), ("k", F32, [])],
                      [("c2", B, []), ("v2", F32, [3, 4]), ("k2", F32, [])])
    nodes = [node("Abs", ["x"], ["ax"]), node("ReduceSum", ["ax"], ["sx"], keepdims=0),
             helper.make_node("Mul", ["sx", "eight"], ["limit"], name="/limit/Mul"),
             helper.make_node("Loop", ["n", "", "x", "zero"], ["y", "count"], name="/loop/Loop", body=body)]
    inits = [init("half", np.float32(1.5)), init("tenth", np.float32(0.1)), init("one", np.float32(1)),
             init("eight", np.float32(8)), init("zero", np.float32(0))]
    n = np.array(50, np.int64)
    v, k, limit = x.astype(np.float32), np.float32(0), np.abs(x).sum(dtype=np.float32) * np.float32(8)
    for _ in range(int(n)):
        v = v * np.float32(1.5) + x * np.float32(0.1)
        k += np.float32(1)
        if not np.abs(v).sum(dtype=np.float32) < limit:
            break
    # limit is an output too (no node of the graph itself reads it).
    return nodes, {"x": x, "n": n}, inits, [np.array(limit, np.float32), v, np.array(k, np.float32)]


@case("loop-while-scan")
def _():
    # A while loop with scan outputs, whose length only the run knows: v
    # grows as in loop-while until its size passes a limit; each iteration
    # gives relu(v) and its count.
    x = rand(3, 4)
    I64, B = TensorProto.INT64, TensorProto.BOOL
    body = body_graph("body", [node("Mul", ["v", "half"], ["v1"]), node("Add", ["v1", "x"], ["v2"]),
                               node("Abs", ["v2"], ["a"]), node("ReduceSum", ["a"], ["size"], keepdims=0),
                               node("Less", ["size", "limit"], ["c2"]), node("Relu", ["v2"], ["r"]),
                               node("Cast", ["i"], ["k"], to=F32)],
                      [("i", I64, []), ("c", B, []), ("v", F32, [3, 4])],
                      [("c2", B, []), ("v2", F32, [3, 4]), ("r", F32, [3, 4]), ("k", F32, [])])
    nodes = [node("Abs", ["x"], ["ax"]), node("ReduceSum", ["ax"], ["sx"], keepdims=0),
             helper.make_node("Mul", ["sx", "eight"], ["limit"], name="/limit/Mul"),
             helper.make_node("Loop", ["n", "", "x"], ["y", "rs", "ks"], name="/loop/Loop", body=body)]
    inits = [init("half", np.float32(1.5)), init("eight", np.float32(8))]
    n = np.array(50, np.int64)
    v, limit = x.astype(np.float32), np.abs(x).sum(dtype=np.float32) * np.float32(8)
    rs, ks = [], []
    for i in range(int(n)):
        v = v * np.float32(1.5) + x
        rs.append(np.maximum(v, 0))
        ks.append(np.float32(i))
        if not np.abs(v).sum(dtype=np.float32) < limit:
            break
    return nodes, {"x": x, "n": n}, inits, [np.array(limit, np.float32), v, np.stack(rs),
                                            np.array(ks, np.float32)]


@case("scan-unrolled", opset=16)
def _():
    # A running sum over the rows of x (a state), and per step the state
    # times the step's column of w (w scanned along axis 1, backwards); the
    # scan outputs stacked along axis 1, the second in reverse order.
    x, w = rand(4, 3), rand(3, 4)
    body = body_graph("body", [node("Add", ["s", "xr"], ["s2"]), node("Mul", ["s2", "wc"], ["p"]),
                               node("Neg", ["p"], ["q"])],
                      [("s", F32, [3]), ("xr", F32, [3]), ("wc", F32, [3])],
                      [("s2", F32, [3]), ("p", F32, [3]), ("q", F32, [3])])
    nodes = [helper.make_node("Scan", ["s0", "x", "w"], ["s", "ps", "qs"], name="/scan/Scan", body=body,
                              num_scan_inputs=2, scan_input_axes=[0, -1], scan_input_directions=[0, 1],
                              scan_output_axes=[1, -1], scan_output_directions=[0, 1])]
    s, ps = np.zeros(3), []
    for i in range(4):
        s = s + x[i]
        ps.append(s * w[:, 3 - i])
    qs = [-p for p in reversed(ps)]
    return (nodes, {"x": x, "w": w}, [init("s0", np.zeros(3, np.float32))],
            [s.astype(np.float32), np.stack(ps, 1).astype(np.float32), np.stack(qs, 1).astype(np.float32)])


def sigmoid(x):
    return 1 / (1 + np.exp(-x))


def recurrent_ref(kind, x, w, r, b, lens, hidden, reverse_dirs, h0=None):
    """ONNX's LSTM/GRU/RNN equations in NumPy (default activations, layout 0):
    Y [seq, dirs, batch, hidden] and Y_h [dirs, batch, hidden]; a step past a
    sequence's length keeps the state and outputs zeros."""
    seq, batch, _ = x.shape
    gates = {"LSTM": 4, "GRU": 3, "RNN": 1}[kind]
    y = np.zeros((seq, len(reverse_dirs), batch, hidden), np.float64)
    yh = np.zeros((len(reverse_dirs), batch, hidden), np.float64)
    for d, rev in enumerate(reverse_dirs):
        h = np.zeros((batch, hidden)) if h0 is None else h0[d].astype(np.float64)
        c = np.zeros((batch, hidden))
        wb, rb = b[d][:gates * hidden], b[d][gates * hidden:]
        for t in (range(seq - 1, -1, -1) if rev else range(seq)):
            xw = x[t] @ w[d].T + wb
            hr = h @ r[d].T + rb
            if kind == "LSTM":
                g = xw + hr
                i, o, f, cc = (g[:, k * hidden:(k + 1) * hidden] for k in range(4))
                cn = sigmoid(f) * c + sigmoid(i) * np.tanh(cc)
                hn = sigmoid(o) * np.tanh(cn)
            elif kind == "GRU":
                z = sigmoid(xw[:, :hidden] + hr[:, :hidden])
                rg = sigmoid(xw[:, hidden:2 * hidden] + hr[:, hidden:2 * hidden])
                hc = np.tanh(xw[:, 2 * hidden:] + (rg * h) @ r[d][2 * hidden:].T + rb[2 * hidden:])
                hn, cn = (1 - z) * hc + z * h, c
            else:
                hn, cn = np.tanh(xw + hr), c
            valid = (t < lens)[:, None]
            h, c = np.where(valid, hn, h), np.where(valid, cn, c)
            y[t, d] = np.where(valid, hn, 0)
        yh[d] = h
    return y.astype(np.float32), yh.astype(np.float32)


@case("recurrent-lens-directions", opset=14)
def _():
    seq, batch, inp, hid = 5, 3, 4, 6
    lens = np.array([5, 2, 4], np.int32)
    x = rand(seq, batch, inp)
    nodes, inits, expected = [], [init("lens", lens)], []
    for kind, gates, direction, rev in (("LSTM", 4, "bidirectional", [False, True]),
                                        ("GRU", 3, "reverse", [True]), ("RNN", 1, "forward", [False])):
        dirs = len(rev)
        w, r, b = rand(dirs, gates * hid, inp) * 0.5, rand(dirs, gates * hid, hid) * 0.5, rand(dirs, 2 * gates * hid) * 0.1
        k = kind.lower()
        inits += [init(k + "_w", w), init(k + "_r", r), init(k + "_b", b)]
        nodes.append(helper.make_node(kind, ["x", k + "_w", k + "_r", k + "_b", "lens"], [k + "_y", k + "_yh"],
                                      name="/" + kind, hidden_size=hid, direction=direction))
        expected += list(recurrent_ref(kind, x, w, r, b, lens, hid, rev))
    return nodes, {"x": x}, inits, expected


@case("lstm-batch-first-initial-state", opset=14)
def _():
    seq, batch, inp, hid = 3, 2, 5, 4
    x = rand(batch, seq, inp)
    w, r, b = rand(1, 4 * hid, inp) * 0.5, rand(1, 4 * hid, hid) * 0.5, rand(1, 8 * hid) * 0.1
    h0 = rand(batch, 1, hid)
    node_ = helper.make_node("LSTM", ["x", "w", "r", "b", "", "h0"], ["y", "yh"], name="/LSTM",
                             hidden_size=hid, layout=1)
    y, yh = recurrent_ref("LSTM", x.transpose(1, 0, 2), w, r, b, np.full(batch, seq), hid, [False],
                          h0=h0.transpose(1, 0, 2))
    return [node_], {"x": x, "h0": h0}, [init("w", w), init("r", r), init("b", b)], [
        y.transpose(2, 0, 1, 3), yh.transpose(1, 0, 2)]


@case("resize-axes-opset18", opset=18)
def _():
    x = rand(1, 2, 4, 3)
    nodes = [node("Resize", ["x", "", "", "sizes"], ["y"], axes=[2, 3], mode="nearest",
                  coordinate_transformation_mode="asymmetric", nearest_mode="floor"),
             helper.make_node("Resize", ["x", "", "", "sizes2"], ["z"], name="/resize/policy", axes=[3, 2],
                              mode="linear", keep_aspect_ratio_policy="not_larger")]
    rows, cols = np.arange(8) * 4 // 8, np.arange(6) * 3 // 6
    # not_larger: the smaller ratio (6/3 = 2 against 10/4) for both axes: 8x6,
    # half_pixel linear sampling at a ratio of exactly 2.
    def lin(v, n):
        c = np.clip((np.arange(2 * n) + 0.5) / 2 - 0.5, 0, n - 1)
        lo = np.floor(c).astype(int)
        hi = np.minimum(lo + 1, n - 1)
        w = c - lo
        return np.take(v, lo, axis=-1) * (1 - w) + np.take(v, hi, axis=-1) * w
    zh = lin(x.transpose(0, 1, 3, 2), 4).transpose(0, 1, 3, 2)  # along H
    z = lin(zh, 3)                                              # along W
    return nodes, {"x": x}, [init("sizes", np.array([8, 6], np.int64)), init("sizes2", np.array([6, 10], np.int64))], [
        x[:, :, rows][:, :, :, cols], z.astype(np.float32)]


def group_norm(x, groups, scale, bias, eps=1e-5):
    n, c = x.shape[:2]
    g = x.reshape(n, groups, -1).astype(np.float64)
    g = (g - g.mean(axis=2, keepdims=True)) / np.sqrt(g.var(axis=2, keepdims=True) + eps)
    shape = (1, c) + (1,) * (x.ndim - 2)
    return (g.reshape(x.shape) * scale.reshape(shape) + bias.reshape(shape)).astype(np.float32)


@case("groupnorm-opset18", opset=18)
def _():
    x, scale, bias = rand(2, 6, 3, 4), rand(3), rand(3)
    # Opset 18: scale and bias per group.
    nodes = [node("GroupNormalization", ["x", "s", "b"], ["y"], num_groups=3)]
    return nodes, {"x": x}, [init("s", scale), init("b", bias)], [
        group_norm(x, 3, np.repeat(scale, 2), np.repeat(bias, 2))]


@case("groupnorm-opset21", opset=21)
def _():
    x, scale, bias = rand(2, 6, 5), rand(6), rand(6)
    # Opset 21: per channel.
    nodes = [node("GroupNormalization", ["x", "s", "b"], ["y"], num_groups=2, epsilon=1e-3)]
    return nodes, {"x": x}, [init("s", scale), init("b", bias)], [group_norm(x, 2, scale, bias, 1e-3)]


def conv_transpose2d(x, w, b, strides, pads, dil, out_pad, group):
    """ONNX's ConvTranspose by scatter-adding each input element's window."""
    n, cin, h, wd = x.shape
    _, coutg, kh, kw = w.shape
    full_h = (h - 1) * strides[0] + (kh - 1) * dil[0] + 1 + out_pad[0]
    full_w = (wd - 1) * strides[1] + (kw - 1) * dil[1] + 1 + out_pad[1]
    out = np.zeros((n, coutg * group, full_h, full_w))
    cing = cin // group
    for g in range(group):
        for i in range(h):
            for j in range(wd):
                for a in range(kh):
                    for c in range(kw):
                        contrib = np.einsum("nc,co->no", x[:, g * cing:(g + 1) * cing, i, j],
                                            w[g * cing:(g + 1) * cing, :, a, c])
                        out[:, g * coutg:(g + 1) * coutg, i * strides[0] + a * dil[0], j * strides[1] + c * dil[1]] += contrib
    out = out[:, :, pads[0]:full_h - pads[2], pads[1]:full_w - pads[3]]
    if b is not None:
        out += b.reshape(1, -1, 1, 1)
    return out.astype(np.float32)


@case("convtranspose-groups-strides")
def _():
    x, w, b = rand(1, 4, 3, 4), rand(4, 3, 3, 2), rand(6)
    nodes = [node("ConvTranspose", ["x", "w", "b"], ["y"], strides=[2, 3], pads=[1, 0, 2, 1], group=2,
                  output_padding=[1, 2], dilations=[1, 1])]
    return nodes, {"x": x}, [init("w", w), init("b", b)], [
        conv_transpose2d(x, w, b, (2, 3), (1, 0, 2, 1), (1, 1), (1, 2), 2)]


@case("einsum-forms", opset=12)
def _():
    a, b = rand(2, 1, 3, 4), rand(5, 4, 2)
    q, k = rand(1, 2, 3, 4), rand(1, 2, 5, 4)
    m, n = rand(3, 4), rand(4, 2)
    nodes = [node("Einsum", ["a", "b"], ["y0"], equation="...ij,...jk->...ik"),
             helper.make_node("Einsum", ["q", "k"], ["y1"], name="/einsum/attention", equation="bhqd,bhkd->bhqk"),
             helper.make_node("Einsum", ["m", "n"], ["y2"], name="/einsum/implicit", equation="ij,jk")]
    return nodes, {"a": a, "b": b, "q": q, "k": k, "m": m, "n": n}, [], [
        np.einsum("...ij,...jk->...ik", a, b).astype(np.float32), np.einsum("bhqd,bhkd->bhqk", q, k).astype(np.float32),
        np.einsum("ij,jk", m, n).astype(np.float32)]


def build(name):
    fn, opset = CASES[name]
    nodes, inputs, inits, expected = fn()
    outs = [o for n in nodes for o in n.output if o]
    # Outputs are the values no node reads.
    read = {i for n in nodes for i in n.input}
    out_names = [o for o in outs if o not in read]
    assert len(out_names) == len(expected), (name, out_names)
    def vi(n, a):
        shape = list(a.shape)
        if name == "dynamic-batch":
            shape[0] = "batch"
        return helper.make_tensor_value_info(n, onnx.mapping.NP_TYPE_TO_TENSOR_TYPE[a.dtype], shape)
    graph = helper.make_graph(nodes, name, [vi(k, v) for k, v in inputs.items()],
                              [vi(o, np.asarray(e)) for o, e in zip(out_names, expected)],
                              initializer=inits)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)], producer_name="make-onnx.py")
    model.ir_version = 8
    if opset <= 17:
        # onnx 1.12 has schemas up to opset 17: newer models go unchecked.
        model = onnx.shape_inference.infer_shapes(model)
        onnx.checker.check_model(model)
    return model, inputs, expected


def write_bad(outdir):
    """Models hx must refuse with a clear error."""
    model, _, _ = build("conv-bias-relu")
    data = model.SerializeToString()
    open(os.path.join(outdir, "truncated.onnx"), "wb").write(data[: len(data) // 2])
    open(os.path.join(outdir, "corrupted.onnx"), "wb").write(b"\x08\x07\x12\xff\xff\xff\xff\x0fgarbage")
    for opset in (9, 22):
        m, _, _ = build("conv-bias-relu")
        m.opset_import[0].version = opset
        onnx.save(m, os.path.join(outdir, f"opset{opset}.onnx"))
    # Only a training domain's operators: no opset of the default domain.
    xa = helper.make_tensor_value_info("x", F32, [2])
    g = helper.make_graph([helper.make_node("Adagrad", ["r", "t", "x", "x", "x"], ["y", "z"], name="/adagrad/Adagrad",
                                            domain="ai.onnx.preview.training")], "adagrad",
                          [helper.make_tensor_value_info("r", F32, []), helper.make_tensor_value_info("t", TensorProto.INT64, []), xa],
                          [xa, xa])
    m = helper.make_model(g, opset_imports=[helper.make_opsetid("ai.onnx.preview.training", 1)])
    open(os.path.join(outdir, "no-default-opset.onnx"), "wb").write(m.SerializeToString())
    # Reshape whose shape is a graph input (as ONNX's node tests give it).
    xr = helper.make_tensor_value_info("x", F32, [2, 3])
    sr = helper.make_tensor_value_info("shape", TensorProto.INT64, [2])
    yr = helper.make_tensor_value_info("y", F32, ["a", "b"])
    g = helper.make_graph([node("Reshape", ["x", "shape"], ["y"])], "reshape", [xr, sr], [yr])
    onnx.save(helper.make_model(g, opset_imports=[helper.make_opsetid("", 13)]), os.path.join(outdir, "reshape-shape-input.onnx"))
    x = helper.make_tensor_value_info("x", F32, [1, 1, 4, 4])
    y = helper.make_tensor_value_info("y", F32, [1, 1, 8, 8])
    # Det: a valid model of an op type hx does not import.
    xd2 = helper.make_tensor_value_info("x", F32, [3, 2, 2])
    yd2 = helper.make_tensor_value_info("y", F32, [3])
    g = helper.make_graph([node("Det", ["x"], ["y"])], "unknown", [xd2], [yd2])
    onnx.save(helper.make_model(g, opset_imports=[helper.make_opsetid("", 13)]), os.path.join(outdir, "unknown-op.onnx"))
    # An experimental op type, which ONNX's checker warns about on stderr.
    g = helper.make_graph([node("Scale", ["x"], ["y"], scale=2.0)], "experimental", [x], [x])
    m = helper.make_model(g, opset_imports=[helper.make_opsetid("", 13)])
    open(os.path.join(outdir, "experimental-op.onnx"), "wb").write(m.SerializeToString())
    # A node the checker rejects: Relu with two inputs.
    g = helper.make_graph([helper.make_node("Relu", ["x", "x"], ["y"], name="/bad/Relu")], "invalid", [x], [x])
    m = helper.make_model(g, opset_imports=[helper.make_opsetid("", 13)])
    open(os.path.join(outdir, "invalid.onnx"), "wb").write(m.SerializeToString())
    # Weights kept in an external file that is not there.
    w = numpy_helper.from_array(rand(4, 3, 3, 3), "w")
    w.data_location = TensorProto.EXTERNAL
    w.ClearField("raw_data")
    entry = w.external_data.add()
    entry.key, entry.value = "location", "w.bin"
    xi = helper.make_tensor_value_info("x", F32, [1, 3, 5, 5])
    yo = helper.make_tensor_value_info("y", F32, [1, 4, 3, 3])
    g = helper.make_graph([node("Conv", ["x", "w"], ["y"])], "external", [xi], [yo], initializer=[w])
    m = helper.make_model(g, opset_imports=[helper.make_opsetid("", 13)])
    open(os.path.join(outdir, "external.onnx"), "wb").write(m.SerializeToString())
    # Reshape to a shape computed from a dynamic dim: not known at import.
    xd = helper.make_tensor_value_info("x", F32, ["batch", 6])
    yd = helper.make_tensor_value_info("y", F32, ["batch", 6])
    g = helper.make_graph([node("Shape", ["x"], ["s"]), node("Reshape", ["x", "s"], ["y"])], "dynshape", [xd], [yd])
    onnx.save(helper.make_model(g, opset_imports=[helper.make_opsetid("", 13)]), os.path.join(outdir, "dynamic-shape-op.onnx"))
    # A variadic input left empty (the checker allows it).
    xc = helper.make_tensor_value_info("x", F32, [2, 3])
    yc = helper.make_tensor_value_info("y", F32, [2, 3])
    g = helper.make_graph([node("Concat", ["", "x"], ["y"], axis=0)], "absent", [xc], [yc])
    m = helper.make_model(g, opset_imports=[helper.make_opsetid("", 13)])
    open(os.path.join(outdir, "absent-input.onnx"), "wb").write(m.SerializeToString())
    # Dropout asked to train: with a constant true flag, and with the flag an
    # input given at run time (as ONNX's test_training_dropout* give it).
    xt = helper.make_tensor_value_info("x", F32, [2, 3])
    mode = helper.make_tensor("mode", TensorProto.BOOL, [], [True])
    g = helper.make_graph([node("Dropout", ["x", "", "mode"], ["y"])], "training", [xt], [xt],
                          initializer=[mode])
    onnx.save(helper.make_model(g, opset_imports=[helper.make_opsetid("", 13)]), os.path.join(outdir, "dropout-training.onnx"))
    modein = helper.make_tensor_value_info("mode", TensorProto.BOOL, [])
    g = helper.make_graph([node("Dropout", ["x", "", "mode"], ["y"])], "training", [xt, modein], [xt])
    onnx.save(helper.make_model(g, opset_imports=[helper.make_opsetid("", 13)]), os.path.join(outdir, "dropout-runtime-mode.onnx"))
    # A string input, and a Cast to string: named as ONNX names the type.
    xs = helper.make_tensor_value_info("x", TensorProto.STRING, [2])
    g = helper.make_graph([node("Identity", ["x"], ["y"])], "strings", [xs], [xs])
    onnx.save(helper.make_model(g, opset_imports=[helper.make_opsetid("", 13)]), os.path.join(outdir, "string-input.onnx"))
    ys = helper.make_tensor_value_info("y", TensorProto.STRING, [2, 3])
    g = helper.make_graph([node("Cast", ["x"], ["y"], to=TensorProto.STRING)], "cast", [xt], [ys])
    onnx.save(helper.make_model(g, opset_imports=[helper.make_opsetid("", 13)]), os.path.join(outdir, "cast-string.onnx"))
    # Reductions, losses and Trilu hx cannot express: a class count only the
    # run knows, a Trilu of dims only the run knows, p=3, cropping pads, an
    # integer ReduceL2.
    def one(name, n, ins, out_shape, out_type=F32, inits=()):
        g = helper.make_graph([n], name, ins, [helper.make_tensor_value_info(n.output[0], out_type, out_shape)],
                              initializer=list(inits))
        onnx.save(helper.make_model(g, opset_imports=[helper.make_opsetid("", 14)]), os.path.join(outdir, name + ".onnx"))
    one("nll-dynamic-classes", node("NegativeLogLikelihoodLoss", ["x", "t"], ["y"]),
        [helper.make_tensor_value_info("x", F32, [2, "classes"]), helper.make_tensor_value_info("t", TensorProto.INT64, [2])], [])
    one("trilu-dynamic-dims", node("Trilu", ["x"], ["y"]), [helper.make_tensor_value_info("x", F32, ["n", 3])], ["n", 3])
    one("lpnorm-p3", node("LpNormalization", ["x"], ["y"], p=3), [helper.make_tensor_value_info("x", F32, [3, 3])], [3, 3])
    one("pad-negative", node("Pad", ["x", "pads"], ["y"]), [helper.make_tensor_value_info("x", F32, [3, 3])], [2, 4],
        inits=[init("pads", np.array([0, 1, -1, 0], np.int64))])
    one("reducel2-int", node("ReduceL2", ["x"], ["y"], axes=[1]), [helper.make_tensor_value_info("x", TensorProto.INT32, [3, 3])],
        [3, 1], TensorProto.INT32)
    one("maxunpool-small-shape", node("MaxUnpool", ["x", "i", "s"], ["y"], kernel_shape=[2, 2], strides=[2, 2]),
        [helper.make_tensor_value_info("x", F32, [1, 1, 2, 2]), helper.make_tensor_value_info("i", TensorProto.INT64, [1, 1, 2, 2])],
        [1, 1, 3, 3], inits=[init("s", np.array([1, 1, 3, 3], np.int64))])
    g = helper.make_graph([node("Cast", ["x"], ["y"], to=17)], "cast8", [helper.make_tensor_value_info("x", F32, [2])],
                          [helper.make_tensor_value_info("y", 17, [2])])
    onnx.save(helper.make_model(g, opset_imports=[helper.make_opsetid("", 19)]), os.path.join(outdir, "cast-float8.onnx"))
    # If: branches of two types at a run-time condition; If nested 20 deep;
    # a Loop.
    xc = helper.make_tensor_value_info("x", F32, [3, 4])
    cv = helper.make_tensor_value_info("c", TensorProto.BOOL, [])
    g = helper.make_graph([helper.make_node("If", ["c"], ["y"], name="/if/If",
                                            then_branch=branch("then", [node("Relu", ["x"], ["r"])], ["r"]),
                                            else_branch=branch("else", [node("ReduceSum", ["x"], ["t"], keepdims=0)], ["t"]))],
                          "if-types", [xc, cv], [helper.make_tensor_value_info("y", F32, [3, 4])])
    onnx.save(helper.make_model(g, opset_imports=[helper.make_opsetid("", 13)]), os.path.join(outdir, "if-branch-types.onnx"))
    body = branch("leaf", [node("Relu", ["x"], ["r0"])], ["r0"])
    for level in range(20):
        out = f"r{level + 1}"
        leaf = branch(f"leaf{level}", [node("Relu", ["x"], [f"l{level}"])], [f"l{level}"])
        body = branch(f"level{level}", [helper.make_node("If", ["c"], [out], name=f"/if{level}/If",
                                                          then_branch=body, else_branch=leaf)], [out])
    g = helper.make_graph(list(body.node), "if-deep", [xc, cv], [helper.make_tensor_value_info("r20", F32, [3, 4])])
    open(os.path.join(outdir, "if-deep.onnx"), "wb").write(
        helper.make_model(g, opset_imports=[helper.make_opsetid("", 13)]).SerializeToString())
    # The body's condition depends on the data (a while loop); and a trip
    # count beyond what hx unrolls.
    loop_body = helper.make_graph([node("Add", ["v_in", "v_in"], ["v_out"]), node("ReduceSum", ["v_out"], ["total"], keepdims=0),
                                   node("Less", ["total", "limit"], ["cond_out"])],
                                  "body", [helper.make_tensor_value_info("i", TensorProto.INT64, []),
                                           helper.make_tensor_value_info("cond_in", TensorProto.BOOL, []),
                                           helper.make_tensor_value_info("v_in", F32, [3, 4])],
                                  [helper.make_tensor_value_info("cond_out", TensorProto.BOOL, []),
                                   helper.make_tensor_value_info("v_out", F32, [3, 4])])
    # Loops nested 3 deep of 200 iterations each (8 million bodies).
    inner = body_graph("inner", [node("Identity", ["ci"], ["co"]), node("Relu", ["vi"], ["vo"])],
                       [("ii", TensorProto.INT64, []), ("ci", TensorProto.BOOL, []), ("vi", F32, [3, 4])],
                       [("co", TensorProto.BOOL, []), ("vo", F32, [3, 4])])
    for level in range(2):
        inner = body_graph(f"outer{level}", [node("Identity", [f"c{level}"], [f"co{level}"]),
                                             helper.make_node("Loop", ["n200", "yes", f"v{level}"], [f"vo{level}"],
                                                              name=f"/loop{level}/Loop", body=inner)],
                           [(f"i{level}", TensorProto.INT64, []), (f"c{level}", TensorProto.BOOL, []),
                            (f"v{level}", F32, [3, 4])],
                           [(f"co{level}", TensorProto.BOOL, []), (f"vo{level}", F32, [3, 4])])
    g = helper.make_graph([helper.make_node("Loop", ["n200", "yes", "x"], ["y"], name="/loop/Loop", body=inner)],
                          "loop-nested", [xc], [helper.make_tensor_value_info("y", F32, [3, 4])],
                          initializer=[init("n200", np.array(200, np.int64)), init("yes", np.array(True))])
    onnx.save(helper.make_model(g, opset_imports=[helper.make_opsetid("", 13)]), os.path.join(outdir, "loop-nested.onnx"))
    for name, trips in (("loop-while", 3), ("loop-long", 1000)):
        g = helper.make_graph([helper.make_node("Loop", ["n", "yes", "x"], ["y"], name="/loop/Loop", body=loop_body)],
                              "loop", [xc], [helper.make_tensor_value_info("y", F32, [3, 4])],
                              initializer=[init("n", np.array(trips, np.int64)), init("yes", np.array(True)),
                                           init("limit", np.array(100, np.float32))])
        onnx.save(helper.make_model(g, opset_imports=[helper.make_opsetid("", 13)]), os.path.join(outdir, name + ".onnx"))
    # A while loop hx refuses: its carried value changes shape (a Concat
    # grows it).
    gbody = body_graph("body", [node("Concat", ["vi", "vi"], ["vo"], axis=0), node("ReduceSum", ["vo"], ["t"], keepdims=0),
                                node("Less", ["t", "limit"], ["co"])],
                       [("ii", TensorProto.INT64, []), ("ci", TensorProto.BOOL, []), ("vi", F32, [3, 4])],
                       [("co", TensorProto.BOOL, []), ("vo", F32, [6, 4])])
    g = helper.make_graph([helper.make_node("Loop", ["n", "yes", "x"], ["y"], name="/loop/Loop", body=gbody)],
                          "loop", [xc], [helper.make_tensor_value_info("y", F32, [3, 4])],
                          initializer=[init("n", np.array(3, np.int64)), init("yes", np.array(True)),
                                       init("limit", np.array(100, np.float32))])
    onnx.save(helper.make_model(g, opset_imports=[helper.make_opsetid("", 13)]), os.path.join(outdir, "loop-while-grows.onnx"))
    # A Scan whose two scan inputs differ in length.
    sbody = body_graph("body", [node("Add", ["a", "b"], ["c"])], [("a", F32, [4]), ("b", F32, [4])],
                       [("c", F32, [4])])
    g = helper.make_graph([helper.make_node("Scan", ["x", "w"], ["y"], name="/scan/Scan", body=sbody,
                                            num_scan_inputs=2)],
                          "scan", [xc], [helper.make_tensor_value_info("y", F32, [3, 4])],
                          initializer=[init("w", rand(2, 4))])
    onnx.save(helper.make_model(g, opset_imports=[helper.make_opsetid("", 16)]), os.path.join(outdir, "scan-lengths.onnx"))
    one("lppool-3d", node("LpPool", ["x"], ["y"], kernel_shape=[2, 2, 2]),
        [helper.make_tensor_value_info("x", F32, [1, 1, 3, 3, 3])], [1, 1, 2, 2, 2])
    one("conv3d-dynamic", node("Conv", ["x", "w"], ["y"]), [helper.make_tensor_value_info("x", F32, ["n", 2, 3, 3, 3])],
        ["n", 1, 2, 2, 2], inits=[init("w", rand(1, 2, 2, 2, 2))])
    # Valid ONNX that hx's operators reject: a float64 convolution.
    xf = helper.make_tensor_value_info("x", TensorProto.DOUBLE, [1, 3, 5, 5])
    yf = helper.make_tensor_value_info("y", TensorProto.DOUBLE, [1, 4, 3, 3])
    wf = numpy_helper.from_array(rand(4, 3, 3, 3).astype(np.float64), "w")
    g = helper.make_graph([node("Conv", ["x", "w"], ["y"])], "f64", [xf], [yf], initializer=[wf])
    onnx.save(helper.make_model(g, opset_imports=[helper.make_opsetid("", 13)]), os.path.join(outdir, "conv-float64.onnx"))
    # Mod of floats with fmod 0 (ONNX defines floats' Mod with fmod 1 only),
    # and a BitShift whose direction ONNX does not define.
    g = helper.make_graph([node("Mod", ["x", "x"], ["y"])], "mod", [xt], [xt])
    onnx.save(helper.make_model(g, opset_imports=[helper.make_opsetid("", 13)]), os.path.join(outdir, "mod-float-fmod0.onnx"))
    xu = helper.make_tensor_value_info("x", TensorProto.UINT32, [2, 3])
    g = helper.make_graph([node("BitShift", ["x", "x"], ["y"], direction="UP")], "shift", [xu], [xu])
    m = helper.make_model(g, opset_imports=[helper.make_opsetid("", 13)])
    open(os.path.join(outdir, "bitshift-up.onnx"), "wb").write(m.SerializeToString())
    # Shrink of integers with a bound between two integers.
    xn = helper.make_tensor_value_info("x", TensorProto.INT32, [2, 3])
    yn = helper.make_tensor_value_info("y", TensorProto.INT32, [2, 3])
    g = helper.make_graph([node("Shrink", ["x"], ["y"], lambd=1.5)], "shrink", [xn], [yn])
    onnx.save(helper.make_model(g, opset_imports=[helper.make_opsetid("", 13)]), os.path.join(outdir, "shrink-int-half.onnx"))


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("outdir")
    ap.add_argument("--only")
    ap.add_argument("--check", metavar="HX_RUN")
    ap.add_argument("--bad", action="store_true", help="write the models hx must refuse instead")
    a, hxflags = ap.parse_known_args()
    a.hxflags = [f for f in hxflags if f != "--"]
    os.makedirs(a.outdir, exist_ok=True)
    if a.bad:
        write_bad(a.outdir)
        return
    failed = 0
    for name in sorted(CASES):
        if a.only and name != a.only:
            continue
        model, inputs, expected = build(name)
        stem = os.path.join(a.outdir, name)
        onnx.save(model, stem + ".onnx")
        args = []
        for k, v in inputs.items():
            np.save(f"{stem}.{k}.npy", v)
            args.append(f"--input={k}={stem}.{k}.npy")
        if not a.check:
            continue
        outdir = stem + ".out"
        r = subprocess.run([a.check, stem + ".onnx", *args, "--check", f"--output-dir={outdir}", *a.hxflags],
                           capture_output=True, text=True)
        if r.returncode != 0:
            print(f"{name}: FAIL (hx-run exit {r.returncode})\n{r.stderr}")
            failed += 1
            continue
        worst = 0.0
        for i, e in enumerate(expected):
            got = np.load(os.path.join(outdir, f"output_{i}.npy"))
            e = np.asarray(e)
            if got.shape != e.shape or got.dtype != e.dtype.type(0).dtype and e.dtype != np.float64:
                print(f"{name}: FAIL output {i}: hx {got.dtype}{got.shape}, NumPy {e.dtype}{e.shape}")
                failed += 1
                break
            err = np.abs(got.astype(np.float64) - e.astype(np.float64)).max() if e.size else 0.0
            worst = max(worst, err / max(1.0, np.abs(e.astype(np.float64)).max() if e.size else 1.0))
        else:
            ok = worst < 1e-4
            failed += not ok
            print(f"{name}: {'ok' if ok else 'FAIL'} ({len(expected)} outputs, max error {worst:.2e} against NumPy)")
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
