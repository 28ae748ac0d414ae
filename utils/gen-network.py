#!/usr/bin/env python3
"""Writes a real-network-style module for hx, without NumPy or TVM.

    gen-network.py KIND OUT.ir [--form params|hx|tvm] [--size ci|full]
                   [--data-dir DIR] [--seed N]

KIND is one of
  resnet     ResNet-18-style: 7x7 stem, 4 stages of 2 basic blocks with
             batch_norm and residual adds, global pool, dense classifier.
  mobilenet  MobileNet-v1-style: depthwise (grouped) 3x3 + pointwise 1x1
             convolutions with batch_norm and relu6 (clip).
  resnet50   ResNet-50: 7x7 stem, bottleneck blocks (1x1, 3x3, 1x1, x4
             expansion) in stages of 3, 4, 6, 3.
  resnext50  ResNeXt-50 32x4d: ResNet-50 with 32 groups of 4 channels per
             stage width in its 3x3 convolutions (ci: 2 groups).
  mobilenetv2  MobileNetV2: inverted residual blocks (1x1 expansion x6,
             depthwise 3x3, 1x1 projection, residual adds), relu6, a 1x1
             to 1280 before the classifier.
  gpt        A GPT-style block: token embedding (take) and positions
             (strided_slice), layer_norm, causal self-attention with
             batch_matmul and softmax, an erf-based GELU MLP, tied logits.
  gpt2       GPT-2 small at TVM's test shape (full: 32 sequences of 50
             tokens, width 768, 12 heads, 12 blocks), the same blocks, up to
             the final layer_norm.
  gpt2block  One of those blocks at the same shape, with the embedding and
             the final layer_norm.
  bert       One BERT-base encoder layer (post-norm; full: 128 tokens,
             width 768, 12 heads), the hidden states as input; no devices.
  mlp        Ten dense layers with relu (full: width 1024, batch 64); no
             devices.
  lstm       One LSTM step: gates from two dense layers, split, sigmoid and
             tanh, the new (h, c).

Each network is annotated heterogeneously as a TVM user would: the body on
cuda, the tail (classifier, cell update) or the embedding on cpu. --form
says where the weights live:
  params  parameters of @main; their values go to DIR/NAME.npy (hx-run --params DIR)
  hx      hx's "relay.Constant" table, base64 inline
  tvm     TVM's own #[metadata] object graph (b64ndarrays in TVM's NDArray
          format, VirtualDevice objects), as astext(show_meta_data=True)
          writes it
The non-weight inputs (image, tokens, state) are always written to
DIR/NAME.npy too, so `hx-run OUT.ir --params DIR` runs every form on the
same values. --size ci shrinks spatial sizes and widths so the reference
interpreter checks the network in seconds; --size full is the real shape
(ResNet-18 at 1x3x224x224) for bench/.

Weights are seeded uniform values scaled by 1/sqrt(fan_in): deterministic,
and activations stay in range through every layer.
"""
import argparse
import array
import base64
import math
import os
import random
import struct
import sys

DTYPES = {"float32": ("<f4", "f", 2, 32), "int32": ("<i4", "i", 0, 32)}


def npy_bytes(dtype, shape, data):
    descr = DTYPES[dtype][0]
    shape_text = "(" + ", ".join(str(d) for d in shape) + ("," if len(shape) == 1 else "") + ")"
    header = "{'descr': '%s', 'fortran_order': False, 'shape': %s, }" % (descr, shape_text)
    pad = 64 - (10 + len(header) + 1) % 64
    header = header + " " * pad + "\n"
    return b"\x93NUMPY\x01\x00" + struct.pack("<H", len(header)) + header.encode() + data


def tvm_ndarray(dtype, shape, data):
    _, _, code, bits = DTYPES[dtype]
    out = struct.pack("<QQiii", 0xDD5E40F096B4A13F, 0, 1, 0, len(shape))
    out += struct.pack("<BBH", code, bits, 1)
    out += b"".join(struct.pack("<q", d) for d in shape)
    return out + struct.pack("<q", len(data)) + data


