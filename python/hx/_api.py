"""hx.load, hx.compile and the objects they return (docs/python.md).

A Module is a parsed, verified and typed hx module: hx.load checks it, so
errors surface there, and keeps its source (the text, or the file's path).
hx.compile loads that source again into a session of its own with the
chosen passes and devices (plan-devices, fold, fuse-ops, as hx-run does)
and compiles it; a Compiled runs it on NumPy arrays, as often as you like.
"""
import dataclasses
import hashlib
import os
import sys
import warnings

import numpy as np

from . import _hx

Error = _hx.Error
Error.__module__ = "hx"
Error.__doc__ = (
    "An error hx reported: located diagnostics (`file:line:col: error: ...` with the source "
    "line and a caret), or a message naming the parameter, device or option.")


class HxWarning(UserWarning):
    """A warning or note hx reported: a cpu fallback, a cuda device that runs on a cpu."""


@dataclasses.dataclass(frozen=True)
class Param:
    """A parameter of @main, as the module declares it."""
    name: str
    type: str
    #: "float32", ...; None when the parameter is not a tensor.
    dtype: object
    #: The dims, None for each `?` (None when not a tensor).
    shape: object

    def __repr__(self):
        return f"%{self.name}: {self.type}"


@dataclasses.dataclass
class Profile:
    """One run's times (Compiled.profile); str() is hx-run --profile's report."""
    outputs: list
    total_seconds: float
    #: Per step run: kind (kernel, copy, if), name, op, device, track, start,
    #: seconds; a copy also from, to, bytes.
    steps: list
    #: Per virtual device: name (the physical device), seconds, peak_bytes, arena_bytes.
    devices: list
    #: Per device pair: from, to, count, bytes.
    copies: list
    text: str

    def __str__(self):
        return self.text

    def __repr__(self):
        return (f"<hx.Profile {1e3 * self.total_seconds:.3f} ms in {len(self.steps)} steps, "
                f"{sum(c['count'] for c in self.copies)} copies>")


@dataclasses.dataclass
class CheckResult:
    """A run compared with the reference interpreter, or with reference outputs
    (Compiled.check), by hx's one rule: element i of an output passes when
    |a_i - b_i| <= atol + rtol * scale, scale the output's largest |b|; integer
    outputs must be equal; NaN agrees only with NaN."""
    ok: bool
    #: The largest |a - b| / scale over the floating outputs.
    max_error: float
    rtol: float
    atol: float
    #: The element that decides ("output_0[0, 3]: compiled ..., interpreter ...").
    where: str
    #: The rule's numbers at that element, and how many elements fail.
    explanation: str
    #: A difference in the number, dtype or shape of the outputs ("" if none).
    mismatch: str
    #: The outputs entirely inf or NaN on both sides (compared vacuously).
    vacuous_outputs: list
    outputs: list

    def __bool__(self):
        return self.ok

    def __repr__(self):
        if self.mismatch:
            return f"<hx.CheckResult FAILED: {self.mismatch}>"
        if not self.ok:
            return f"<hx.CheckResult FAILED: {self.where}: {self.explanation}>"
        return (f"<hx.CheckResult ok: max error {self.max_error:.3g} "
                f"(rtol {self.rtol:g}, atol {self.atol:g})>")


def _warn(messages):
    """Warns with each message, attributed to the first caller outside the package."""
    level, frame = 2, sys._getframe(1)
    while frame is not None and frame.f_globals.get("__name__", "").startswith("hx."):
        level, frame = level + 1, frame.f_back
    for m in messages:
        warnings.warn(m, HxWarning, stacklevel=level)


def _names(params):
    return ", ".join(f"%{p.name}" for p in params) or "none"


_MISSING = object()


class Module:
    """A parsed, verified and typed hx module (hx.load); hx.compile compiles it."""

    def __init__(self, *, text=None, path=None, name, values=None, session=None):
        self._text, self._path, self._name = text, path, name
        self._values = dict(values or {})
        self._session = session or _hx.Session()
        if session is None:  # else already loaded (the compile cache's)
            self._load(self._session)
        self._params = [Param(*p) for p in self._session.params()]
        self._has_table = bool(self._session.device_table())

    def _load(self, session, **options):
        """Loads into `session`; returns the warnings it gave (and warned)."""
        if self._path is not None:
            session.load_file(self._path, values=self._values, **options)
        else:
            session.load_text(self._text, self._name, **options)
        warnings_given = session.take_warnings()
        _warn(warnings_given)
        return warnings_given

    @property
    def name(self):
        return self._name

    @property
    def path(self):
        """The file it was loaded from (None for text)."""
        return self._path

    @property
    def inputs(self):
        """@main's parameters (Param), in order."""
        return list(self._params)

    def text(self):
        """The module as hx text (canonical form, typed, not planned)."""
        return self._session.text()

    def compile(self, **options):
        """hx.compile(self, **options)."""
        return compile(self, **options)

    def __repr__(self):
        shown = ", ".join(repr(p) for p in self._params[:3])
        if len(self._params) > 3:
            shown += f", ... {len(self._params) - 3} more"
        return f"<hx.Module {self._name!r}: @main({shown})>"


