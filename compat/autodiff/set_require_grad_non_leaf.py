"""requires_grad_(False) on an intermediate raises in PyTorch; Burn cuts the lineage."""
import torch

from burn_torch import Device, Tensor
from burn_torch.compat.entry import Raises

ID = "set_require_grad_non_leaf"
TITLE = "`set_require_grad(False)` on an intermediate cuts it from the graph"
CATEGORY = "autodiff"
SEVERITY = "silent"
DETECTORS = ("intermediate_requires_grad_off",)
WHAT = "set_require_grad(False) on a tracked intermediate returns an untracked constant; PyTorch raises"
WHY = """PyTorch only lets leaves change `requires_grad` and points to `detach()` for intermediates.
Burn's `set_require_grad(False)` starts a new untracked lineage on any tensor: the result keeps its
autodiff association but no gradient flows through it to upstream tensors. That is what
`detach()` does to an intermediate in both libraries."""
RECIPE = "c = h.set_require_grad(False) or c = h.detach(): c is a constant for later operations"


def torch_side():
    x = torch.tensor([1.0, 2.0], requires_grad=True)
    h = x * 2
    h.requires_grad_(False)


def burn_literal():
    ad = Device.cpu().autodiff()
    x = Tensor.from_floats([1.0, 2.0], ad).require_grad()
    h = x * 2
    c = h.set_require_grad(False)
    grads = (c * x).sum().backward()
    c.is_tracked()
    x.grad(grads).to_data().to_list()


def burn_side():
    ad = Device.cpu().autodiff()
    x = Tensor.from_floats([1.0, 2.0], ad).require_grad()
    h = x * 2
    c = h.detach()
    grads = (c * x).sum().backward()
    c.is_tracked()
    x.grad(grads).to_data().to_list()


TORCH = Raises(RuntimeError, "you can only change requires_grad flags of leaf variables")
LITERAL = {"c.is_tracked()": False, "x.grad(grads).to_data().to_list()": [2.0, 4.0]}
BURN = {"c.is_tracked()": False, "x.grad(grads).to_data().to_list()": [2.0, 4.0]}
