#!/usr/bin/env python3
"""Compares two .npy files without NumPy, for tests.

    compare-npy.py GOT.npy WANT.npy [--tol T]

Both must hold the same shape; values are compared as floats (little-endian
f2/f4/f8 and i4/i8/b1 are read). Prints the max absolute error and the max
error relative to |want| (floored at 1e-6), then `ok` or `MISMATCH`;
exits 1 on a mismatch (an element differs by more than T·max(|want|, 1); T defaults to 1e-5) or a shape difference.
"""
import array
import ast
import struct
import sys

CODES = {"<f4": "f", "<f8": "d", "<i4": "i", "<i8": "q", "|b1": "b", "|u1": "B"}


def load(path):
    data = open(path, "rb").read()
    if data[:6] != b"\x93NUMPY":
        sys.exit(f"{path}: not a .npy file")
    major = data[6]
    hlen, start = (struct.unpack("<H", data[8:10])[0], 10) if major == 1 else \
        (struct.unpack("<I", data[8:12])[0], 12)
    header = ast.literal_eval(data[start:start + hlen].decode("latin1"))
    body = data[start + hlen:]
    descr, shape = header["descr"], tuple(header["shape"])
    if descr == "<f2":
        values = [struct.unpack("<e", body[i:i + 2])[0] for i in range(0, len(body), 2)]
    elif descr in CODES:
        values = array.array(CODES[descr])
        values.frombytes(body)
    else:
        sys.exit(f"{path}: unsupported dtype {descr}")
    return shape, [float(v) for v in values]


def main(argv):
    tol = 1e-5
    if "--tol" in argv:
        i = argv.index("--tol")
        tol = float(argv[i + 1])
        del argv[i:i + 2]
    (gs, got), (ws, want) = load(argv[1]), load(argv[2])
    if gs != ws:
        print(f"MISMATCH: shape {gs} vs {ws}")
        return 1
    abs_err = max((abs(g - w) for g, w in zip(got, want)), default=0.0)
    rel_err = max((abs(g - w) / max(abs(w), 1e-6) for g, w in zip(got, want)), default=0.0)
    bad = any(abs(g - w) > tol * max(abs(w), 1.0) for g, w in zip(got, want))
    print(f"max abs error {abs_err:.3g}, max rel error {rel_err:.3g}: {'MISMATCH' if bad else 'ok'}")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
