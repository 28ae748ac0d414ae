"""hx.from_torch: a torch.nn.Module through ONNX into hx (docs/python.md)."""
import inspect
import os
import shutil
import tempfile
import weakref

from ._api import load


def _input_names(module, count):
    """The names of forward's first `count` positional parameters, else input_0, ..."""
    try:
        params = list(inspect.signature(module.forward).parameters.values())
    except (TypeError, ValueError):
        params = []
    names = [p.name for p in params
             if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)][:count]
    if len(names) < count:
        names = [f"input_{i}" for i in range(count)]
    return names


def from_torch(module, example_inputs, *, opset=13, input_names=None, output_names=None,
               dynamic_axes=None, name=None):
    """Exports `module` with torch.onnx.export (traced on `example_inputs`, a tensor or a
    tuple of them) to a temporary ONNX file and loads it: a Module, whose @main takes the
    inputs by the names of forward's parameters (or `input_names`). `dynamic_axes` as
    torch.onnx.export takes it makes those dims `?`. The file lives as long as the Module."""
    import torch

    if isinstance(example_inputs, torch.Tensor):
        example_inputs = (example_inputs,)
    example_inputs = tuple(example_inputs)
    if input_names is None:
        input_names = _input_names(module, len(example_inputs))
    name = name or type(module).__name__
    tmp = tempfile.mkdtemp(prefix="hx-torch-")
    try:
        path = os.path.join(tmp, name + ".onnx")
        with torch.no_grad():
            torch.onnx.export(module, example_inputs, path, opset_version=opset,
                              input_names=list(input_names), output_names=output_names,
                              dynamic_axes=dynamic_axes, do_constant_folding=True)
        mod = load(path, name=name)
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)
        raise
    # hx.compile reads the file again: it goes with the Module.
    weakref.finalize(mod, shutil.rmtree, tmp, True)
    return mod