def type_text(dtype, shape):
    dims = ", ".join(str(d) for d in shape) + ("," if len(shape) == 1 else "")
    return f"Tensor[({dims}), {dtype}]"


class Net:
    """A module under construction: bindings, parameters and weights."""

    def __init__(self, form, rng):
        self.form, self.rng = form, rng
        self.lines, self.count = [], 0
        self.inputs = []   # (name, dtype, shape, bytes): parameters fed from DIR
        self.weights = []  # (name, dtype, shape, bytes)

    def bind(self, text):
        name = f"%{self.count}"
        self.count += 1
        self.lines.append(f"  {name} = {text};")
        return name

    def input(self, name, dtype, shape, values):
        data = array.array(DTYPES[dtype][1], values).tobytes()
        self.inputs.append((name, dtype, shape, data))
        return "%" + name

    def weight(self, name, shape, kind="fan_in", fan_in=None):
        n = math.prod(shape)
        r = self.rng
        if kind == "fan_in":
            a = math.sqrt(3.0 / (fan_in or math.prod(shape[1:]) or 1))
            values = [r.uniform(-a, a) for _ in range(n)]
        elif kind == "small":
            values = [r.uniform(-0.1, 0.1) for _ in range(n)]
        elif kind == "gamma":
            values = [1.0 + r.uniform(-0.1, 0.1) for _ in range(n)]
        elif kind == "var":
            values = [1.0 + r.uniform(0.0, 0.2) for _ in range(n)]
        else:  # an explicit list
            values = kind
        data = array.array("f", values).tobytes()
        self.weights.append((name, "float32", shape, data))
        if self.form == "params":
            return "%" + name
        return f"meta[relay.Constant][{len(self.weights) - 1}]"

    def module(self, result):
        params = [f"%{n}: {type_text(d, s)}" for n, d, s, _ in self.inputs]
        if self.form == "params":
            params += [f"%{n}: {type_text(d, s)}" for n, d, s, _ in self.weights]
        text = ['#[version = "0.0.5"]', "def @main(" + ", ".join(params) + ") {"]
        text += self.lines + ["  " + result, "}"]
        return "\n".join(text) + "\n" + self.metadata()

    def metadata(self):
        if self.form == "tvm":
            return "#[metadata]\n" + tvm_graph(self.weights) + "\n"
        out = ['#[metadata]', '{', '  "VirtualDevice": [',
               '    {"device_type": "cuda", "virtual_device_id": 0, "target": "cuda"},',
               '    {"device_type": "cpu", "virtual_device_id": 0, "target": "llvm"}',
               '  ]' + ("," if self.form == "hx" else "")]
        if self.form == "hx":
            out.append('  "relay.Constant": [')
            for i, (_, d, s, data) in enumerate(self.weights):
                sep = "," if i + 1 < len(self.weights) else ""
                out.append(f'    {{"dtype": "{d}", "shape": [{", ".join(map(str, s))}], '
                           f'"data": "{base64.b64encode(data).decode()}"}}{sep}')
            out.append("  ]")
        out.append("}")
        return "\n".join(out) + "\n"


