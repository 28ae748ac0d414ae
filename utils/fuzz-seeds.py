#!/usr/bin/env python3
"""The seed corpus of one fuzz target (utils/run-fuzzer.sh, test/Fuzz).

    utils/fuzz-seeds.py parse|plan|npy|metadata|exec|onnx|hxc OUTDIR

parse, plan: every `// -----` chunk of every *.ir under test/ and examples/.
metadata: each chunk's `#[metadata]` section, once behind each module byte of
hx-fuzz-metadata (0: a module using no metadata, 1: one using constants and a
virtual device), and the TVM dump's. npy: every *.npy under test/. exec: 24
choices of hx-fuzz-exec's generator (seeds 1-24, small modules). onnx: the
models of utils/make-onnx.py, valid and bad (needs onnx under
/usr/bin/python3). hxc: compiled models of the examples (hx-compile, from
$HX_COMPILE or build/bin), whole and cut short at a few points.
OUTDIR is emptied first. Deterministic: files are visited in sorted order.
"""
import os, re, shutil, sys
if len(sys.argv) != 3 or sys.argv[1] not in ("parse", "plan", "npy", "metadata", "exec", "onnx",
                                             "hxc"):
    sys.exit("usage: fuzz-seeds.py parse|plan|npy|metadata|exec|onnx|hxc OUTDIR")
target, seed = sys.argv[1], sys.argv[2]
root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
shutil.rmtree(seed, ignore_errors=True)
os.makedirs(seed)
sep = re.compile(r"^\s*// -----")
count = 0

def emit(name, data):
    global count
    with open(os.path.join(seed, name), "wb") as f:
        f.write(data)
    count += 1

def walk(tops, suffix):
    for top in tops:
        for dirpath, dirnames, filenames in os.walk(os.path.join(root, top)):
            dirnames.sort()
            for name in sorted(filenames):
                if name.endswith(suffix):
                    yield os.path.join(dirpath, name)

if target == "exec":
    # hx-fuzz-exec's choices: seed (8 bytes), calls, defs, flags, input seed.
    for i in range(24):
        data = (i + 1).to_bytes(8, "little") + bytes([4 + i % 12, i % 4, i % 4])
        emit("exec-%02d.bin" % i, data + (i * 7 + 3).to_bytes(8, "little"))
elif target == "onnx":
    import subprocess, tempfile
    with tempfile.TemporaryDirectory() as tmp:
        maker = os.path.join(root, "utils", "make-onnx.py")
        subprocess.run(["/usr/bin/python3", maker, tmp], check=True, stdout=subprocess.DEVNULL)
        subprocess.run(["/usr/bin/python3", maker, tmp, "--bad"], check=True, stdout=subprocess.DEVNULL)
        for name in sorted(os.listdir(tmp)):
            if name.endswith(".onnx"):
                with open(os.path.join(tmp, name), "rb") as f:
                    emit(name, f.read())
elif target == "hxc":
    import subprocess, tempfile
    compiler = os.environ.get("HX_COMPILE", os.path.join(root, "build", "bin", "hx-compile"))
    with tempfile.TemporaryDirectory() as tmp:
        for name in sorted(os.listdir(os.path.join(root, "examples"))):
            if not name.endswith(".ir"):
                continue
            out = os.path.join(tmp, name[:-3] + ".hxc")
            subprocess.run([compiler, os.path.join(root, "examples", name), "-o", out,
                            "--device=cpu", "--device=cpu:1"],
                           check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
            with open(out, "rb") as f:
                data = f.read()
            emit(name[:-3] + ".hxc", data)
            for cut in (12, 40, len(data) // 2):
                emit("%s-cut%d.hxc" % (name[:-3], cut), data[:cut])
elif target == "npy":
    for path in walk(("test",), ".npy"):
        with open(path, "rb") as f:
            emit(os.path.relpath(path, root).replace(os.sep, "_"), f.read())
else:
    for path in walk(("test", "examples"), ".ir"):
        with open(path, "rb") as f:
            lines = f.read().split(b"\n")
        chunks, cur = [], []
        for line in lines:
            if sep.match(line.decode("utf-8", "replace")):
                chunks.append(cur)
                cur = []
            else:
                cur.append(line)
        chunks.append(cur)
        stem = os.path.relpath(path, root).replace(os.sep, "_")[:-3]
        for i, chunk in enumerate(chunks):
            data = b"\n".join(chunk)
            if not data.strip():
                continue
            if target != "metadata":
                emit("%s.%d.ir" % (stem, i), data)
                continue
            at = data.find(b"#[metadata]")
            if at >= 0:
                meta = data[at + len(b"#[metadata]"):]
                # The first byte picks the fuzz target's module (0: no uses).
                emit("%s.%d.0.meta" % (stem, i), b"\x00" + meta)
                emit("%s.%d.1.meta" % (stem, i), b"\x01" + meta)
    if target == "metadata":
        dump = os.path.join(root, "test/Runtime/Inputs/tvm/small_convnet.txt")
        with open(dump, "rb") as f:
            data = f.read()
        at = data.find(b"#[metadata]")
        emit("tvm-dump.meta", b"\x01" + data[at + len(b"#[metadata]"):])
print("fuzz-seeds: %d seed inputs in %s" % (count, seed))
