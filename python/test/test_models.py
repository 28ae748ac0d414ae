"""Real models through hx.from_torch (ctest python-api; docs/onnx.md): a
torchvision ResNet-18 and a GPT-2-style block from utils/export-torch-models.py,
random weights, on the cpu and with the head pinned to the cpu and the body on
a cuda virtual device (a cpu instance without a GPU), against PyTorch."""
import importlib.util
import os
import warnings

import numpy as np
import pytest

import hx

torch = pytest.importorskip("torch")
pytest.importorskip("torchvision")

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..")


def exporter():
    spec = importlib.util.spec_from_file_location(
        "export_torch_models", os.path.join(ROOT, "utils", "export-torch-models.py"))
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


@pytest.mark.parametrize("name,size,opset", [("resnet18", 64, 13), ("gpt2block", 0, 17)])
def test_model_on_cpu_and_split(name, size, opset):
    ex = exporter()
    torch.manual_seed(0)
    net, x = ex.make(name, 1, size)
    net.eval()
    with torch.no_grad():
        want = net(x).numpy()
    m = hx.from_torch(net, x, opset=opset)
    (got,) = hx.compile(m, devices=["cpu"]).run(x.numpy())
    scale = np.abs(want).max()
    assert np.abs(got - want).max() <= 1e-4 * scale
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", hx.HxWarning)
        # Every node on cuda, then the head on the cpu (the last match wins).
        c = hx.compile(m, devices=["cpu", "cuda"], place={"*": "cuda", ex.HEADS[name]: "cpu"})
    (got,) = c.run(x.numpy())
    assert np.abs(got - want).max() <= 1e-4 * scale
    p = c.placement()
    devices = {call["device"] for call in p["calls"]}
    assert devices == {"cpu", "cuda"}, devices
    assert p["copies"] and {(c["from"], c["to"]) for c in p["copies"]} <= {("cuda", "cpu"), ("cpu", "cuda")}


def test_imported_text_is_a_repro():
    torch.manual_seed(0)
    net = torch.nn.Sequential(torch.nn.Conv2d(3, 4, 3), torch.nn.ReLU(), torch.nn.Flatten(),
                              torch.nn.Linear(4 * 6 * 6, 5))
    x = torch.randn(1, 3, 8, 8)
    m = hx.from_torch(net, x)
    again = hx.load(m.text())  # the weights are in the text
    (got,) = hx.compile(again, devices=["cpu"]).run(x.numpy())
    with torch.no_grad():
        np.testing.assert_allclose(got, net(x).numpy(), rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("name,count", [("ssdlite320_mobilenet_v3_large", 300),
                                        ("fasterrcnn_mobilenet_v3_large_320_fpn", 100)])
def test_detector_through_from_torch(name, count):
    """torchvision's ssdlite and Faster R-CNN (utils/torch-detectors.py's
    weights): the run goes in stages, and hx.compile(hx.from_torch(...))
    gives PyTorch's detections."""
    spec = importlib.util.spec_from_file_location(
        "torch_detectors", os.path.join(ROOT, "utils", "torch-detectors.py"))
    td = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(td)
    net, x = td.build(name, td.MODELS[name])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        m = hx.from_torch(net, ([x],))
    out = hx.compile(m).run(x.numpy())
    with torch.no_grad():
        want = {k: v.numpy() for k, v in net([x])[0].items()}
    got = {k: np.asarray(v) for k, v in zip(want, out)}
    unmatched, score, box = td.compare(want, got)
    assert len(want["scores"]) == count and unmatched == 0
    assert score <= 1e-3 and box <= td.BOX_TOLERANCE
