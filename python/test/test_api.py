"""The Python API on hand-written modules: load, compile, run, placement, profile, check,
text, dynamic shapes and errors (ctest python-api; docs/python.md)."""
import pathlib
import re
import warnings

import numpy as np
import pytest

import hx

ROOT = pathlib.Path(__file__).resolve().parents[2]
SEED = ROOT / "examples" / "shared-input.ir"
HEADER = '#[version = "0.0.5"]\n'

MLP = HEADER + """def @main(%x: Tensor[(2, 4), float32], %w: Tensor[(3, 4), float32]) {
  %0 = nn.dense(%x, %w); // onnx:Gemm /fc/Gemm
  %1 = nn.relu(%0); // onnx:Relu /relu/Relu
  nn.softmax(%1) // onnx:Softmax /softmax/Softmax
}
"""

DYNAMIC = HEADER + """def @main(%x: Tensor[(?, 4), float32], %b: Tensor[(4), float32]) {
  %0 = add(%x, %b);
  nn.relu(%0)
}
"""


def rand(*shape, dtype=np.float32, seed=0):
    return np.random.default_rng(seed + len(shape)).standard_normal(shape).astype(dtype)


def mlp_ref(x, w):
    y = np.maximum(x @ w.T, 0)
    e = np.exp(y - y.max(axis=1, keepdims=True))
    return e / e.sum(axis=1, keepdims=True)