def tvm_graph(weights):
    """TVM's SaveJSON object graph: [0] cuda and [1] cpu VirtualDevices, then
    the constants, each with its checked type."""
    nodes = [{"type_key": ""}, None, None]  # null, root map, device array
    def add(node):
        nodes.append(node)
        return len(nodes) - 1
    def string(text=None):
        return add({"type_key": "runtime.String", **({"repr_str": text} if text else {})})
    llvm_kind = add({"type_key": "TargetKind", "repr_str": "llvm"})
    def target(kind_node, keys, host):
        return add({"type_key": "Target", "attrs": {
            "attrs": str(add({"type_key": "Map"})), "features": str(add({"type_key": "Map"})),
            "host": str(host), "keys": str(add({"type_key": "Array",
                                                "data": [string(k) for k in keys]})),
            "kind": str(kind_node), "tag": str(string())}})
    llvm = target(llvm_kind, ["cpu"], 0)
    cuda = target(add({"type_key": "TargetKind", "repr_str": "cuda"}), ["cuda", "gpu"], llvm)
    def device(type_int, tgt):
        return add({"type_key": "VirtualDevice", "attrs": {
            "device_type_int": str(type_int), "memory_scope": str(string()),
            "target": str(tgt), "virtual_device_id": "0" if type_int > 0 else "-1"}})
    devices = [device(2, cuda), device(1, llvm)]
    nodes[2] = {"type_key": "Array", "data": devices}
    free = device(-1, 0)
    constants, arrays = [], []
    for _, dtype, shape, data in weights:
        dims = [add({"type_key": "IntImm", "attrs": {"dtype": "int32", "span": "0",
                                                     "value": str(d)}}) for d in shape]
        shape_node = add({"type_key": "Array", **({"data": dims} if dims else {})})
        ty = add({"type_key": "relay.TensorType", "attrs": {"dtype": dtype,
                                                             "shape": str(shape_node),
                                                             "span": "0"}})
        arrays.append(base64.b64encode(tvm_ndarray(dtype, shape, data)).decode())
        constants.append(add({"type_key": "relay.Constant", "attrs": {
            "_checked_type_": str(ty), "data": str(len(arrays) - 1), "span": "0",
            "virtual_device_": str(free)}}))
    table = add({"type_key": "Array", "data": constants})
    nodes[1] = {"type_key": "Map", "keys": ["VirtualDevice", "relay.Constant"],
                "data": [2, table]}
    import json
    return json.dumps({"root": 1, "nodes": nodes, "b64ndarrays": arrays,
                       "attrs": {"tvm_version": "0.19.0"}}, indent=2)


CUDA, CPU = "meta[VirtualDevice][0]", "meta[VirtualDevice][1]"


# --tail-only: only the cpu tail is annotated (the body's cuda annotations
# are left out); plan with --default-device=cuda to ask where the body goes.
TAIL_ONLY = False


def on(net, x, dev):
    if TAIL_ONLY and dev == CUDA:
        return x
    return net.bind(f"on_device({x}, virtual_device={dev})")


