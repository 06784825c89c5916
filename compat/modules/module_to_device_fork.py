"""model.to(device) vs module.fork(device) for training."""
import torch

from burn_torch import Device, Tensor, nn
from burn_torch.nn import Initializer
from burn_torch.optim import GradientsParams, SgdConfig

ID = "module_to_device_fork"
TITLE = "Move a module you will train with `fork(device)`, not `to_device(device)`"
CATEGORY = "modules"
SEVERITY = "silent"
DETECTORS = ("module_to_device_call",)
WHAT = "module.to_device(d) turns tracked parameters into intermediates: they get no gradients and the optimizer skips them"
WHY = """Moving a tracked tensor records a differentiable step (see `to_device()` in Autodiff), and
a module's `to_device()` moves every parameter that way: the moved parameters are no longer
leaves, `GradientsParams.from_grads` finds no gradient for them, and optimizer steps leave them
unchanged, without an error. `fork(device)` moves the parameters onto a fresh graph, so trainable
parameters stay `require_grad()` leaves. (PyTorch's `model.to(device)` moves parameters in place.)"""
RECIPE = "model = model.fork(device) before training on device"


def torch_side():
    lin = torch.nn.Linear(2, 1, bias=False)
    torch.nn.init.ones_(lin.weight)
    lin = lin.to("cpu")
    lin(torch.tensor([[1.0, 2.0]])).sum().backward()
    torch.optim.SGD(lin.parameters(), lr=1.0).step()
    lin.weight.tolist()


def burn_literal():
    ad = Device.cpu().autodiff()
    lin = nn.LinearConfig(2, 1).with_bias(False).with_initializer(Initializer.ones()).init(ad)
    lin = lin.to_device(ad)
    grads = GradientsParams.from_grads(lin.forward(Tensor.from_floats([[1.0, 2.0]], ad)).sum().backward(), lin)
    lin = SgdConfig().init().step(1.0, lin, grads)
    lin.weight.val().transpose().to_data().to_list()


def burn_side():
    ad = Device.cpu().autodiff()
    lin = nn.LinearConfig(2, 1).with_bias(False).with_initializer(Initializer.ones()).init(ad)
    lin = lin.fork(ad)
    grads = GradientsParams.from_grads(lin.forward(Tensor.from_floats([[1.0, 2.0]], ad)).sum().backward(), lin)
    lin = SgdConfig().init().step(1.0, lin, grads)
    lin.weight.val().transpose().to_data().to_list()


TORCH = {"lin.weight.tolist()": [[0.0, -1.0]]}
LITERAL = {"lin.weight.val().transpose().to_data().to_list()": [[1.0, 1.0]]}
BURN = {"lin.weight.val().transpose().to_data().to_list()": [[0.0, -1.0]]}
