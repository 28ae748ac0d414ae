"""hx.from_torch: a torch.nn.Module through ONNX into hx (docs/python.md)."""
import inspect
import os
import shutil
import tempfile
import weakref

from ._api import Error, load


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


def _caller_of_failed_op(module, example_inputs, message, running):
    """When the exporter fails on an operator after tracing ("Exporting the
    operator 'aten::linalg_svd' ..."), the submodule that calls it: the
    module runs once more with the forward hooks on, and a torch function
    mode notes the module running at each call of that name."""
    import re

    import torch

    m = re.search(r"aten::(\w+)", message)
    if not m or not isinstance(module, torch.nn.Module):
        return ""
    wanted = m.group(1).lstrip("_")
    try:
        from torch.overrides import TorchFunctionMode
    except ImportError:
        return ""
    found = []

    class Spy(TorchFunctionMode):
        def __torch_function__(self, func, types, args=(), kwargs=None):
            if not found and running and getattr(func, "__name__", "").lstrip("_") == wanted:
                found.append(running[-1])
            return func(*args, **(kwargs or {}))

    try:
        with torch.no_grad(), Spy():
            module(*example_inputs)
    except Exception:
        pass
    running.clear()
    return f" in {found[0]}" if found else ""


def _export(module, example_inputs, path, opset, input_names, output_names, dynamic_axes, name):
    """torch.onnx.export, its failure an hx.Error naming the submodule that was
    running when it failed (tracked by forward hooks) and what to try."""
    import torch

    running = []
    hooks = []

    def enter(label):
        def hook(mod, args):
            running.append(label)  # returns None: the inputs stay as they are
        return hook

    def leave(mod, args, result):
        if running:
            running.pop()  # returns None: the output stays as it is

    if isinstance(module, torch.nn.Module):
        for qualname, sub in module.named_modules():
            hooks.append(sub.register_forward_pre_hook(enter(f"{qualname or name} ({type(sub).__name__})")))
            hooks.append(sub.register_forward_hook(leave))
    try:
        torch.onnx.export(module, example_inputs, path, opset_version=opset,
                          input_names=input_names, output_names=output_names,
                          dynamic_axes=dynamic_axes, do_constant_folding=True)
    except Exception as e:
        where = f" in {running[-1]}" if running else _caller_of_failed_op(
            module, example_inputs, str(e), running)
        message = str(e).strip().splitlines()[0] if str(e).strip() else type(e).__name__
        raise Error(f"PyTorch's ONNX exporter failed on {name}{where}: {message} "
                    f"(try another opset, from_torch(..., opset=17); or export the model "
                    f"yourself with torch.onnx.export and load the file with hx.load)") from e
    finally:
        for h in hooks:
            h.remove()


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
        # Not under torch.no_grad(): there PyTorch runs attention modules
        # (nn.MultiheadAttention, nn.TransformerEncoder) through fused kernels
        # that its ONNX exporter cannot write.
        _export(module, example_inputs, path, opset, list(input_names), output_names,
                dynamic_axes, name)
        mod = load(path, name=name)
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)
        raise
    # hx.compile reads the file again: it goes with the Module.
    weakref.finalize(mod, shutil.rmtree, tmp, True)
    return mod