def _looks_like_path(s):
    # Every module has `def @main(`: a line without a parenthesis is a file name.
    return "\n" not in s and "(" not in s


def load(source, *, name=None, values=None):
    """Loads a module: `source` is a path (str or os.PathLike: hx text, or an ONNX model)
    or hx text. Parses, verifies and types it; errors raise hx.Error. `name` is what
    diagnostics call text (default "<string>"); a file is named by its path. `values`
    gives ONNX graph inputs whose value the import needs (Reshape's shape, an axes list:
    {"shape": np.array([3, 2])}); the module is built for those values."""
    if isinstance(source, Module):
        return source
    found = _source(source)
    if found is None:
        raise TypeError(f"hx.load: expected a path or hx text, got {type(source).__name__}")
    text, is_path, _ = found
    if is_path:
        return Module(path=text, name=name or text, values=values)
    if values:
        raise TypeError("hx.load: values= applies to an ONNX model file, not to hx text")
    return Module(text=text, name=name or "<string>")


def _place_option(place):
    if isinstance(place, str):
        return place
    if not isinstance(place, dict):
        raise Error(f"hx: error: place={place!r}: expected a dict {{pattern: device}} "
                    "(or \"pattern=device,...\")")
    return ",".join(f"{pattern}={device}" for pattern, device in place.items())


def _python_words(e, keywords):
    """An error about a pass option compile() passed, naming its keyword and
    value (placement='fast'), not hx-run's flag (--placement)."""
    msg = str(e)
    for flag, (keyword, value) in keywords.items():
        msg = msg.replace(f"error: --{flag}:", f"error: {keyword}={value!r}:")
    return Error(msg)


# How long a compile runs before it prints its stages (tests set 0).
_PROGRESS_AFTER = 2.0

# Separates the warnings a compile cache entry replays (one may span lines).
_LOG_SEPARATOR = "\x1e"


def _source(module):
    """What a model comes from: (source, is_path, values); None for other objects."""
    if isinstance(module, Module):
        return (module._path, True, module._values) if module._path is not None \
            else (module._text, False, {})
    if isinstance(module, os.PathLike):
        return os.fspath(module), True, {}
    if isinstance(module, str):
        return module, os.path.isfile(module) or _looks_like_path(module), {}
    return None


def _cache_entry(source, options):
    """The compile cache's entry for a model and hx.compile's options, or None."""
    text, is_path, values = source
    digest = hashlib.sha256()
    for name in sorted(values):
        v = np.ascontiguousarray(values[name])
        digest.update(f"{name}:{v.dtype.str}:{v.shape}:".encode())
        digest.update(v.tobytes())
    return _hx.compile_cache_entry(text, is_path, repr(("hx.compile", options, digest.hexdigest())))


