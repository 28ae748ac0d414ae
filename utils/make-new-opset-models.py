#!/usr/bin/env python3
"""Writes two models at opset 20, the default of current PyTorch exporters,
built with onnx's helper (Debian's onnx 1.12 knows schemas up to opset 17,
so its checker is not run), and their inputs:

    make-new-opset-models.py OUTDIR

  OUTDIR/resnet20.onnx       a ResNet-style network: convolutions, batch
                             norms, residual blocks (one downsampling with a
                             1x1 shortcut), global pooling, a Gemm head, and
                             a second head through ReduceMean whose axes are
                             an input (opset 18)
  OUTDIR/transformer20.onnx  a pre-norm transformer block: LayerNormalization,
                             q/k/v from Split's num_outputs (opset 18), causal
                             attention, Gelu(approximate="tanh") (opset 20),
                             and a ReduceMean with its axes an input
  OUTDIR/ops20.onnx          operators whose opset-18-to-20 forms onnx 1.12
                             cannot check: Resize by fractional scales
                             (linear with half_pixel_symmetric, cubic with
                             pytorch_half_pixel), LpPool with ceil_mode,
                             ScatterElements and ScatterND with min and max,
                             AffineGrid, ReduceMax and ReduceMin of bools
  OUTDIR/<model>.x.npy       the input x of each

Weights and inputs are drawn from fixed seeds, so the models are the same
on every machine; test/Import/Inputs/opset20/<model>/output_<i>.npy hold ONNX
Runtime's outputs for them (utils/ort-reference.py wrote them).
Needs Debian's /usr/bin/python3 (onnx, numpy).
"""
import os
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

OPSET = 20
F32 = TensorProto.FLOAT


class Graph:
    def __init__(self, seed):
        self.rng = np.random.default_rng(seed)
        self.nodes, self.inits = [], []
        self.count = 0

    def weight(self, name, shape, scale):
        self.inits.append(numpy_helper.from_array(
            (self.rng.standard_normal(shape) * scale).astype(np.float32), name))
        return name

    def const(self, name, value):
        self.inits.append(numpy_helper.from_array(np.asarray(value), name))
        return name

    def op(self, op_type, inputs, n_out=1, **attrs):
        self.count += 1
        outs = [f"{op_type.lower()}{self.count}_{i}" for i in range(n_out)]
        self.nodes.append(helper.make_node(op_type, inputs, outs, name=f"/{op_type}_{self.count}", **attrs))
        return outs[0] if n_out == 1 else outs

    def model(self, name, inputs, outputs):
        g = helper.make_graph(self.nodes, name, inputs, outputs, initializer=self.inits)
        m = helper.make_model(g, opset_imports=[helper.make_opsetid("", OPSET)],
                              producer_name="make-new-opset-models.py")
        m.ir_version = 9
        return m