def conv_bn(net, x, name, cin, cout, k, stride, groups=1, relu="relu"):
    w = net.weight(f"{name}_weight", [cout, cin // groups, k, k])
    pad = k // 2
    y = net.bind(f"nn.conv2d({x}, {w}, strides=[{stride}, {stride}], padding=[{pad}, {pad}, "
                 f"{pad}, {pad}], groups={groups}, channels={cout}, kernel_size=[{k}, {k}])")
    g = net.weight(f"{name}_gamma", [cout], "gamma")
    b = net.weight(f"{name}_beta", [cout], "small")
    m = net.weight(f"{name}_mean", [cout], "small")
    v = net.weight(f"{name}_var", [cout], "var")
    bn = net.bind(f"nn.batch_norm({y}, {g}, {b}, {m}, {v})")
    y = net.bind(f"{bn}.0")
    if relu == "relu":
        y = net.bind(f"nn.relu({y})")
    elif relu == "relu6":
        y = net.bind(f"clip({y}, a_min=0f, a_max=6f)")
    return y


def classifier(net, x, channels, classes):
    x = net.bind(f"nn.global_avg_pool2d({x})")
    x = on(net, net.bind(f"nn.batch_flatten({x})"), CUDA)
    w = net.weight("fc_weight", [classes, channels])
    b = net.weight("fc_bias", [classes], "small")
    x = net.bind(f"nn.dense({x}, {w}, units={classes})")
    x = net.bind(f"nn.bias_add({x}, {b})")
    return f"on_device(nn.softmax({x}), virtual_device={CPU})"


def image_input(net, image):
    """The 1x3xIMAGExIMAGE input `data`, uniform in [-1, 1]."""
    rng = net.rng
    return net.input("data", "float32", [1, 3, image, image],
                     [rng.uniform(-1, 1) for _ in range(3 * image * image)])


def resnet_stem(net, x, cout):
    """ResNet's 7x7/2 convolution and 3x3/2 max pool."""
    x = conv_bn(net, x, "stem", 3, cout, 7, 2)
    return net.bind(f"nn.max_pool2d({x}, pool_size=[3, 3], strides=[2, 2], "
                    f"padding=[1, 1, 1, 1])")


def residual(net, x, y, name, cin, cout, stride):
    """relu(y + x), x projected by a 1x1 convolution where the shape changes."""
    if stride != 1 or cin != cout:
        x = conv_bn(net, x, name + "_down", cin, cout, 1, stride, relu=None)
    return net.bind(f"nn.relu({net.bind(f'add({y}, {x})')})")


def resnet(net, size):
    image, widths, classes = (224, [64, 128, 256, 512], 1000) if size == "full" else \
        (32, [8, 16, 32, 64], 10)
    x = image_input(net, image)
    x = resnet_stem(net, x, widths[0])
    cin = widths[0]
    for s, cout in enumerate(widths):
        for b in range(2):
            stride = 2 if s > 0 and b == 0 else 1
            name = f"layer{s + 1}_{b}"
            y = conv_bn(net, x, name + "_conv1", cin, cout, 3, stride)
            y = conv_bn(net, y, name + "_conv2", cout, cout, 3, 1, relu=None)
            x = residual(net, x, y, name, cin, cout, stride)
            cin = cout
    return classifier(net, x, cin, classes)


def mobilenet(net, size):
    image, scale, classes = (224, 1, 1000) if size == "full" else (32, 8, 10)
    x = image_input(net, image)
    c = 32 // scale
    x = conv_bn(net, x, "stem", 3, c, 3, 2, relu="relu6")
    blocks = [(64, 1), (128, 2), (128, 1), (256, 2), (256, 1), (512, 2), (512, 1), (1024, 2),
              (1024, 1)]
    for i, (out, stride) in enumerate(blocks):
        out //= scale
        x = conv_bn(net, x, f"block{i}_dw", c, c, 3, stride, groups=c, relu="relu6")
        x = conv_bn(net, x, f"block{i}_pw", c, out, 1, 1, relu="relu6")
        c = out
    return classifier(net, x, c, classes)


def bottleneck_net(net, size, groups, width_per_group):
    """ResNet-50 (groups 1, width 64) or ResNeXt-50 (32 groups of 4), as
    torchvision builds them: stride on the 3x3, projection on the shortcut
    where the shape changes."""
    image, scale, classes = (224, 1, 1000) if size == "full" else (32, 8, 10)
    if size != "full" and groups > 1:
        groups, width_per_group = 2, 64
    x = image_input(net, image)
    cin = 64 // scale
    x = resnet_stem(net, x, cin)
    for s, (blocks, planes) in enumerate(zip([3, 4, 6, 3], [64, 128, 256, 512])):
        planes //= scale
        width = planes * width_per_group // 64 * groups
        out = planes * 4
        for b in range(blocks):
            stride = 2 if s > 0 and b == 0 else 1
            name = f"layer{s + 1}_{b}"
            y = conv_bn(net, x, name + "_conv1", cin, width, 1, 1)
            y = conv_bn(net, y, name + "_conv2", width, width, 3, stride, groups=groups)
            y = conv_bn(net, y, name + "_conv3", width, out, 1, 1, relu=None)
            x = residual(net, x, y, name, cin, out, stride)
            cin = out
    return classifier(net, x, cin, classes)


def resnet50(net, size):
    return bottleneck_net(net, size, 1, 64)


def resnext50(net, size):
    return bottleneck_net(net, size, 32, 4)


def mobilenetv2(net, size):
    image, scale, classes = (224, 1, 1000) if size == "full" else (32, 8, 10)
    x = image_input(net, image)
    c = 32 // scale
    x = conv_bn(net, x, "stem", 3, c, 3, 2, relu="relu6")
    # (expansion, output channels, blocks, stride of the first)
    settings = [(1, 16, 1, 1), (6, 24, 2, 2), (6, 32, 3, 2), (6, 64, 4, 2), (6, 96, 3, 1),
                (6, 160, 3, 2), (6, 320, 1, 1)]
    i = 0
    for t, out, n, first_stride in settings:
        out = max(2, out // scale)
        for b in range(n):
            stride = first_stride if b == 0 else 1
            hidden = c * t
            name = f"block{i}"
            y = x
            if t != 1:
                y = conv_bn(net, y, name + "_expand", c, hidden, 1, 1, relu="relu6")
            y = conv_bn(net, y, name + "_dw", hidden, hidden, 3, stride, groups=hidden,
                        relu="relu6")
            y = conv_bn(net, y, name + "_project", hidden, out, 1, 1, relu=None)
            x = net.bind(f"add({y}, {x})") if stride == 1 and c == out else y
            c = out
            i += 1
    last = 1280 // scale
    x = conv_bn(net, x, "last", c, last, 1, 1, relu="relu6")
    return classifier(net, x, last, classes)


def layer_norm(net, x, name, d):
    g = net.weight(f"{name}_gamma", [d], "gamma")
    b = net.weight(f"{name}_beta", [d], "small")
    return net.bind(f"nn.layer_norm({x}, {g}, {b})")


def dense(net, x, name, din, dout):
    w = net.weight(f"{name}_weight", [dout, din])
    b = net.weight(f"{name}_bias", [dout], "small")
    return net.bind(f"nn.bias_add({net.bind(f'nn.dense({x}, {w}, units={dout})')}, {b}, axis=-1)")


def split_heads(net, qkv, d, heads, t, seqs=None):
    """q, k and v out of one [tokens, 3d] projection, each [heads, t, d /
    heads] (with seqs: [seqs * heads, t, d / heads])."""
    hd = d // heads
    parts = []
    for p in range(3):
        s = net.bind(f"strided_slice({qkv}, begin=[{p * d}], end=[{(p + 1) * d}], "
                     f"strides=[1], axes=[1])")
        if seqs is None:
            s = net.bind(f"reshape({s}, newshape=[{t}, {heads}, {hd}])")
            parts.append(net.bind(f"transpose({s}, axes=[1, 0, 2])"))
        else:
            s = net.bind(f"reshape({s}, newshape=[{seqs}, {t}, {heads}, {hd}])")
            s = net.bind(f"transpose({s}, axes=[0, 2, 1, 3])")
            parts.append(net.bind(f"reshape({s}, newshape=[{seqs * heads}, {t}, {hd}])"))
    return parts


def gpt_block(net, x, l, d, heads, mask, seqs=None, t=None):
    """One pre-norm transformer block over x: [tokens, d]. With seqs, the
    tokens are seqs sequences of t, attended to each on its own."""
    hd = d // heads
    h = layer_norm(net, x, f"h{l}_ln1", d)
    q, k, v = split_heads(net, dense(net, h, f"h{l}_attn", d, 3 * d), d, heads, t, seqs)
    scores = net.bind(f"nn.batch_matmul({q}, {k})")
    scores = net.bind(f"multiply({scores}, {1 / math.sqrt(hd):.9g}f)")
    att = net.bind(f"nn.softmax(add({scores}, {mask}), axis=-1)")
    vt = net.bind(f"transpose({v}, axes=[0, 2, 1])")
    o = net.bind(f"nn.batch_matmul({att}, {vt})")
    if seqs is None:
        o = net.bind(f"reshape(transpose({o}, axes=[1, 0, 2]), newshape=[{t}, {d}])")
    else:
        o = net.bind(f"reshape({o}, newshape=[{seqs}, {heads}, {t}, {hd}])")
        o = net.bind(f"reshape(transpose({o}, axes=[0, 2, 1, 3]), newshape=[{seqs * t}, {d}])")
    x = net.bind(f"add({x}, {dense(net, o, f'h{l}_proj', d, d)})")
    h = layer_norm(net, x, f"h{l}_ln2", d)
    h = dense(net, h, f"h{l}_fc", d, 4 * d)
    erf = net.bind(f"erf(multiply({h}, 0.70710678f))")
    h = net.bind(f"multiply(multiply({h}, 0.5f), add({erf}, 1f))")
    return net.bind(f"add({x}, {dense(net, h, f'h{l}_out', 4 * d, d)})")


def causal_mask(net, t):
    return net.weight("causal_mask", [t, t],
                      [0.0 if j <= i else -1e9 for i in range(t) for j in range(t)])


def gpt_trunk(net, seqs, t, d, heads, vocab, maxlen, layers):
    """Token and position embedding (on the cpu), the blocks (cuda) and the
    final layer_norm over `seqs` sequences of `t` tokens; returns it and the
    embedding table. One sequence keeps the single-sequence attention form."""
    rng = net.rng
    tokens = net.input("tokens", "int32", [seqs, t],
                       [rng.randrange(vocab) for _ in range(seqs * t)])
    wte = net.weight("wte", [vocab, d], "small")
    wpe = net.weight("wpe", [maxlen, d], "small")
    x = on(net, net.bind(f"take({wte}, {tokens}, axis=0)"), CPU)
    pos = net.bind(f"strided_slice({wpe}, begin=[0], end=[{t}], strides=[1])")
    x = net.bind(f"reshape(add({x}, {pos}), newshape=[{seqs * t}, {d}])")
    mask = causal_mask(net, t)
    for l in range(layers):
        x = gpt_block(net, x, l, d, heads, mask, seqs=seqs if seqs > 1 else None, t=t)
    return on(net, layer_norm(net, x, "ln_f", d), CUDA), wte


def gpt(net, size):
    t, d, heads, vocab, maxlen, layers = (64, 256, 4, 1000, 128, 2) if size == "full" else \
        (8, 32, 2, 64, 16, 1)
    x, wte = gpt_trunk(net, 1, t, d, heads, vocab, maxlen, layers)
    return f"nn.dense({x}, {wte}, units={vocab})"


def gpt2(net, size):
    # GPT-2 small at TVM's test shape (32 sequences of 50 tokens, width 768,
    # 12 heads, 12 blocks: 274 GFLOP), up to the final layer_norm; the
    # embedding table is cut to 1000 tokens (a lookup, no arithmetic).
    seqs, t, d, heads, vocab, maxlen, layers = (32, 50, 768, 12, 1000, 64, 12) \
        if size == "full" else (2, 5, 32, 2, 64, 8, 1)
    return gpt_trunk(net, seqs, t, d, heads, vocab, maxlen, layers)[0]


def gpt2block(net, size):
    # One GPT-2 block at TVM's test shape (32 sequences of 50 tokens, width
    # 768, 12 heads), with the embedding and the final layer_norm.
    seqs, t, d, heads, vocab, maxlen = (32, 50, 768, 12, 1000, 64) if size == "full" else \
        (2, 5, 32, 2, 64, 8)
    return gpt_trunk(net, seqs, t, d, heads, vocab, maxlen, 1)[0]


def bert(net, size):
    # One BERT-base encoder layer (post-norm) over one sequence: 128 tokens,
    # width 768, 12 heads, a 3072-wide erf GELU MLP; the hidden states are
    # the input (data).
    t, d, heads = (128, 768, 12) if size == "full" else (8, 32, 2)
    hd = d // heads
    rng = net.rng
    x = net.input("data", "float32", [t, d], [rng.uniform(-1, 1) for _ in range(t * d)])
    q, k, v = split_heads(net, dense(net, x, "attn", d, 3 * d), d, heads, t)
    scores = net.bind(f"multiply(nn.batch_matmul({q}, {k}), {1 / math.sqrt(hd):.9g}f)")
    att = net.bind(f"nn.softmax({scores}, axis=-1)")
    o = net.bind(f"nn.batch_matmul({att}, transpose({v}, axes=[0, 2, 1]))")
    o = net.bind(f"reshape(transpose({o}, axes=[1, 0, 2]), newshape=[{t}, {d}])")
    x = layer_norm(net, net.bind(f"add({x}, {dense(net, o, 'proj', d, d)})"), "ln1", d)
    h = dense(net, x, "fc", d, 4 * d)
    erf = net.bind(f"erf(multiply({h}, 0.70710678f))")
    h = net.bind(f"multiply(multiply({h}, 0.5f), add({erf}, 1f))")
    return layer_norm(net, net.bind(f"add({x}, {dense(net, h, 'out', 4 * d, d)})"), "ln2", d)


def mlp(net, size):
    # Ten dense layers of width 1024 over a batch of 64, relu between them.
    batch, d, layers = (64, 1024, 10) if size == "full" else (4, 32, 3)
    rng = net.rng
    x = net.input("data", "float32", [batch, d], [rng.uniform(-1, 1) for _ in range(batch * d)])
    for l in range(layers):
        x = dense(net, x, f"fc{l}", d, d)
        if l + 1 < layers:
            x = net.bind(f"nn.relu({x})")
    return x


def lstm(net, size):
    inp, hid = (256, 512) if size == "full" else (16, 32)
    rng = net.rng
    x = net.input("x", "float32", [1, inp], [rng.uniform(-1, 1) for _ in range(inp)])
    h = net.input("h", "float32", [1, hid], [rng.uniform(-1, 1) for _ in range(hid)])
    c = net.input("c", "float32", [1, hid], [rng.uniform(-1, 1) for _ in range(hid)])
    # The gate matmuls on cuda, the cell update on the cpu.
    gx = dense(net, x, "ih", inp, 4 * hid)
    gh = dense(net, h, "hh", hid, 4 * hid)
    gates = on(net, net.bind(f"add({gx}, {gh})"), CUDA)
    parts = net.bind(f"split({gates}, indices_or_sections=4, axis=1)")
    i = net.bind(f"sigmoid({parts}.0)")
    f = net.bind(f"sigmoid({parts}.1)")
    g = net.bind(f"tanh({parts}.2)")
    o = net.bind(f"sigmoid({parts}.3)")
    c2 = net.bind(f"add(multiply({f}, {c}), multiply({i}, {g}))")
    h2 = net.bind(f"multiply({o}, tanh({c2}))")
    return f"on_device(({h2}, {c2}), virtual_device={CPU})"


def main(argv):
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("kind", choices=["resnet", "mobilenet", "resnet50", "resnext50", "mobilenetv2",
                                    "gpt", "gpt2", "gpt2block", "bert", "mlp", "lstm"])
    p.add_argument("out")
    p.add_argument("--form", choices=["params", "hx", "tvm"], default="params")
    p.add_argument("--size", choices=["ci", "full"], default="ci")
    p.add_argument("--data-dir", help="where NAME.npy go (default: OUT without .ir)")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--ir-only", action="store_true",
                   help="write the module only, no .npy inputs or weights")
    p.add_argument("--tail-only", action="store_true",
                   help="annotate only the cpu tail, not the body's cuda ops")
    a = p.parse_args(argv[1:])
    global TAIL_ONLY
    TAIL_ONLY = a.tail_only
    net = Net(a.form, random.Random(a.seed))
    kinds = {"resnet": resnet, "mobilenet": mobilenet, "resnet50": resnet50,
             "resnext50": resnext50, "mobilenetv2": mobilenetv2, "gpt": gpt, "gpt2": gpt2,
             "gpt2block": gpt2block, "bert": bert, "mlp": mlp, "lstm": lstm}
    result = kinds[a.kind](net, a.size)
    data_dir = a.data_dir or os.path.splitext(a.out)[0]
    if not a.ir_only:
        os.makedirs(data_dir, exist_ok=True)
    files = [] if a.ir_only else net.inputs + (net.weights if a.form == "params" else [])
    for name, dtype, shape, data in files:
        with open(os.path.join(data_dir, name + ".npy"), "wb") as f:
            f.write(npy_bytes(dtype, shape, data))
    with open(a.out, "w") as f:
        f.write(net.module(result))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