def compile(module, *, devices=None, placement="default", place=None, default_device=None,
            fuse=True, fold=True, threads=None, emulate_cuda=False, check_devices=False,
            cache=True, quiet=False):
    """Plans, fuses and compiles a module (a Module, or what hx.load takes) for devices.

    devices: the physical devices, in virtual-device order ("cpu", "cpu:1", "cuda:0",
      "cuda-emu:0", "cpu-generic"); for a module without a device table, also its table
      (one virtual device each). Virtual devices beyond the list get a device of their
      type; a cuda device without a GPU runs on a cpu instance, with an HxWarning.
    placement: "default" (TVM's rule), "min-copy" or "min-time".
    place: {"pattern": "device"}: pins the calls whose framework node or op type matches.
    default_device: where unconstrained operators go ("cpu", "cuda"); by default the
      module's PassConfig, else the first device of `devices` that is not a cpu.
    fuse, fold: fuse-ops, and the inference simplifications (hx-run --no-fuse, --no-fold).
    threads: worker threads per cpu device (default: one per core).
    emulate_cuda: cuda devices run on the SIMT emulator (cuda-emu).
    check_devices: before each kernel, check that its arguments live on its device.
    cache: keep the compiled model in the compile cache, and load it from there when
      the same model was compiled with the same options before ($HX_CACHE_DIR, else
      $XDG_CACHE_HOME/hx, else ~/.cache/hx; HX_CACHE=0 turns it off everywhere).
    quiet: print nothing about a long compile (by default, one still going after 2 s
      prints its stages on stderr, as hx-run does).
    """
    _check_threads(threads)
    if isinstance(devices, str):
        devices = [devices]
    devices = list(devices or [])
    options = [("placement", placement)]
    if default_device is not None:
        options.append(("default-device", str(default_device)))
    if place:
        options.append(("place", _place_option(place)))
    # The compile cache, for a model given by its source (not a compiled one).
    entry, source = None, _source(module)
    if cache and source and not (isinstance(module, Module) and module._session.from_compiled):
        entry = _cache_entry(source, (options, fuse, fold, devices, bool(emulate_cuda)))
    if entry is not None:
        session = _hx.Session()
        log = session.load_cached(entry)
        _warn(session.take_warnings())  # an entry that cannot be used
        if log is not None:
            _warn([w for w in log.split(_LOG_SEPARATOR) if w])
            text, is_path, _ = source
            mod = module if isinstance(module, Module) else \
                Module(path=text, name=text, session=session) if is_path else \
                Module(text=text, name="<string>", session=session)
            _warn(session.compile(devices, threads or 0, emulate_cuda, check_devices))
            return Compiled(mod, session)
    mod = load(module)
    if mod._session.from_compiled:
        shaping = [k for k, v, default in (("placement", placement, "default"),
                                            ("place", place, None),
                                            ("default_device", default_device, None),
                                            ("fuse", fuse, True), ("fold", fold, True))
                   if v != default]
        if shaping:
            names = ", ".join(k + "=" for k in shaping)
            raise Error(f"hx: error: {mod.name} is a compiled model: {names} "
                        f"{'was' if len(shaping) == 1 else 'were'} fixed when it was compiled "
                        "(hx.load_compiled runs it)")
        return load_compiled(mod, devices=devices, threads=threads, emulate_cuda=emulate_cuda,
                             check_devices=check_devices)
    table = None
    if devices and not mod._has_table:
        table = _hx.device_table(devices, default_device)
    session = _hx.Session()
    if not quiet:
        session.begin_progress(f"planning {mod.name}", _PROGRESS_AFTER)
    try:
        log = mod._load(session, plan=True, simplify=fold, fuse=fuse, pass_options=options,
                        virtual_devices=table)
    except Error as e:
        raise _python_words(e, {"placement": ("placement", placement), "place": ("place", place),
                                "default-device": ("default_device", default_device)}) from None
    _warn(session.compile(devices, threads or 0, emulate_cuda, check_devices))
    if entry is not None and not session.dynamic:
        session.save_cached(entry, _LOG_SEPARATOR.join(log))
        _warn(session.take_warnings())
    return Compiled(mod, session)


def _check_threads(threads):
    if threads is not None and (not isinstance(threads, int) or isinstance(threads, bool)
                                or threads < 0):
        raise Error(f"hx: error: threads={threads!r}: expected a count >= 0 (0: one per core)")


def load_compiled(path, *, devices=None, threads=None, emulate_cuda=False, check_devices=False):
    """Loads a compiled model (Compiled.save, hx-compile -o FILE.hxc) and readies it to
    run without compiling: a Compiled. devices, threads, emulate_cuda and check_devices
    are hx.compile's: the virtual devices may map to other physical devices than they
    were compiled for (a device whose backend the file holds no kernels for compiles
    them, with an HxWarning). The file's planning, fusing and folding stay as compiled.
    A file of another hx version, or one truncated or corrupted, raises hx.Error."""
    mod = path if isinstance(path, Module) else Module(path=os.fspath(path),
                                                       name=os.fspath(path))
    if not mod._session.from_compiled:
        raise Error(f"hx: error: {mod.name} is not a compiled model (hx.compile compiles it)")
    _check_threads(threads)
    if isinstance(devices, str):
        devices = [devices]
    session = mod._session
    _warn(session.compile(list(devices or []), threads or 0, emulate_cuda, check_devices))
    return Compiled(mod, session)


