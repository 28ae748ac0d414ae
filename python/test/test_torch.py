"""hx.from_torch: torch modules through ONNX into hx, against torch's own outputs
(ctest python-api; docs/python.md)."""
import gc
import os
import warnings

import numpy as np
import pytest

import hx

torch = pytest.importorskip("torch")


@pytest.fixture
def mlp():
    torch.manual_seed(0)
    return torch.nn.Sequential(torch.nn.Linear(4, 8), torch.nn.ReLU(), torch.nn.Linear(8, 3))


def expected(net, x):
    with torch.no_grad():
        return net(x).numpy()


def test_sequential_on_cpu(mlp):
    x = torch.randn(2, 4)
    m = hx.from_torch(mlp, x)
    assert isinstance(m, hx.Module) and m.name == "Sequential"
    assert [(p.name, p.dtype, p.shape) for p in m.inputs] == [("input", "float32", (2, 4))]
    c = hx.compile(m, devices=["cpu"])
    (y,) = c.run(input=x.numpy())
    np.testing.assert_allclose(y, expected(mlp, x), rtol=1e-5, atol=1e-6)
    (y,) = c.run(x)  # a torch tensor works too
    np.testing.assert_allclose(y, expected(mlp, x), rtol=1e-5, atol=1e-6)


def test_sequential_on_cpu_and_cuda(mlp):
    x = torch.randn(3, 4)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", hx.HxWarning)  # no GPU: cuda runs on a cpu instance
        c = hx.compile(hx.from_torch(mlp, (x,)), devices=["cpu", "cuda"])
    r = c.check(x.numpy())
    assert r.ok, r
    np.testing.assert_allclose(r.outputs[0], expected(mlp, x), rtol=1e-5, atol=1e-6)
    calls = c.placement()["calls"]
    assert {call["node_op_type"] for call in calls} == {"Gemm", "Relu"}
    assert {call["device"] for call in calls} == {"cuda"}


def test_place_a_node_on_the_cpu(mlp):
    x = torch.randn(2, 4)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", hx.HxWarning)
        c = hx.compile(hx.from_torch(mlp, x), devices=["cpu", "cuda"], place={"/1/*": "cpu"},
                       fuse=False)
    p = c.placement()
    devices = {call["node"]: call["device"] for call in p["calls"]}
    # The first Linear feeds only the ReLU, so TVM's rule puts it on the cpu too.
    assert devices == {"/0/Gemm": "cpu", "/1/Relu": "cpu", "/2/Gemm": "cuda"}
    assert [(copy["from"], copy["to"], copy["bytes"]) for copy in p["copies"]] == [
        ("cpu", "cuda", 2 * 8 * 4)]
    np.testing.assert_allclose(c.run(x.numpy())[0], expected(mlp, x), rtol=1e-5, atol=1e-6)


def test_dynamic_batch(mlp):
    m = hx.from_torch(mlp, torch.randn(2, 4), input_names=["x"],
                      dynamic_axes={"x": {0: "batch"}})
    assert m.inputs[0].shape == (None, 4)
    c = hx.compile(m, devices=["cpu"])
    for batch in (2, 5, 5):
        x = torch.randn(batch, 4)
        np.testing.assert_allclose(c.run(x=x.numpy())[0], expected(mlp, x), rtol=1e-5, atol=1e-6)
    assert c.compile_count == 2


def test_the_onnx_file_lives_with_the_module(mlp):
    m = hx.from_torch(mlp, torch.randn(1, 4))
    path = m.path
    assert path.endswith(".onnx") and os.path.isfile(path)
    c = hx.compile(m, devices=["cpu"])
    del m
    gc.collect()
    assert os.path.isfile(path)  # the Compiled holds the Module
    del c
    gc.collect()
    assert not os.path.exists(os.path.dirname(path))


def test_attention_models_export():
    # Under torch.no_grad() PyTorch takes fused attention kernels its ONNX
    # exporter cannot write; from_torch exports outside it.
    torch.manual_seed(0)
    layer = torch.nn.TransformerEncoderLayer(d_model=16, nhead=2, dim_feedforward=32,
                                             dropout=0.0, batch_first=True)
    net = torch.nn.TransformerEncoder(layer, num_layers=2).eval()
    x = torch.randn(1, 5, 16)
    c = hx.compile(hx.from_torch(net, x), devices=["cpu"])
    (y,) = c.run(x)
    want = expected(net, x)
    assert np.abs(y - want).max() <= 1e-4 * np.abs(want).max()


class _NoExport(torch.nn.Module):
    def forward(self, x):
        return torch.linalg.svd(x)[1]


def test_exporter_failures_are_hx_errors():
    net = torch.nn.Sequential(torch.nn.Linear(4, 4), _NoExport())
    with pytest.raises(hx.Error) as e:
        hx.from_torch(net, torch.randn(4, 4))
    msg = str(e.value)
    # The submodule that calls the operator the exporter cannot write.
    assert msg.startswith("PyTorch's ONNX exporter failed on Sequential in 1 (_NoExport): ")
    assert "svd" in msg and "opset=17" in msg


class TwoHeads(torch.nn.Module):
    def forward(self, x):
        return x.relu(), x.sum(dim=1)


def test_results_by_the_graph_outputs_names():
    torch.manual_seed(0)
    x = torch.randn(2, 4)
    m = hx.compile(hx.from_torch(TwoHeads(), x, output_names=["positive", "total"]))
    assert m.outputs == ["positive", "total"]
    out = m.run(x.numpy(), as_dict=True)
    assert list(out) == ["positive", "total"]
    np.testing.assert_allclose(out["positive"], x.relu().numpy())
    np.testing.assert_allclose(out["total"], x.sum(dim=1).numpy(), rtol=1e-5, atol=1e-6)
    assert len(m.run(x.numpy())) == 2