def quiet_compile(*args, **kwargs):
    """hx.compile without the note a machine without a GPU gives for cuda devices."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", hx.HxWarning)
        return hx.compile(*args, **kwargs)


# ---- load -------------------------------------------------------------------------------


def test_load_text():
    m = hx.load(MLP, name="mlp.ir")
    assert m.name == "mlp.ir" and m.path is None
    assert [(p.name, p.dtype, p.shape) for p in m.inputs] == [("x", "float32", (2, 4)),
                                                              ("w", "float32", (3, 4))]
    assert repr(m).startswith("<hx.Module 'mlp.ir': @main(%x: Tensor[(2, 4), float32]")
    assert m.text().startswith(HEADER)


@pytest.mark.parametrize("as_path", [str, pathlib.Path])
def test_load_file(as_path):
    m = hx.load(as_path(SEED))
    assert m.path == str(SEED)
    assert [p.name for p in m.inputs] == ["a", "b", "c"]


def test_module_text_round_trips():
    text = hx.load(MLP).text()
    assert hx.load(text).text() == text


# ---- compile and run ----------------------------------------------------------------------


def test_cpu_keyword_and_positional_inputs():
    m = hx.compile(hx.load(MLP), devices=["cpu"])
    assert m.devices == ["cpu:0"]
    x, w = rand(2, 4), rand(3, 4, seed=1)
    want = mlp_ref(x, w)
    for outs in (m.run(x=x, w=w), m.run(x, w), m.run(x, w=w), m(x, w)):
        assert len(outs) == 1
        assert outs[0].dtype == np.float32 and outs[0].shape == (2, 3)
        np.testing.assert_allclose(outs[0], want, rtol=1e-5, atol=1e-6)


def test_compile_takes_text_or_path():
    assert quiet_compile(MLP).inputs[0].name == "x"
    assert len(quiet_compile(SEED).run(*(rand(5, 7, seed=i) for i in range(3)))) == 1


def test_cpu_and_cuda_without_a_table():
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        m = hx.compile(MLP, devices=["cpu", "cuda:0"])
    devices = m.devices
    assert len(devices) == 2 and devices[0] == "cpu:0"
    if devices[1] != "cuda:0":  # no GPU: a cpu instance of its own, and a note says so
        assert devices[1] == "cpu:1"
        assert any(issubclass(w.category, hx.HxWarning) and "runs on cpu:1" in str(w.message)
                   for w in caught)
        assert any("runs on cpu:1" in n for n in m.notes)
    # The table is written into the module: cuda is the default device.
    text = m.text()
    assert '"device_type": "cuda"' in text and '"relay.fallback_device_type": "cuda"' in text
    assert {c["device"] for c in m.placement()["calls"]} == {"cuda"}
    x, w = rand(2, 4), rand(3, 4, seed=1)
    np.testing.assert_allclose(m.run(x, w)[0], mlp_ref(x, w), rtol=1e-5, atol=1e-6)


def test_emulated_cuda():
    m = hx.compile(MLP, devices=["cpu", "cuda"], emulate_cuda=True)
    assert m.devices == ["cpu:0", "cuda-emu:0"]
    x, w = rand(2, 4), rand(3, 4, seed=1)
    assert m.check(x, w).ok


def test_default_device():
    m = quiet_compile(MLP, devices=["cpu", "cuda"], default_device="cpu")
    assert {c["device"] for c in m.placement()["calls"]} == {"cpu"}


def test_seed_devices_from_its_table():
    m = quiet_compile(hx.load(SEED))
    assert len(m.devices) == 2
    a, b, c = (rand(5, 7, seed=i) for i in range(3))
    (out,) = m.run(a=a, b=b, c=c)
    np.testing.assert_allclose(out, (a + b) - (b + c), rtol=1e-6, atol=1e-6)


def test_inputs_in_other_layouts():
    m = hx.compile(MLP, devices=["cpu"])
    x, w = rand(4, 2), rand(4, 3, seed=1)
    want = mlp_ref(x.T, w.T)
    np.testing.assert_allclose(m.run(x.T, w.T)[0], want, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(m.run(np.asfortranarray(x.T), w.T.tolist())[0], want,
                               rtol=1e-5, atol=1e-6)


def test_results_are_fresh_arrays():
    m = hx.compile(MLP, devices=["cpu"])
    x, w = rand(2, 4), rand(3, 4, seed=1)
    first = m.run(x, w)[0]
    first[:] = 7
    second = m.run(x, w)[0]
    np.testing.assert_allclose(second, mlp_ref(x, w), rtol=1e-5, atol=1e-6)


def test_integer_and_float16():
    src = HEADER + """def @main(%a: Tensor[(3), int32], %h: Tensor[(3), float16]) {
  %0 = multiply(%a, %a);
  %1 = add(%h, %h);
  (%0, %1)
}
"""
    m = hx.compile(src)
    a = np.array([1, -2, 3], np.int32)
    h = np.array([0.5, 1.5, -2], np.float16)
    sq, twice = m.run(a, h)
    assert sq.dtype == np.int32 and twice.dtype == np.float16
    np.testing.assert_array_equal(sq, a * a)
    np.testing.assert_array_equal(twice, h + h)


@pytest.mark.parametrize("fuse", [True, False])
def test_fuse_and_fold_options(fuse):
    m = hx.compile(MLP, devices=["cpu"], fuse=fuse, fold=False)
    assert ("Primitive=1" in m.text()) == fuse
    x, w = rand(2, 4), rand(3, 4, seed=1)
    assert m.check(x, w)


# ---- placement ----------------------------------------------------------------------------


def test_placement_of_the_seed():
    p = quiet_compile(SEED).placement()
    calls = sorted(p["calls"], key=lambda c: tuple(map(int, c["where"].split(":"))))
    assert [(c["op"], c["where"], c["device"]) for c in calls] == [
        ("add", "7:8", "cpu"), ("add", "9:8", "cuda"), ("subtract", "11:3", "cuda")]
    call = calls[0]
    assert call["function"] == "main" and re.fullmatch(r"\d+:\d+", call["where"])
    assert call["node"] == "" and call["fallback"] == ""
    assert sorted((c["what"], c["from"], c["to"], c["bytes"]) for c in p["copies"]) == [
        ("%b", "cpu", "cuda", 140), ("add at 7:8", "cpu", "cuda", 140)]
    # The per-device summary the placement report starts with.
    assert {d: (t["calls"], t["bytes"]) for d, t in p["devices"].items()} == {
        "cpu": (1, 140), "cuda": (2, 280)}
    assert all(t["seconds"] > 0 for t in p["devices"].values())
    assert (p["copy_totals"]["calls"], p["copy_totals"]["bytes"]) == (2, 280)


def test_place_by_node_name_and_op_type():
    m = quiet_compile(MLP, devices=["cpu", "cuda"], place={"/fc/*": "cpu"}, fuse=False)
    calls = {c["node"]: c for c in m.placement()["calls"]}
    assert calls["/fc/Gemm"]["device"] == "cpu"
    assert calls["/fc/Gemm"]["node_op_type"] == "Gemm"
    assert calls["/relu/Relu"]["device"] == "cuda"
    assert calls["/softmax/Softmax"]["device"] == "cuda"
    copies = m.placement()["copies"]
    assert [(c["from"], c["to"], c["bytes"]) for c in copies] == [("cpu", "cuda", 24)]
    x, w = rand(2, 4), rand(3, 4, seed=1)
    np.testing.assert_allclose(m.run(x, w)[0], mlp_ref(x, w), rtol=1e-5, atol=1e-6)

    m = quiet_compile(MLP, devices=["cpu", "cuda"], place="Relu=cpu,Softmax=cuda")
    calls = {c["node"]: c["device"] for c in m.placement()["calls"]}
    assert calls["/relu/Relu"] == "cpu" and calls["/softmax/Softmax"] == "cuda"


@pytest.mark.parametrize("strategy", ["min-copy", "min-time"])
def test_placement_strategies(strategy):
    m = quiet_compile(SEED, placement=strategy)
    assert m.check(*(rand(5, 7, seed=i) for i in range(3))).ok


# ---- profile, check, text -----------------------------------------------------------------


def test_profile():
    m = quiet_compile(SEED)
    a, b, c = (rand(5, 7, seed=i) for i in range(3))
    p = m.profile(a, b, c)
    np.testing.assert_allclose(p.outputs[0], (a + b) - (b + c), rtol=1e-6, atol=1e-6)
    assert [d["name"] for d in p.devices] == m.devices
    assert all(d["peak_bytes"] >= d["arena_bytes"] for d in p.devices)
    kinds = [s["kind"] for s in p.steps]
    assert kinds.count("copy") == 2 and "kernel" in kinds
    for s in p.steps:
        assert s["seconds"] >= 0 and s["device"] in m.devices
        if s["kind"] == "copy":
            assert s["bytes"] == 140 and s["to"] == s["device"]
    assert p.copies == [{"from": m.devices[0], "to": m.devices[1], "count": 2, "bytes": 280}]
    assert p.total_seconds == pytest.approx(sum(s["seconds"] for s in p.steps))
    assert str(p).startswith("// ---- profile (1 run")


def test_check():
    m = hx.compile(MLP, devices=["cpu"])
    x, w = rand(2, 4), rand(3, 4, seed=1)
    r = m.check(x=x, w=w)
    assert r and r.ok and r.mismatch == "" and r.vacuous_outputs == []
    assert (r.rtol, r.atol) == (1e-3, 1e-5) and 0 <= r.max_error <= r.rtol
    np.testing.assert_allclose(r.outputs[0], mlp_ref(x, w), rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(m.interpret(x, w)[0], r.outputs[0], rtol=1e-5, atol=1e-6)
    assert "ok" in repr(r)


def test_check_against_a_reference():
    m = hx.compile(MLP, devices=["cpu"])
    x, w = rand(2, 4), rand(3, 4, seed=1)
    ref = mlp_ref(x, w)
    r = m.check(x, w, reference=[ref])
    assert r.ok and r.max_error < 1e-5, r
    r = m.check(x, w, reference=ref[:, ::-1].copy())  # a single array is one output
    assert not r.ok and r.where.startswith("output_0[") and "reference" in r.where
    assert "|difference|" in r.explanation and "outside the tolerance" in r.explanation
    assert "FAILED" in repr(r)
    r = m.check(x, w, reference=[ref, ref])
    assert not r.ok and "gives 1 output, the reference 2" in r.mismatch


def test_check_tolerance():
    m = hx.compile(MLP, devices=["cpu"])
    x, w = rand(2, 4), rand(3, 4, seed=1)
    ref = mlp_ref(x, w) * (1 + 1e-4)
    assert not m.check(x, w, reference=[ref], tolerance=1e-6)
    r = m.check(x, w, reference=[ref], tolerance=(1e-3, 0))
    assert r.ok and (r.rtol, r.atol) == (1e-3, 0)
    for bad in (-1, float("nan"), (1e-3, float("inf"))):
        with pytest.raises(hx.Error, match="tolerance"):
            m.check(x, w, tolerance=bad)


def test_text_is_a_repro():
    m = quiet_compile(SEED)
    again = quiet_compile(hx.load(m.text()))
    assert again.text() == m.text()
    a, b, c = (rand(5, 7, seed=i) for i in range(3))
    np.testing.assert_array_equal(again.run(a, b, c)[0], m.run(a, b, c)[0])


# ---- dynamic shapes -----------------------------------------------------------------------


def test_dynamic_shapes_compile_once_per_shape():
    m = hx.compile(DYNAMIC, devices=["cpu"])
    assert m.compile_count == 0 and m.devices == []
    assert m.inputs[0].shape == (None, 4)
    b = rand(4, seed=3)
    # A shape compiled before runs on its executable again.
    for rows, count in ((2, 1), (2, 1), (5, 2), (5, 2), (2, 2), (7, 3), (5, 3)):
        x = rand(rows, 4, seed=rows)
        (out,) = m.run(x=x, b=b)
        assert out.shape == (rows, 4)
        np.testing.assert_allclose(out, np.maximum(x + b, 0), rtol=1e-6)
        assert m.compile_count == count
    assert "Tensor[(5, 4), float32]" in m.text()
    assert m.check(rand(3, 4), b).ok


# ---- errors -------------------------------------------------------------------------------


def test_syntax_error_is_located():
    bad = HEADER + "def @main(%x: Tensor[(2), float32]) {\n  add(%x, %x\n}\n"
    with pytest.raises(hx.Error) as e:
        hx.load(bad, name="bad.ir")
    msg = str(e.value)
    assert re.search(r"^bad\.ir:4:1: error: ", msg, re.M), msg
    assert re.search(r"^ *\^", msg, re.M), msg  # the caret under the source line


def test_type_error_is_located():
    bad = HEADER + "def @main(%x: Tensor[(2), float32], %y: Tensor[(3), float32]) {\n" \
        "  add(%x, %y)\n}\n"
    with pytest.raises(hx.Error, match=r"typed\.ir:3:\d+: error: "):
        hx.load(bad, name="typed.ir")


def test_planning_error_is_located():
    src = HEADER + """def @main(%x: Tensor[(2), float32]) {
  %0 = negative(%x);
  %1 = on_device(%0, virtual_device=meta[VirtualDevice][0], constrain_result=True);
  on_device(%1, virtual_device=meta[VirtualDevice][1], constrain_result=True)
}
#[metadata]
{"VirtualDevice": [{"device_type": "cpu", "target": "llvm"},
                   {"device_type": "cuda", "target": "cuda"}]}
