#!/usr/bin/env python3
"""Runs a model with ONNX Runtime's CPU provider (the npm package
onnxruntime-node, run by node) and writes its outputs as hx-run's
--output-dir does, for hx-run --check-against:

    ort-reference.py MODEL OUTDIR --input NAME=FILE.npy ... [--ort DIR]

DIR is where `npm install onnxruntime-node@1.30.0 --ignore-scripts` ran
(default: $HX_ORT_DIR). Debian has no ONNX Runtime, so this
is a tool for making reference outputs and for benchmarks, never run by the
tests: the tests compare with the outputs it wrote, checked in.
Needs Debian's /usr/bin/python3 (numpy) and node.
"""
import argparse
import json
import os
import subprocess
import sys
import tempfile

import numpy as np

# ONNX Runtime's tensor type names by NumPy dtype.
ORT_TYPES = {"float32": "float32", "float64": "float64", "int64": "int64", "int32": "int32",
             "int8": "int8", "uint8": "uint8", "int16": "int16", "uint16": "uint16",
             "bool": "bool", "float16": "float16", "uint32": "uint32", "uint64": "uint64"}

RUNNER = r"""
const fs = require('fs');
const ort = require(process.argv[2] + '/node_modules/onnxruntime-node');
const spec = JSON.parse(fs.readFileSync(process.argv[3]));
const arrays = {float32: Float32Array, float64: Float64Array, int64: BigInt64Array,
                int32: Int32Array, int8: Int8Array, uint8: Uint8Array, int16: Int16Array,
                uint16: Uint16Array, bool: Uint8Array, float16: Uint16Array,
                uint32: Uint32Array, uint64: BigUint64Array};
(async () => {
  const s = await ort.InferenceSession.create(spec.model, {intraOpNumThreads: 1, interOpNumThreads: 1});
  const feeds = {};
  for (const i of spec.inputs) {
    const buf = fs.readFileSync(i.file);
    const data = new arrays[i.dtype](buf.buffer, buf.byteOffset, buf.byteLength / arrays[i.dtype].BYTES_PER_ELEMENT);
    feeds[i.name] = new ort.Tensor(i.dtype, data, i.dims);
  }
  const r = await s.run(feeds);
  const out = [];
  s.outputNames.forEach((n, k) => {
    const t = r[n];
    const file = spec.outdir + '/raw_' + k;
    fs.writeFileSync(file, Buffer.from(t.data.buffer, t.data.byteOffset, t.data.byteLength));
    out.push({name: n, dtype: t.type, dims: t.dims, file: file});
  });
  fs.writeFileSync(spec.outdir + '/outputs.json', JSON.stringify(out));
})().catch(e => { console.error(e); process.exit(1); });
"""


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("model")
    ap.add_argument("outdir")
    ap.add_argument("--input", action="append", default=[], metavar="NAME=FILE.npy")
    ap.add_argument("--ort", default=os.environ.get("HX_ORT_DIR"))
    a = ap.parse_args()
    if not a.ort:
        sys.exit("ort-reference.py: give --ort DIR (or HX_ORT_DIR), where "
                 "`npm install onnxruntime-node@1.30.0 --ignore-scripts` ran")
    os.makedirs(a.outdir, exist_ok=True)
    with tempfile.TemporaryDirectory() as tmp:
        inputs = []
        for spec in a.input:
            name, path = spec.split("=", 1)
            arr = np.ascontiguousarray(np.load(path))
            raw = os.path.join(tmp, "in_" + name)
            arr.tofile(raw)
            inputs.append({"name": name, "dtype": ORT_TYPES[str(arr.dtype)], "dims": list(arr.shape), "file": raw})
        spec_path = os.path.join(tmp, "spec.json")
        with open(spec_path, "w") as f:
            json.dump({"model": os.path.abspath(a.model), "inputs": inputs, "outdir": tmp}, f)
        runner = os.path.join(tmp, "run.js")
        with open(runner, "w") as f:
            f.write(RUNNER)
        subprocess.run(["node", runner, a.ort, spec_path], check=True)
        with open(os.path.join(tmp, "outputs.json")) as f:
            outs = json.load(f)
        for k, o in enumerate(outs):
            dtype = {"bool": np.bool_}.get(o["dtype"], np.dtype(o["dtype"]))
            arr = np.fromfile(o["file"], dtype=dtype).reshape(o["dims"])
            np.save(os.path.join(a.outdir, f"output_{k}.npy"), arr)
            print(f"output_{k} ({o['name']}): {arr.dtype} {list(arr.shape)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
