"""The tools an installed hx ships (pip install .): hx-run, hx-compile, hx-opt and
hx-import-onnx are the package's bin/ programs, which these entry points run with
the command line they were given."""
import os
import sys

_BIN = os.path.join(os.path.dirname(os.path.abspath(__file__)), "bin")


def _exec(tool):
    path = os.path.join(_BIN, tool)
    if not os.path.exists(path):
        sys.exit(f"{tool}: not installed with this hx package (a build tree has it in build/bin)")
    os.execv(path, [tool] + sys.argv[1:])


def hx_run():
    _exec("hx-run")


def hx_compile():
    _exec("hx-compile")


def hx_opt():
    _exec("hx-opt")


def hx_import_onnx():
    _exec("hx-import-onnx")
