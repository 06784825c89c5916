"""is_leaf: use is_require_grad() / is_tracked()."""
import torch

from burn_torch import Device, Tensor
from burn_torch.compat.entry import Raises

ID = "is_leaf"
TITLE = "No `is_leaf`: a leaf with a gradient is `is_require_grad()`"
CATEGORY = "autodiff"
SEVERITY = "loud"
DETECTORS = ("is_leaf_read",)
WHAT = "tensors have no is_leaf; ask is_require_grad() (a gradient-keeping leaf) or is_tracked()"
WHY = """PyTorch calls every tensor that was not produced by a recorded operation a leaf, whether or
not it requires gradients. Burn has no such flag: what matters is whether a tensor keeps its
gradient (`is_require_grad()`, true exactly for `require_grad()` leaves) and whether it takes
part in a graph (`is_tracked()`). PyTorch's `x.is_leaf and x.requires_grad` is `x.is_require_grad()`;
its `x.is_leaf` is `x.is_require_grad() or not x.is_tracked()`."""
RECIPE = "x.is_require_grad() for 'leaf that gets a gradient'; x.is_require_grad() or not x.is_tracked() for is_leaf"


def torch_side():
    x = torch.tensor([1.0, 2.0], requires_grad=True)
    h = x * 2
    x.is_leaf
    h.is_leaf


def burn_literal():
    ad = Device.cpu().autodiff()
    x = Tensor.from_floats([1.0, 2.0], ad).require_grad()
    h = x * 2
    x.is_leaf


def burn_side():
    ad = Device.cpu().autodiff()
    x = Tensor.from_floats([1.0, 2.0], ad).require_grad()
    h = x * 2
    x.is_require_grad()
    h.is_require_grad()


TORCH = {"x.is_leaf": True, "h.is_leaf": False}
LITERAL = Raises(AttributeError, "'Tensor' object has no attribute 'is_leaf'")
BURN = {"x.is_require_grad()": True, "h.is_require_grad()": False}
