"""optimizer.step() mutates the model; Burn's step returns the updated module."""
import torch

from burn_torch import Device, Tensor, nn
from burn_torch.nn import Initializer
from burn_torch.optim import GradientsParams, SgdConfig

ID = "optimizer_step_returns_module"
TITLE = "`step(lr, model, grads)` returns the updated module"
CATEGORY = "training"
SEVERITY = "silent"
DETECTORS = ("optimizer_step_call", "optimizer_step_closure", "scaler_step_call")
WHAT = "the optimizer step takes lr, module and gradients and returns a new module; the old one is unchanged"
WHY = """A PyTorch optimizer holds references to the parameters and `step()` updates them in place,
with the learning rate fixed at construction (or by a scheduler). Burn's optimizers are
configured without parameters (`SgdConfig().init()`), and each step takes the learning rate, the
module and its `GradientsParams` and returns the updated module, as modules are values. Calling
it without rebinding the result trains nothing."""
RECIPE = "model = opt.step(lr, model, GradientsParams.from_grads(loss.backward(), model))"


def torch_side():
    lin = torch.nn.Linear(2, 1, bias=False)
    torch.nn.init.ones_(lin.weight)
    opt = torch.optim.SGD(lin.parameters(), lr=1.0)
    lin(torch.tensor([[1.0, 2.0]])).sum().backward()
    opt.step()
    lin.weight.tolist()


def burn_literal():
    ad = Device.cpu().autodiff()
    lin = nn.LinearConfig(2, 1).with_bias(False).with_initializer(Initializer.ones()).init(ad)
    opt = SgdConfig().init()
    grads = GradientsParams.from_grads(lin.forward(Tensor.from_floats([[1.0, 2.0]], ad)).sum().backward(), lin)
    opt.step(1.0, lin, grads)
    lin.weight.val().transpose().to_data().to_list()


def burn_side():
    ad = Device.cpu().autodiff()
    lin = nn.LinearConfig(2, 1).with_bias(False).with_initializer(Initializer.ones()).init(ad)
    opt = SgdConfig().init()
    grads = GradientsParams.from_grads(lin.forward(Tensor.from_floats([[1.0, 2.0]], ad)).sum().backward(), lin)
    lin = opt.step(1.0, lin, grads)
    lin.weight.val().transpose().to_data().to_list()


TORCH = {"lin.weight.tolist()": [[0.0, -1.0]]}
LITERAL = {"lin.weight.val().transpose().to_data().to_list()": [[1.0, 1.0]]}
BURN = {"lin.weight.val().transpose().to_data().to_list()": [[0.0, -1.0]]}
