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


@case("global-pools-flatten")
def _():
    x = rand(2, 3, 4, 5)
    nodes = [node("GlobalAveragePool", ["x"], ["a"]), node("Flatten", ["a"], ["y"]),
             node("GlobalMaxPool", ["x"], ["m"]), node("Flatten", ["x"], ["f"], axis=2)]
    return nodes, {"x": x}, [], [x.mean(axis=(2, 3)), x.max(axis=(2, 3), keepdims=True), x.reshape(6, 20)]


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


@case("dynamic-batch")
def _():
    x, w = rand(3, 5), rand(5, 2)
    return [node("MatMul", ["x", "w"], ["m"]), node("Relu", ["m"], ["y"])], {"x": x}, [init("w", w)], [
        np.maximum(x @ w, 0)]


def build(name):
    fn, opset = CASES[name]
    nodes, inputs, inits, expected = fn()
    outs = [o for n in nodes for o in n.output]
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
    model = onnx.shape_inference.infer_shapes(model)
    onnx.checker.check_model(model)
    return model, inputs, expected


def write_bad(outdir):
    """Models hx must refuse with a clear error."""
    model, _, _ = build("conv-bias-relu")
    data = model.SerializeToString()
    open(os.path.join(outdir, "truncated.onnx"), "wb").write(data[: len(data) // 2])
    open(os.path.join(outdir, "corrupted.onnx"), "wb").write(b"\x08\x07\x12\xff\xff\xff\xff\x0fgarbage")
    for opset in (9, 18):
        m, _, _ = build("conv-bias-relu")
        m.opset_import[0].version = opset
        onnx.save(m, os.path.join(outdir, f"opset{opset}.onnx"))
    x = helper.make_tensor_value_info("x", F32, [1, 1, 4, 4])
    y = helper.make_tensor_value_info("y", F32, [1, 1, 8, 8])
    g = helper.make_graph([node("DepthToSpace", ["x"], ["y"], blocksize=2)], "unknown", [x], [y])
    # DepthToSpace needs 4 channels for blocksize 2: make it valid.
    x4 = helper.make_tensor_value_info("x", F32, [1, 4, 2, 2])
    y4 = helper.make_tensor_value_info("y", F32, [1, 1, 4, 4])
    g = helper.make_graph([node("DepthToSpace", ["x"], ["y"], blocksize=2)], "unknown", [x4], [y4])
    onnx.save(helper.make_model(g, opset_imports=[helper.make_opsetid("", 13)]), os.path.join(outdir, "unknown-op.onnx"))
    # An experimental op type, which ONNX's checker warns about on stderr.
    g = helper.make_graph([node("Scale", ["x"], ["y"], scale=2.0)], "experimental", [x], [x])
    m = helper.make_model(g, opset_imports=[helper.make_opsetid("", 13)])
    open(os.path.join(outdir, "experimental-op.onnx"), "wb").write(m.SerializeToString())
    # A node the checker rejects: Relu with two inputs.
    g = helper.make_graph([helper.make_node("Relu", ["x", "x"], ["y"], name="/bad/Relu")], "invalid", [x], [x])
    m = helper.make_model(g, opset_imports=[helper.make_opsetid("", 13)])
    open(os.path.join(outdir, "invalid.onnx"), "wb").write(m.SerializeToString())
    # Weights kept in an external file.
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
