"""detach() keeps a leaf's gradient retention in Burn."""
import torch

from burn_torch import Device, Tensor

ID = "detach_keeps_retention"
TITLE = "`detach()` of a leaf is a new leaf that still keeps its gradient"
CATEGORY = "autodiff"
SEVERITY = "silent"
DETECTORS = ("detach_call",)
WHAT = "detach() keeps the autodiff association and a leaf's require_grad; PyTorch's never requires grad"
WHY = """Burn's `detach()` starts a new graph lineage but preserves the tensor's autodiff association
and, for a `require_grad()` leaf, its gradient retention: the result is a new, separate leaf that
gets its own gradient. PyTorch's `detach()` always returns a tensor that does not require
gradients. (Detaching a tracked intermediate gives an untracked constant in both.)"""
RECIPE = "for a constant use x.set_require_grad(False); for inference values use x.without_autodiff()"


def torch_side():
    x = torch.tensor([1.0, 2.0], requires_grad=True)
    d = x.detach()
    d.requires_grad


def burn_literal():
    ad = Device.cpu().autodiff()
    x = Tensor.from_floats([1.0, 2.0], ad).require_grad()
    d = x.detach()
    d.is_require_grad()


def burn_side():
    ad = Device.cpu().autodiff()
    x = Tensor.from_floats([1.0, 2.0], ad).require_grad()
    d = x.set_require_grad(False)
    d.is_require_grad()


TORCH = {"d.requires_grad": False}
LITERAL = {"d.is_require_grad()": True}
BURN = {"d.is_require_grad()": False}
