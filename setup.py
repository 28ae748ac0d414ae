"""pip install . : builds hx with its own CMake and packs the result.

The package's Python files come from python/hx; the extension module hx._hx
and the tools (hx-run, hx-compile, hx-opt, hx-import-onnx) from a CMake build:
$HX_BUILD_DIR if set, else build/ in the source tree, configured here if it
is not yet (Release, Ninja, as utils/setup.sh does), then built for those
targets only. The tools go into the package (hx/bin/) and pyproject.toml's
scripts run them (hx/_tools.py). The wheel is for this platform and this
Python: the extension links the system's LLVM, ANTLR and ONNX libraries.
"""
import os
import shutil
import subprocess
import sys

from setuptools import setup
from setuptools.command.build_py import build_py
from setuptools.dist import Distribution

ROOT = os.path.dirname(os.path.abspath(__file__))
TOOLS = ["hx-run", "hx-compile", "hx-opt", "hx-import-onnx"]


class CMakeBuild(build_py):
    def run(self):
        super().run()
        build = os.environ.get("HX_BUILD_DIR") or os.path.join(ROOT, "build")
        if not os.path.exists(os.path.join(build, "CMakeCache.txt")):
            subprocess.run(["cmake", "-G", "Ninja", "-S", ROOT, "-B", build,
                            "-DCMAKE_BUILD_TYPE=Release",
                            f"-DPython3_EXECUTABLE={sys.executable}"], check=True)
        subprocess.run(["cmake", "--build", build, "--target", "hxPython", *TOOLS], check=True)
        package = os.path.join(self.build_lib, "hx")
        built = os.path.join(build, "python", "hx")
        for name in os.listdir(built):
            if name.startswith("_hx") and name.endswith(".so"):
                shutil.copy2(os.path.join(built, name), package)
        os.makedirs(os.path.join(package, "bin"), exist_ok=True)
        for tool in TOOLS:
            shutil.copy2(os.path.join(build, "bin", tool), os.path.join(package, "bin", tool))


class BinaryDistribution(Distribution):
    """A wheel for this platform: the package holds compiled code."""

    def has_ext_modules(self):
        return True


# setuptools' own files go under the CMake build's folder (ignored by git),
# not beside it.
setup(cmdclass={"build_py": CMakeBuild}, distclass=BinaryDistribution,
      options={"build": {"build_base": os.path.join("build", "pip")},
               "egg_info": {"egg_base": os.path.join("build", "pip")}})
