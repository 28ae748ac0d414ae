"""Compiled models as files: Compiled.save, hx.load_compiled, and hx.compile of a
.hxc (ctest python-api; docs/python.md, docs/compiled.md)."""
import pathlib
import warnings

import numpy as np
import pytest

import hx

ROOT = pathlib.Path(__file__).resolve().parents[2]
SEED = ROOT / "examples" / "shared-input.ir"
DYNAMIC = """#[version = "0.0.5"]
def @main(%x: Tensor[(?, 4), float32], %b: Tensor[(4), float32]) {
  %0 = add(%x, %b);
  nn.relu(%0)
}
"""


def seed_inputs():
    rng = np.random.default_rng(3)
    return {n: rng.standard_normal((5, 7)).astype(np.float32) for n in "abc"}


def expected(a, b, c):
    return (a + b) - (b + c)


@pytest.mark.parametrize("emulate", [False, True])
def test_save_then_load_runs_the_same(tmp_path, emulate):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", hx.HxWarning)
        m = hx.compile(SEED, emulate_cuda=emulate)
    x = seed_inputs()
    (want,) = m.run(**x)
    path = tmp_path / "seed.hxc"
    m.save(path)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", hx.HxWarning)  # the cuda device on a cpu instance
        loaded = hx.load_compiled(path, emulate_cuda=emulate)
    assert not any("compiled" in n for n in loaded.notes), loaded.notes
    (got,) = loaded.run(**x)
    np.testing.assert_array_equal(got, want)
    np.testing.assert_allclose(got, expected(**x), rtol=1e-6)
    assert [p.name for p in loaded.inputs] == ["a", "b", "c"]
    assert loaded.check(**x)
    # hx.compile of the file is hx.load_compiled.
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", hx.HxWarning)
        again = hx.compile(str(path), emulate_cuda=emulate)
    np.testing.assert_array_equal(again.run(**x)[0], want)


def test_devices_are_remapped_at_load(tmp_path):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", hx.HxWarning)
        m = hx.compile(SEED, devices=["cpu", "cpu:1"])
    path = tmp_path / "seed.hxc"
    m.save(path)
    with pytest.warns(hx.HxWarning, match="compiled 1 cuda-emu kernel that .*seed.hxc does not "
                      "hold"):
        loaded = hx.load_compiled(path, devices=["cpu", "cuda-emu:0"])
    assert loaded.devices == ["cpu:0", "cuda-emu:0"]
    x = seed_inputs()
    np.testing.assert_allclose(loaded.run(**x)[0], expected(**x), rtol=1e-6)


def test_what_shaped_the_compile_is_fixed(tmp_path):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", hx.HxWarning)
        hx.compile(SEED, devices=["cpu", "cpu:1"]).save(tmp_path / "seed.hxc")
    with pytest.raises(hx.Error, match=r"is a compiled model: placement=, fuse= were fixed when it "
                       r"was compiled \(hx.load_compiled runs it\)"):
        hx.compile(tmp_path / "seed.hxc", placement="min-copy", fuse=False)


