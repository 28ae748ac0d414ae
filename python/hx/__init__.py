"""hx: run one tensor program across CPU and GPU, from Python (docs/python.md).

    import hx, numpy as np
    m = hx.compile(hx.load("model.ir"), devices=["cpu", "cuda:0"])
    (y,) = m.run(x=np.ones((5, 7), np.float32))
"""
from ._api import (CheckResult, Compiled, Error, HxWarning, Module, Param, Profile, compile,
                   load, load_compiled)
from ._torch import from_torch

__all__ = ["load", "compile", "load_compiled", "from_torch", "Module", "Compiled", "Param", "Profile",
           "CheckResult", "Error", "HxWarning"]
