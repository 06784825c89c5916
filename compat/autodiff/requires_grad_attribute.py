"""x.requires_grad = True: tensors are immutable values; require_grad() returns the leaf."""
import torch

from burn_torch import Device, Tensor
from burn_torch.compat.entry import Raises

ID = "requires_grad_attribute"
TITLE = "No `x.requires_grad = True`: `require_grad()` returns the leaf"
CATEGORY = "autodiff"
SEVERITY = "loud"
DETECTORS = ("requires_grad_assign",)
WHAT = "tensors are immutable values: there is no requires_grad attribute to assign"
WHY = """burn_torch tensors are immutable values, like Burn's: every change of autodiff state
(`require_grad()`, `set_require_grad(...)`, `detach()`, `autodiff()`) returns a new tensor, which
has to be bound to a name. There is no flag to flip on an existing tensor."""
RECIPE = "x = x.require_grad() (or x = x.set_require_grad(flag))"


def torch_side():
    x = torch.tensor([1.0, 2.0])
    x.requires_grad = True
    x.requires_grad


def burn_literal():
    ad = Device.cpu().autodiff()
    x = Tensor.from_floats([1.0, 2.0], ad)
    x.requires_grad = True


def burn_side():
    ad = Device.cpu().autodiff()
    x = Tensor.from_floats([1.0, 2.0], ad)
    x = x.require_grad()
    x.is_require_grad()


TORCH = {"x.requires_grad": True}
LITERAL = Raises(AttributeError, "'Tensor' object has no attribute 'requires_grad'")
BURN = {"x.is_require_grad()": True}
