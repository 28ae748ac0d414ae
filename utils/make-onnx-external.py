#!/usr/bin/env python3
"""Writes ONNX models that keep their tensors in another file (ONNX's
external data, as PyTorch's exporter saves `model.onnx` + `model.onnx.data`),
for test/Import/onnx-external-data.test:

    make-onnx-external.py OUTDIR

OUTDIR/ext.onnx keeps every initializer and a Constant node's tensor in
OUTDIR/ext.onnx.data (offsets and lengths given); OUTDIR/inline.onnx is the
same model with the data inside; OUTDIR/x.npy an input. OUTDIR/sub/ext.onnx
finds its data in OUTDIR/sub/data/w.bin (a location with a folder and no
offset or length). The hostile ones, each with one entry changed: abs.onnx
(an absolute location), up.onnx (`../`), link.onnx (`link.data`: the test
makes it a symbolic link out of the folder), past.onnx (an offset past the
end), short.onnx (a length shorter than the tensor), noloc.onnx (no
location), badoff.onnx (offset `-4`), folder.onnx (a folder), missing.onnx
(a file that does not exist). Needs Debian's /usr/bin/python3 (onnx, numpy).
"""
import os
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper


def model():
    rng = np.random.default_rng(0)
    w = numpy_helper.from_array(rng.standard_normal((4, 3, 3, 3)).astype(np.float32), "w")
    b = numpy_helper.from_array(rng.standard_normal(4).astype(np.float32), "b")
    k = numpy_helper.from_array(rng.standard_normal((1, 4, 1, 1)).astype(np.float32), "k")
    nodes = [helper.make_node("Conv", ["x", "w", "b"], ["c"], pads=[1, 1, 1, 1]),
             helper.make_node("Constant", [], ["k"], value=k),
             helper.make_node("Mul", ["c", "k"], ["y"])]
    g = helper.make_graph(nodes, "external",
                          [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 3, 5, 5])],
                          [helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, 4, 5, 5])],
                          initializer=[w, b])
    return helper.make_model(g, opset_imports=[helper.make_opsetid("", 13)])


def externalize(m, data_path, location, with_extent=True, names=None):
    """Moves every initializer and Constant tensor of m (or those in names)
    into data_path (named `location` in the model), one after another."""
    tensors = list(m.graph.initializer) + [a.t for n in m.graph.node for a in n.attribute if a.HasField("t")]
    tensors = [t for t in tensors if names is None or t.name in names]
    with open(data_path, "wb") as f:
        for t in tensors:
            raw = t.raw_data or numpy_helper.to_array(t).tobytes()
            offset = f.tell()
            f.write(raw)
            t.ClearField("raw_data")
            t.ClearField("float_data")
            t.data_location = TensorProto.EXTERNAL
            entries = [("location", location)]
            if with_extent:
                entries += [("offset", str(offset)), ("length", str(len(raw)))]
            for key, value in entries:
                e = t.external_data.add()
                e.key, e.value = key, value


def entry(m, key):
    return next(e for e in m.graph.initializer[0].external_data if e.key == key)


def main():
    out = sys.argv[1]
    os.makedirs(os.path.join(out, "sub", "data"), exist_ok=True)
    os.makedirs(os.path.join(out, "folder.data"), exist_ok=True)
    np.save(os.path.join(out, "x.npy"), np.random.default_rng(1).standard_normal((1, 3, 5, 5)).astype(np.float32))
    onnx.save(model(), os.path.join(out, "inline.onnx"))
    m = model()
    externalize(m, os.path.join(out, "ext.onnx.data"), "ext.onnx.data")
    onnx.save(m, os.path.join(out, "ext.onnx"))
    # One tensor per file in a folder, no offset or length.
    s = model()
    del s.graph.node[1:]
    s.graph.node[0].output[0] = "y"
    s.graph.output[0].CopyFrom(helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, 4, 5, 5]))
    externalize(s, os.path.join(out, "sub", "data", "w.bin"), "data/w.bin", with_extent=False, names=["w"])
    onnx.save(s, os.path.join(out, "sub", "ext.onnx"))
    hostile = {
        "abs": ("location", "/etc/hostname"),
        "up": ("location", "../ext.onnx.data"),
        "link": ("location", "link.data"),
        "past": ("offset", "100000"),
        "short": ("length", "8"),
        "badoff": ("offset", "-4"),
        "folder": ("location", "folder.data"),
        "missing": ("location", "missing.data"),
    }
    for name, (key, value) in hostile.items():
        h = onnx.ModelProto()
        h.CopyFrom(m)
        entry(h, key).value = value
        onnx.save(h, os.path.join(out, name + ".onnx"))
    h = onnx.ModelProto()
    h.CopyFrom(m)
    kept = [e for e in h.graph.initializer[0].external_data if e.key != "location"]
    del h.graph.initializer[0].external_data[:]
    h.graph.initializer[0].external_data.extend(kept)
    onnx.save(h, os.path.join(out, "noloc.onnx"))


if __name__ == "__main__":
    main()
