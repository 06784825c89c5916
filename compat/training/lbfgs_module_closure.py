"""LBFGS: Burn's closure takes the module and returns (loss, grads); step returns the module."""
import torch

from burn_torch import Device, Tensor
from burn_torch.compat.entry import Raises
from burn_torch.module import Module, Param
from burn_torch.optim import GradientsParams, LBFGSConfig

ID = "lbfgs_module_closure"
TITLE = "`LBFGS.step(lr, module, closure)`: the closure takes the module, returns `(loss, grads)`"
CATEGORY = "training"
SEVERITY = "loud"
DETECTORS = ("lbfgs_optimizer",)  # optimizer_step_closure (optimizer_step_returns_module) flags opt.step(closure)
WHAT = "opt.step(closure) raises: Burn's LBFGS step takes lr, the module and closure(module) -> (loss, grads)"
WHY = """`torch.optim.LBFGS.step(closure)` calls a zero-argument closure that zeroes, recomputes
and backpropagates the loss of parameters it updates in place. Burn's modules are values: its
`LBFGS::step(lr, module, closure)` calls `closure(module)` on each trial module, expects the loss
(a number) and the `GradientsParams`, and returns `(updated module, last loss)`. The learning
rate is an argument of every step, as for every Burn optimizer; `max_iter`, `history_size`,
the tolerances and the strong-Wolfe line search are `LBFGSConfig` fields with torch's defaults."""
RECIPE = "model, loss = opt.step(lr, model, closure); closure(m) -> (loss number, GradientsParams)"


def torch_side():
    x = torch.nn.Parameter(torch.tensor([3.0]))
    opt = torch.optim.LBFGS([x], lr=1.0)

    def closure():
        opt.zero_grad()
        loss = ((x - 1.0) ** 2).sum()
        loss.backward()
        return loss
    opt.step(closure)
    round(x.item(), 4)


def burn_literal():
    opt = LBFGSConfig().init()

    def closure():
        return 0.0
    opt.step(closure)


def burn_side():
    class Point(Module):
        def __init__(self, device):
            super().__init__()
            self.x = Param(Tensor.from_floats([3.0], device))

    def closure(m):
        d = m.x.val() - 1.0
        loss = (d * d).sum()
        return float(loss.into_scalar()), GradientsParams.from_grads(loss.backward(), m)
    point, loss = LBFGSConfig().init().step(1.0, Point(Device.cpu().autodiff()), closure)
    round(float(point.x.val().into_scalar()), 4)


TORCH = {"round(x.item(), 4)": 1.0}
LITERAL = Raises(TypeError, "LBFGS.step() missing 2 required positional arguments: 'module' and 'closure'")
BURN = {"round(float(point.x.val().into_scalar()), 4)": 1.0}
