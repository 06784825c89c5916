"""requires_grad=True anywhere vs require_grad() only with autodiff."""
import torch

from burn_torch import AutodiffDisabledError, Device, Tensor
from burn_torch.compat.entry import Raises

ID = "require_grad_needs_autodiff"
TITLE = "`require_grad()` needs a tensor with autodiff (`Device.cpu().autodiff()`)"
CATEGORY = "autodiff"
SEVERITY = "loud"
DETECTORS = ("requires_grad_keyword",)
WHAT = "autodiff is a property each tensor carries: require_grad() on a tensor without it raises"
WHY = """In Burn, autodiff is selected at runtime per tensor: a device says whether tensors created on
it carry an autodiff association, and only such tensors can be recorded. `require_grad()` makes an
autodiff leaf keep its gradient; it does not enable autodiff, so on a plain tensor it raises
(Burn panics) instead of silently switching modes."""
RECIPE = "create the tensor on device.autodiff() (or call .autodiff() first), then .require_grad()"


def torch_side():
    x = torch.tensor([1.0, 2.0], requires_grad=True)
    x.requires_grad


def burn_literal():
    x = Tensor.from_floats([1.0, 2.0], Device.cpu()).require_grad()


def burn_side():
    x = Tensor.from_floats([1.0, 2.0], Device.cpu().autodiff()).require_grad()
    x.is_require_grad()


TORCH = {"x.requires_grad": True}
LITERAL = Raises(AutodiffDisabledError, "call Tensor.autodiff() first")
BURN = {"x.is_require_grad()": True}