class Compiled:
    """A planned, compiled module (hx.compile). Inputs are NumPy arrays, by keyword
    (the parameter's name) or by position (@main's order); results are lists of arrays."""

    def __init__(self, module, session):
        self._module, self._session = module, session

    @property
    def module(self):
        return self._module

    @property
    def inputs(self):
        return self._module.inputs

    @property
    def devices(self):
        """The physical device of each virtual device (empty until compiled: a module with
        `?` dims compiles at its first run)."""
        return self._session.device_names()

    @property
    def notes(self):
        """What the last compile said (a cuda device running on a cpu instance, ...)."""
        return self._session.notes()

    @property
    def compile_count(self):
        """How often an executable was built: once, or once per new shape of `?` dims."""
        return self._session.compile_count

    def _arrays(self, args, kwargs):
        params = self._module._params
        if len(args) > len(params):
            raise Error(f"hx: error: @main takes {len(params)} inputs ({_names(params)}), "
                        f"got {len(args)} positional")
        values = list(args) + [_MISSING] * (len(params) - len(args))
        index = {p.name: i for i, p in enumerate(params)}
        for key, value in kwargs.items():
            name = key[1:] if key.startswith("%") else key
            i = index.get(name)
            if i is None:
                raise Error(f"hx: error: @main has no parameter %{name} (it has {_names(params)})")
            if values[i] is not _MISSING:
                raise Error(f"hx: error: parameter %{name} given twice")
            values[i] = value
        missing = [p for p, v in zip(params, values) if v is _MISSING]
        if missing:
            raise Error(f"hx: error: no input for {_names(missing)} of @main")
        return [_array(v, p) for v, p in zip(values, params)]

    def _compiled(self, call):
        """Runs `call`, which may compile (a new shape of `?` dims): what hx said warns."""
        before = self._session.compile_count
        try:
            return call()
        finally:
            if self._session.compile_count != before:
                _warn(self._session.notes())
            _warn(self._session.take_warnings())

    @property
    def outputs(self):
        """The results' names, in run's order: an ONNX model's graph outputs, else
        output_0, output_1, ... (as hx-run --output-dir names the files)."""
        return self._session.output_names()

    def run(self, /, *args, as_dict=False, **inputs):
        """Runs on the inputs; returns the results, flattened depth first: a list, or
        with as_dict=True a dict by the names in `outputs`."""
        results = self._compiled(lambda: self._session.run(self._arrays(args, inputs)))
        return dict(zip(self.outputs, results)) if as_dict else results

    __call__ = run

    def profile(self, /, *args, **inputs):
        """Runs once, timing each step: a Profile (its outputs included)."""
        outputs, data = self._compiled(lambda: self._session.profile(self._arrays(args, inputs)))
        return Profile(outputs=outputs, **data)

    def check(self, /, *args, reference=None, tolerance=None, **inputs):
        """Runs, then compares with the reference interpreter on the same inputs, or
        with `reference` (one array per output: PyTorch's or ONNX Runtime's, say):
        a CheckResult (true when within the tolerance). `tolerance` is rtol or
        (rtol, atol), as hx-run --tolerance (default 1e-3, 1e-5; 1e-2, 1e-3 with
        float16)."""
        if reference is not None:
            if isinstance(reference, np.ndarray) or not hasattr(reference, "__len__"):
                reference = [reference]
            reference = [r if isinstance(r, np.ndarray) else
                         r.detach().cpu().numpy() if hasattr(r, "detach") else np.asarray(r)
                         for r in reference]
        if tolerance is not None:
            rtol, atol = (tolerance, 0.0) if np.isscalar(tolerance) else tolerance
            if not (np.isfinite(rtol) and np.isfinite(atol) and rtol >= 0 and atol >= 0):
                raise Error(f"hx: error: tolerance {tolerance!r}: rtol and atol must be "
                            "finite numbers >= 0")
            tolerance = (float(rtol), float(atol))
        outputs, data = self._compiled(
            lambda: self._session.check(self._arrays(args, inputs), reference, tolerance))
        return CheckResult(outputs=outputs, **data)

    def interpret(self, /, *args, **inputs):
        """The reference interpreter's results for the inputs."""
        return self._session.interpret(self._arrays(args, inputs))

    def placement(self):
        """Where the planned module runs what, as data: {"calls": [...], "copies": [...],
        "devices": {...}, "copy_totals": {...}}. A call: function, op, device, where
        ("line:col"), node and node_op_type (the framework node it came from, "" for
        hand-written text), fallback (why the cpu runs it instead of the device asked
        for, else ""). A copy: function, what, from, to, bytes. devices: per device that
        runs a call, {"calls", "bytes" (their results'), "seconds" (the roofline cost
        model's estimate)}; copy_totals: the same for the copies."""
        result = self._session.placement()
        _warn(self._session.take_warnings())
        return result

    def text(self):
        """The planned (and fused) module as hx text: a complete repro for hx-run."""
        return self._session.text()

    def save(self, path):
        """Writes the compiled model to `path` (a .hxc file, written whole or not at all):
        the planned module, its constants and every device's kernels, which
        hx.load_compiled and hx-run load without compiling. A module with `?` dims is
        saved for the shapes of its last run."""
        self._session.save(os.fspath(path))

    def __repr__(self):
        devices = self.devices
        where = f" on {', '.join(devices)}" if devices else " (compiled at the first run)"
        return f"<hx.Compiled {self._module.name!r}{where}>"


def _array(value, param):
    """An input as an array: NumPy arrays as they are (their dtype must match), torch
    tensors by their memory, anything else converted to the parameter's dtype."""
    if isinstance(value, np.ndarray):
        return value
    if value is None:
        raise Error(f"hx: error: input %{param.name} is None, not an array")
    if hasattr(value, "detach") and hasattr(value, "numpy"):  # a torch tensor
        return value.detach().cpu().numpy()
    return np.asarray(value, dtype=param.dtype)