def test_files_that_cannot_be_trusted_are_refused(tmp_path):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", hx.HxWarning)
        hx.compile(SEED, devices=["cpu", "cpu:1"]).save(tmp_path / "seed.hxc")
    data = (tmp_path / "seed.hxc").read_bytes()
    (tmp_path / "cut.hxc").write_bytes(data[:-7])
    with pytest.raises(hx.Error, match=r"cut.hxc: truncated compiled model"):
        hx.load_compiled(tmp_path / "cut.hxc")
    bad = bytearray(data)
    bad[len(bad) // 2] ^= 1
    (tmp_path / "bad.hxc").write_bytes(bytes(bad))
    with pytest.raises(hx.Error, match=r"bad.hxc: corrupted compiled model \(its checksum"):
        hx.load_compiled(tmp_path / "bad.hxc")
    with pytest.raises(hx.Error, match=r"shared-input.ir is not a compiled model"):
        hx.load_compiled(SEED)


def test_save_of_a_dynamic_module_needs_a_run(tmp_path):
    m = hx.compile(DYNAMIC)
    with pytest.raises(hx.Error, match=r"save: a module with '\?' dims is compiled for the "
                       r"shapes of a run: run it first"):
        m.save(tmp_path / "dyn.hxc")
    x, b = np.ones((3, 4), np.float32), np.arange(4, dtype=np.float32) - 2
    (want,) = m.run(x=x, b=b)
    m.save(tmp_path / "dyn.hxc")
    loaded = hx.load_compiled(tmp_path / "dyn.hxc")
    assert loaded.inputs[0].shape == (3, 4)
    np.testing.assert_array_equal(loaded.run(x=x, b=b)[0], want)


def test_save_writes_nothing_where_it_cannot(tmp_path):
    m = hx.compile(DYNAMIC.replace("?", "2"))
    with pytest.raises(hx.Error, match=r"save: .*missing/x.hxc: cannot create a temporary file"):
        m.save(tmp_path / "missing" / "x.hxc")
    assert not (tmp_path / "missing").exists()


@pytest.fixture
def cache_dir(tmp_path, monkeypatch):
    """A compile cache of the test's own (the suite runs with HX_CACHE=0)."""
    monkeypatch.setenv("HX_CACHE", "1")
    monkeypatch.setenv("HX_CACHE_DIR", str(tmp_path / "cache"))
    return tmp_path / "cache"


def test_the_compile_cache_serves_a_second_compile(cache_dir):
    x = seed_inputs()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", hx.HxWarning)
        first = hx.compile(SEED)
        assert not first._session.from_compiled
        assert len(list(cache_dir.glob("*.hxc"))) == 1
        second = hx.compile(SEED)
    assert second._session.from_compiled
    assert second.module.name == str(SEED)
    np.testing.assert_array_equal(first.run(**x)[0], second.run(**x)[0])
    # Its options are in the key: another fuse, devices or placement is another entry.
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", hx.HxWarning)
        assert not hx.compile(SEED, fuse=False)._session.from_compiled
        assert not hx.compile(SEED, emulate_cuda=True)._session.from_compiled
        assert not hx.compile(SEED, placement="min-copy")._session.from_compiled
    assert len(list(cache_dir.glob("*.hxc"))) == 4


def test_a_hit_warns_as_the_compile_did(cache_dir):
    for _ in range(2):
        with pytest.warns(hx.HxWarning, match="rule 'nn.dense=cpu' matches no operator call"):
            m = hx.compile(SEED, place={"nn.dense": "cpu"})
    assert m._session.from_compiled


def test_cache_false_and_hx_cache_0_leave_it_alone(cache_dir, monkeypatch):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", hx.HxWarning)
        hx.compile(SEED, cache=False)
        monkeypatch.setenv("HX_CACHE", "0")
        hx.compile(SEED)
    assert not cache_dir.exists()


def test_an_entry_that_cannot_be_read_is_compiled_again(cache_dir):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", hx.HxWarning)
        hx.compile(SEED)
    (entry,) = cache_dir.glob("*.hxc")
    entry.write_bytes(entry.read_bytes()[:-5])
    with pytest.warns(hx.HxWarning, match=r"the compile cache: .*truncated compiled model.*: "
                      r"compiling again"):
        m = hx.compile(SEED)
    assert not m._session.from_compiled
    x = seed_inputs()
    np.testing.assert_allclose(m.run(**x)[0], expected(**x), rtol=1e-6)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", hx.HxWarning)
        assert hx.compile(SEED)._session.from_compiled  # replaced


def test_a_long_compile_prints_its_stages(capfd, monkeypatch):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", hx.HxWarning)
        hx.compile(SEED)  # quick: nothing
        assert "hx: compil" not in capfd.readouterr().err
        monkeypatch.setattr(hx._api, "_PROGRESS_AFTER", 0.0)  # as if it took long
        hx.compile(SEED, quiet=True)
        assert "hx: compil" not in capfd.readouterr().err
        hx.compile(SEED)
    err = capfd.readouterr().err
    assert f"hx: planning {SEED}" in err
    assert "hx: compiling 2 kernels for cpu" in err
    assert "hx: compiled in" in err


def test_external_data_is_part_of_the_key(cache_dir, tmp_path):
    """An ONNX model whose weights are in model.onnx.data: new weights in
    that file are a new compile, not a stale hit."""
    pytest.importorskip("onnx")
    import subprocess
    import sys
    subprocess.run([sys.executable, str(ROOT / "utils" / "make-onnx-external.py"), str(tmp_path / "m")],
                   check=True)
    model, x = tmp_path / "m" / "ext.onnx", np.load(tmp_path / "m" / "x.npy")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", hx.HxWarning)
        first = hx.compile(model)
        want = hx.compile(tmp_path / "m" / "inline.onnx", cache=False).run(x=x)[0]
        np.testing.assert_array_equal(first.run(x=x)[0], want)
        assert hx.compile(model)._session.from_compiled
        (tmp_path / "m" / "ext.onnx.data").write_bytes(bytes(464))
        zeros = hx.compile(model)
    assert not zeros._session.from_compiled
    np.testing.assert_array_equal(zeros.run(x=x)[0], np.zeros_like(want))
