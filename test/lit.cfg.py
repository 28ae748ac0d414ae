# lit configuration for hx.
import os
import shutil
import subprocess

import lit.formats

config.name = "hx"
config.test_format = lit.formats.ShTest(True)
config.suffixes = [".ir", ".test"]
config.excludes = ["Inputs", "CMakeLists.txt", "lit.cfg.py", "lit.site.cfg.py.in"]
config.test_source_root = os.path.dirname(__file__)
config.test_exec_root = os.path.join(config.hx_obj_root, "test")

path = os.pathsep.join([config.hx_tools_dir, config.llvm_tools_dir, config.environment.get("PATH", os.environ["PATH"])])
config.environment["PATH"] = path

config.substitutions.append(("%python", config.python))
config.substitutions.append(("%utils", os.path.join(config.hx_src_root, "utils")))
config.substitutions.append(("%examples", os.path.join(config.hx_src_root, "examples")))
config.substitutions.append(("%ptxas", config.ptxas or "ptxas"))
# The tools by absolute path, for programs that re-execute themselves (gtest's
# death tests run argv[0] again, which a bare name found on PATH is not).
config.substitutions.append(("%hx_tools", config.hx_tools_dir))
# The source tree, where the suite runs from one (not in a GPU bundle, which
# carries test/ without lib/): `source-tree` and %hx_src.
config.substitutions.append(("%hx_src", config.hx_src_root))
if os.path.isdir(os.path.join(config.hx_src_root, "lib", "Targets")):
    config.available_features.add("source-tree")

# Optional features: a GPU, ptxas, graphviz.
# `ptxas`: the CUDA toolkit's ptxas and the libdevice PTX generation links.
libdevice = os.environ.get("HX_LIBDEVICE") or "/usr/local/cuda/nvvm/libdevice/libdevice.10.bc"
if config.ptxas and os.path.exists(config.ptxas) and os.path.exists(libdevice):
    config.available_features.add("ptxas")
if config.dot and os.path.exists(config.dot):
    config.available_features.add("graphviz")
# `onnx`: Debian's python3 imports onnx and numpy (test/Import builds its
# models with them); `torch`: it also imports torch and torchvision.
def python_imports(modules):
    try:
        return subprocess.run(["/usr/bin/python3", "-c", "import " + modules],
                              capture_output=True, timeout=120).returncode == 0
    except Exception:
        return False
if python_imports("onnx, numpy"):
    config.available_features.add("onnx")
    if python_imports("torch, torchvision"):
        config.available_features.add("torch")
# `avx512`: the host's cpu has AVX-512 (its kernels then take 16-lane
# vectors and the code that needs them).
try:
    with open("/proc/cpuinfo") as f:
        if " avx512f" in f.read():
            config.available_features.add("avx512")
except OSError:
    pass
# The GPU: `cuda` when hx-run itself finds a CUDA device (the same driver
# loading the tests use), not merely when nvidia-smi exists.
try:
    out = subprocess.run([os.path.join(config.hx_tools_dir, "hx-run"), "--list-devices"],
                         capture_output=True, text=True, timeout=60).stdout
    if any(line.startswith("cuda:0:") for line in out.splitlines()):
        config.available_features.add("cuda")
        config.available_features.add("gpu")
except Exception:
    pass
# Outside test/GPU every test sees a machine without a GPU, so that its output
# is the same wherever the suite runs: HX_CUDA_DRIVER names a driver library
# that does not exist, and a cuda virtual device runs on a cpu instance of its
# own with the usual note. test/GPU/lit.local.cfg gives the real driver back.
config.environment["HX_CUDA_DRIVER"] = "/nonexistent/hx-lit-hides-the-gpu/libcuda.so.1"
# Every test compiles what it runs: no compile cache (hx/Run/CompileCache.h),
# except where a test turns it on with a directory of its own.
config.environment["HX_CACHE"] = "0"

# Sanitizer builds (HX_SANITIZE, .ci/run): the runtime options reach the
# tools, and tests that cannot run under a sanitizer say `UNSUPPORTED: asan`.
for var in ("ASAN_OPTIONS", "UBSAN_OPTIONS", "LSAN_OPTIONS", "ASAN_SYMBOLIZER_PATH"):
    if var in os.environ:
        config.environment[var] = os.environ[var]
if getattr(config, "hx_sanitize", ""):
    config.available_features.add("asan")