"""
    m = hx.load(src, name="conflict.ir")  # parses and types: planning is compile's
    with pytest.raises(hx.Error, match=r"conflict\.ir:5:\d+: error: cannot place"):
        hx.compile(m)


@pytest.mark.parametrize("inputs, message", [
    ({"x": rand(2, 5), "w": rand(3, 4)}, r"parameter %x .*dim 1 is 5, not 4"),
    ({"x": rand(2, 4, dtype=np.float64), "w": rand(3, 4)}, r"parameter %x .*dtype float64"),
    ({"x": rand(2, 4), "w": rand(3, 4), "z": rand(1)}, r"no parameter %z \(it has %x, %w\)"),
    ({"x": rand(2, 4)}, r"no input for %w"),
    ({"x": rand(2, 4), "w": rand(3, 4), "%x": rand(2, 4)}, r"%x given twice"),
])
def test_wrong_inputs_name_the_parameter(inputs, message):
    m = hx.compile(MLP, devices=["cpu"])
    with pytest.raises(hx.Error, match=message):
        m.run(**inputs)


def test_wrong_positional_inputs():
    m = hx.compile(MLP, devices=["cpu"])
    with pytest.raises(hx.Error, match=r"takes 2 inputs \(%x, %w\), got 3"):
        m.run(rand(2, 4), rand(3, 4), rand(1))
    with pytest.raises(hx.Error, match=r"%w .*rank 1, not 2"):
        m.run(rand(2, 4), rand(12))


def test_dynamic_input_of_the_wrong_shape():
    m = hx.compile(DYNAMIC, devices=["cpu"])
    with pytest.raises(hx.Error, match=r"parameter %x .*dim 1 is 3, not 4"):
        m.run(rand(2, 3), rand(4))
    m.run(rand(2, 4), rand(4))  # still usable


def test_dynamic_shape_the_operators_reject():
    src = HEADER + """def @main(%x: Tensor[(?, ?), float32], %b: Tensor[(4), float32]) {
  add(%x, %b)
}
"""
    m = hx.compile(hx.load(src, name="dyn.ir"), devices=["cpu"])
    with pytest.raises(hx.Error, match=r"dyn\.ir:3:\d+: error: "):
        m.run(rand(2, 3), rand(4))
    x, b = rand(2, 4), rand(4)
    np.testing.assert_allclose(m.run(x, b)[0], x + b, rtol=1e-6)


def test_none_and_strings_as_inputs():
    m = hx.compile(MLP, devices=["cpu"])
    with pytest.raises(hx.Error, match=r"input %x is None, not an array"):
        m.run(None, rand(3, 4))
    with pytest.raises(hx.Error, match=r"input %w: an array of strings \(dtype <U1\)"):
        m.run(rand(2, 4), np.array([["a"] * 4] * 3))


def test_threads_are_bounded():
    with pytest.raises(hx.Error, match=r"threads=100000: a cpu device takes at most 1024 worker"):
        hx.compile(MLP, devices=["cpu"], threads=100000)
    m = hx.compile(MLP, devices=["cpu"], threads=4)
    assert m.check(rand(2, 4), rand(3, 4)).ok


def test_ctrl_c_stops_a_long_run():
    # Many steps of a large product, run on the main thread: SIGINT a moment
    # after the run starts raises KeyboardInterrupt between two steps, long
    # before the run would end; the session stays usable.
    import os
    import signal
    import threading
    import time
    n, steps = 512, 400
    body = "".join(f"  %{i + 1} = nn.dense(%{i}, %w);\n" for i in range(steps))
    src = HEADER + (f"def @main(%x: Tensor[({n}, {n}), float32], %w: Tensor[({n}, {n}), float32]) "
                    "{\n  %0 = nn.relu(%x);\n" + body + f"  %{steps}\n}}\n")
    m = hx.compile(src, devices=["cpu"], threads=1, fuse=False, fold=False)
    x, w = rand(n, n) * 0, rand(n, n)
    start = time.monotonic()
    m.run(x[:1].repeat(n, 0), w)  # warm
    one_run = time.monotonic() - start
    timer = threading.Timer(0.2, os.kill, (os.getpid(), signal.SIGINT))
    timer.start()
    start = time.monotonic()
    with pytest.raises(KeyboardInterrupt):
        m.run(x, w)
    stopped = time.monotonic() - start
    timer.join()
    assert stopped < max(1.0, one_run / 2), (stopped, one_run)
    assert m.run(x, w)[0].shape == (n, n)


def test_bad_options():
    with pytest.raises(hx.Error, match="cannot open 'no-such-file.ir'"):
        hx.load("no-such-file.ir")
    with pytest.raises(hx.Error, match="'tpu' is not a device"):
        hx.compile(MLP, devices=["cpu", "tpu"])
    # The messages name compile()'s keywords and values, never hx-run's flags.
    with pytest.raises(hx.Error, match="error: placement='fastest': unknown placement 'fastest'"):
        hx.compile(MLP, placement="fastest")
    with pytest.raises(hx.Error, match="default_device='tpu'"):
        hx.compile(MLP, devices=["cpu"], default_device="tpu")
    with pytest.raises(hx.Error, match="default_device='tpu': unknown device 'tpu'"):
        hx.compile(MLP, default_device="tpu")
    with pytest.raises(hx.Error, match=r"error: place=\{'Relu': 'tpu'\}: rule 'Relu=tpu'"):
        hx.compile(MLP, devices=["cpu"], place={"Relu": "tpu"})
    with pytest.raises(hx.Error, match=r"place=\['Relu'\]: expected a dict"):
        hx.compile(MLP, place=["Relu"])
    with pytest.raises(hx.Error, match="threads=-1: expected a count"):
        hx.compile(MLP, threads=-1)
    with pytest.raises(hx.Error) as e:
        hx.compile(MLP, place={"Relu": "tpu"}, placement="fastest")
    assert "--" not in str(e.value), e.value
    with pytest.raises(TypeError):
        hx.load(42)


def test_onnx_input_values_at_load(tmp_path):
    # A Reshape whose shape is a graph input: refused without its value,
    # built for the value hx.load is given.
    onnx = pytest.importorskip("onnx")
    from onnx import TensorProto, helper
    g = helper.make_graph(
        [helper.make_node("Reshape", ["x", "shape"], ["y"], name="/reshape/Reshape")], "reshape",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [2, 3]),
         helper.make_tensor_value_info("shape", TensorProto.INT64, [2])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, ["a", "b"])])
    path = str(tmp_path / "reshape.onnx")
    onnx.save(helper.make_model(g, opset_imports=[helper.make_opsetid("", 13)]), path)
    with pytest.raises(hx.Error, match=r"values=\{'shape': \.\.\.\}"):
        hx.load(path)
    m = hx.load(path, values={"shape": np.array([3, 2])})
    c = hx.compile(m, devices=["cpu"])
    (y,) = c.run(x=np.arange(6, dtype=np.float32).reshape(2, 3), shape=np.array([3, 2]))
    assert y.shape == (3, 2) and y.ravel().tolist() == list(range(6))
    with pytest.raises(TypeError):
        hx.load("def @main() { 1f }", values={"shape": np.array([3, 2])})


def test_bfloat16_takes_and_gives_float32():
    # NumPy has no bfloat16: a bfloat16 parameter takes float32 (rounded to
    # the nearest bfloat16) and a bfloat16 result comes back as float32.
    m = hx.compile(hx.load(HEADER + """def @main(%x: Tensor[(4), bfloat16]) {
  multiply(%x, 2bf16)
}
"""))
    (y,) = m.run(np.array([1.0, 0.1, 3.0, -1.00390625], np.float32))
    assert y.dtype == np.float32
    np.testing.assert_array_equal(y, np.array([2.0, 0.2001953125, 6.0, -2.0], np.float32))


def test_results_by_name():
    two = HEADER + """def @main(%x: Tensor[(2), float32]) {
  (negative(%x), (exp(%x), abs(%x)))
}
"""
    x = np.array([1, -2], np.float32)
    m = hx.compile(two)
    assert m.outputs == ["output_0", "output_1", "output_2"]
    out = m.run(x, as_dict=True)
    np.testing.assert_array_equal(out["output_2"], np.abs(x))
    named = hx.compile(two + '#[metadata]\n{"OutputNames": ["neg", "e", "a"]}\n')
    assert list(named.run(x=x, as_dict=True)) == ["neg", "e", "a"]
    # A list that does not name every result is ignored.
    partial = hx.compile(two + '#[metadata]\n{"OutputNames": ["neg"]}\n')
    assert partial.outputs == ["output_0", "output_1", "output_2"]
