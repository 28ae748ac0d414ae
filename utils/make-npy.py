#!/usr/bin/env python3
"""Writes a small .npy file without NumPy, for tests.

    make-npy.py OUT DTYPE SHAPE [VALUE ...]      e.g. x.npy <f4 2,3 1 2 3 4 5 6
    make-npy.py OUT --raw TEXT                   the bytes of TEXT (bad files)

DTYPE is a NumPy descr (<f4, <i4, <i8, |b1, >f4, <f2 ...); SHAPE is
comma-separated ('' for a scalar); values repeat to fill the shape.
--fortran marks the array Fortran-ordered; --truncate N drops N data bytes.
"""
import struct
import sys


def main(argv):
    out = argv[1]
    if argv[2] == "--raw":
        open(out, "wb").write(argv[3].encode())
        return 0
    fortran = "--fortran" in argv
    truncate = 0
    if "--truncate" in argv:
        i = argv.index("--truncate")
        truncate = int(argv[i + 1])
        del argv[i:i + 2]
    argv = [a for a in argv if a != "--fortran"]
    descr, shape_text = argv[2], argv[3]
    shape = tuple(int(s) for s in shape_text.split(",") if s)
    values = [float(v) for v in argv[4:]] or [0.0]
    count = 1
    for d in shape:
        count *= d
    fmt = {"f4": "f", "f8": "d", "f2": "e", "i4": "i", "i8": "q", "b1": "?", "u1": "B",
           "i1": "b", "i2": "h"}[descr[1:]]
    endian = ">" if descr[0] == ">" else "<"
    data = b"".join(
        struct.pack(endian + fmt,
                    bool(values[i % len(values)]) if fmt == "?" else
                    int(values[i % len(values)]) if fmt not in "fde" else values[i % len(values)])
        for i in range(count))
    if truncate:
        data = data[:-truncate]
    shape_repr = f"({shape[0]},)" if len(shape) == 1 else "(" + ", ".join(map(str, shape)) + ")"
    header = "{'descr': '%s', 'fortran_order': %s, 'shape': %s, }" % (
        descr, "True" if fortran else "False", shape_repr)
    header += " " * ((64 - (10 + len(header) + 1) % 64) % 64) + "\n"
    open(out, "wb").write(b"\x93NUMPY\x01\x00" + struct.pack("<H", len(header)) +
                          header.encode() + data)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
