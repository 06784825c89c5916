"""nn.Parameter always requires grad; Param follows its tensor's autodiff."""
import torch

from burn_torch import Device, Tensor
from burn_torch.module import Param

ID = "parameter_vs_param"
TITLE = "`Param` keeps a gradient only on an autodiff tensor (or after `train()`)"
CATEGORY = "modules"
SEVERITY = "silent"
DETECTORS = ("parameter_call",)
WHAT = "Param(t) on a tensor without autodiff is trainable in configuration only: it is no require_grad leaf until train()"
WHY = """`torch.nn.Parameter` always requires gradients. A burn_torch `Param` pairs a stable `ParamId`
(what optimizers and gradient containers key on) with a tensor and its configured trainability.
On an autodiff tensor a trainable Param is a `require_grad()` leaf; on a plain tensor the
setting is only recorded, and takes effect when the module's `train()` enables autodiff. Params
are immutable values (`set_require_grad` returns a new Param with the same id)."""
RECIPE = "create parameters on device.autodiff(), or build the module on a plain device and call model = model.train()"


def torch_side():
    p = torch.nn.Parameter(torch.tensor([1.0, 2.0]))
    p.requires_grad


def burn_literal():
    p = Param(Tensor.from_floats([1.0, 2.0], Device.cpu()))
    p.is_require_grad()


def burn_side():
    p = Param(Tensor.from_floats([1.0, 2.0], Device.cpu().autodiff()))
    p.is_require_grad()


TORCH = {"p.requires_grad": True}
LITERAL = {"p.is_require_grad()": False}
BURN = {"p.is_require_grad()": True}