def resnet():
    g = Graph(20)

    def conv_bn(x, cin, cout, k, stride, relu=True):
        w = g.weight(f"w{g.count}", (cout, cin, k, k), np.sqrt(2.0 / (cin * k * k)))
        y = g.op("Conv", [x, w], kernel_shape=[k, k], strides=[stride, stride],
                 pads=[k // 2] * 4)
        scale = g.const(f"s{g.count}", (1 + 0.1 * g.rng.standard_normal(cout)).astype(np.float32))
        bias = g.const(f"b{g.count}", (0.1 * g.rng.standard_normal(cout)).astype(np.float32))
        mean = g.const(f"m{g.count}", (0.1 * g.rng.standard_normal(cout)).astype(np.float32))
        var = g.const(f"v{g.count}", (0.5 + g.rng.random(cout)).astype(np.float32))
        y = g.op("BatchNormalization", [y, scale, bias, mean, var], epsilon=1e-5)
        return g.op("Relu", [y]) if relu else y

    def block(x, cin, cout, stride):
        y = conv_bn(x, cin, cout, 3, stride)
        y = conv_bn(y, cout, cout, 3, 1, relu=False)
        skip = x if stride == 1 and cin == cout else conv_bn(x, cin, cout, 1, stride, relu=False)
        return g.op("Relu", [g.op("Add", [y, skip])])

    y = conv_bn("x", 3, 16, 3, 1)
    y = g.op("MaxPool", [y], kernel_shape=[3, 3], strides=[2, 2], pads=[1, 1, 1, 1])
    y = block(y, 16, 16, 1)
    y = block(y, 16, 32, 2)
    pooled = g.op("Flatten", [g.op("GlobalAveragePool", [y])])
    logits = g.op("Gemm", [pooled, g.weight("fc_w", (10, 32), 0.2), g.weight("fc_b", (10,), 0.1)], transB=1)
    features = g.op("ReduceMean", [y, g.const("hw", np.array([2, 3], np.int64))], keepdims=0)
    x = helper.make_tensor_value_info("x", F32, [1, 3, 32, 32])
    outs = [helper.make_tensor_value_info(logits, F32, [1, 10]),
            helper.make_tensor_value_info(features, F32, [1, 32])]
    inputs = {"x": np.random.default_rng(21).standard_normal((1, 3, 32, 32)).astype(np.float32)}
    return g.model("resnet20", [x], outs), inputs


def transformer():
    g = Graph(30)
    seq, d, heads, ff = 8, 32, 4, 128
    dh = d // heads

    def ln(x):
        gamma = g.const(f"g{g.count}", (1 + 0.1 * g.rng.standard_normal(d)).astype(np.float32))
        beta = g.const(f"be{g.count}", (0.1 * g.rng.standard_normal(d)).astype(np.float32))
        return g.op("LayerNormalization", [x, gamma, beta], axis=-1, epsilon=1e-5)

    def linear(x, cin, cout):
        y = g.op("MatMul", [x, g.weight(f"w{g.count}", (cin, cout), 1 / np.sqrt(cin))])
        return g.op("Add", [y, g.weight(f"b{g.count}", (cout,), 0.02)])

    def heads_first(t):
        t = g.op("Reshape", [t, g.const(f"sh{g.count}", np.array([1, seq, heads, dh], np.int64))])
        return g.op("Transpose", [t], perm=[0, 2, 1, 3])

    h = ln("x")
    q, k, v = g.op("Split", [linear(h, d, 3 * d)], n_out=3, axis=-1, num_outputs=3)
    q, v = heads_first(q), heads_first(v)
    k = g.op("Transpose", [g.op("Reshape", [k, g.const("shk", np.array([1, seq, heads, dh], np.int64))])],
             perm=[0, 2, 3, 1])
    scores = g.op("Mul", [g.op("MatMul", [q, k]), g.const("scale", np.array(1 / np.sqrt(dh), np.float32))])
    mask = np.triu(np.full((seq, seq), -1e9, np.float32), 1)
    scores = g.op("Add", [scores, g.const("mask", mask)])
    att = g.op("MatMul", [g.op("Softmax", [scores], axis=-1), v])
    att = g.op("Reshape", [g.op("Transpose", [att], perm=[0, 2, 1, 3]),
                           g.const("shback", np.array([1, seq, d], np.int64))])
    x1 = g.op("Add", ["x", linear(att, d, d)])
    hidden = g.op("Gelu", [linear(ln(x1), d, ff)], approximate="tanh")
    y = g.op("Add", [x1, linear(hidden, ff, d)])
    ms = g.op("ReduceMean", [g.op("Mul", [y, y]), g.const("last", np.array([-1], np.int64))], keepdims=1)
    x = helper.make_tensor_value_info("x", F32, [1, seq, d])
    outs = [helper.make_tensor_value_info(y, F32, [1, seq, d]),
            helper.make_tensor_value_info(ms, F32, [1, seq, 1])]
    inputs = {"x": np.random.default_rng(31).standard_normal((1, seq, d)).astype(np.float32)}
    return g.model("transformer20", [x], outs), inputs


def ops20():
    g = Graph(40)
    r1 = g.op("Resize", ["x", "", g.const("s1", np.array([1, 1, 0.6, 1.7], np.float32))], mode="linear",
              coordinate_transformation_mode="half_pixel_symmetric")
    r2 = g.op("Resize", ["x", "", g.const("s2", np.array([1, 1, 1.3, 0.75], np.float32))], mode="cubic",
              coordinate_transformation_mode="pytorch_half_pixel")
    lp = g.op("LpPool", ["x"], kernel_shape=[2, 2], strides=[2, 2], ceil_mode=1, p=2)
    flat = g.op("Reshape", ["x", g.const("flat", np.array([3, 63], np.int64))])
    idx = g.const("idx", g.rng.integers(-63, 63, (3, 10)).astype(np.int64))
    upd = g.weight("upd", (3, 10), 1.0)
    se = g.op("ScatterElements", [flat, idx, upd], axis=1, reduction="max")
    tup = g.const("tup", np.array([[2], [0], [2], [-1]], np.int64))
    sn = g.op("ScatterND", [flat, tup, g.weight("rows", (4, 63), 1.0)], reduction="min")
    grid = g.op("AffineGrid", [g.weight("theta", (2, 2, 3), 0.5), g.const("size", np.array([2, 3, 4, 5], np.int64))],
                align_corners=0)
    positive = g.op("Greater", ["x", g.const("zero", np.array(0, np.float32))])
    anyp = g.op("ReduceMax", [positive, g.const("ax3", np.array([3], np.int64))], keepdims=0)
    allp = g.op("ReduceMin", [positive, g.const("ax2", np.array([2], np.int64))], keepdims=1)
    x = helper.make_tensor_value_info("x", F32, [1, 3, 7, 9])
    outs = [helper.make_tensor_value_info(r1, F32, [1, 3, 4, 15]),
            helper.make_tensor_value_info(r2, F32, [1, 3, 9, 6]),
            helper.make_tensor_value_info(lp, F32, [1, 3, 4, 5]),
            helper.make_tensor_value_info(se, F32, [3, 63]),
            helper.make_tensor_value_info(sn, F32, [3, 63]),
            helper.make_tensor_value_info(grid, F32, [2, 4, 5, 2]),
            helper.make_tensor_value_info(anyp, TensorProto.BOOL, [1, 3, 7]),
            helper.make_tensor_value_info(allp, TensorProto.BOOL, [1, 3, 1, 9])]
    inputs = {"x": np.random.default_rng(41).standard_normal((1, 3, 7, 9)).astype(np.float32)}
    return g.model("ops20", [x], outs), inputs


def main():
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    out = sys.argv[1]
    os.makedirs(out, exist_ok=True)
    for name, make in (("resnet20", resnet), ("transformer20", transformer), ("ops20", ops20)):
        model, inputs = make()
        onnx.save(model, os.path.join(out, name + ".onnx"))
        for k, v in inputs.items():
            np.save(os.path.join(out, f"{name}.{k}.npy"), v)


if __name__ == "__main__":
    main()
