"""requires_grad_(False) mutates; set_require_grad(False) returns a new tensor."""
import torch

from burn_torch import Device, Tensor

ID = "set_require_grad_returns_new"
TITLE = "`set_require_grad(False)` returns a new tensor; the original leaf is unchanged"
CATEGORY = "autodiff"
SEVERITY = "silent"
DETECTORS = ("requires_grad_inplace_call",)
WHAT = "set_require_grad(flag) returns a new tensor; calling it for its effect changes nothing"
WHY = """PyTorch's `requires_grad_()` flips a flag on the tensor in place. burn_torch tensors are
immutable values: `set_require_grad(False)` returns a tensor on a new, untracked lineage and
leaves the original leaf as it was, so a call whose result is dropped does nothing."""
RECIPE = "rebind the result: x = x.set_require_grad(False)"


def torch_side():
    x = torch.tensor([1.0, 2.0], requires_grad=True)
    x.requires_grad_(False)
    x.requires_grad


def burn_literal():
    ad = Device.cpu().autodiff()
    x = Tensor.from_floats([1.0, 2.0], ad).require_grad()
    x.set_require_grad(False)
    x.is_require_grad()


def burn_side():
    ad = Device.cpu().autodiff()
    x = Tensor.from_floats([1.0, 2.0], ad).require_grad()
    x = x.set_require_grad(False)
    x.is_require_grad()


TORCH = {"x.requires_grad": False}
LITERAL = {"x.is_require_grad()": True}
BURN = {"x.is_require_grad()": False}
