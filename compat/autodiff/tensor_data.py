"""x.data: there is none; without_autodiff() or to_torch()."""
import torch

from burn_torch import Device, Tensor
from burn_torch.compat.entry import Raises

ID = "tensor_data"
TITLE = "No `x.data`: use `without_autodiff()`"
CATEGORY = "autodiff"
SEVERITY = "loud"
DETECTORS = ("data_read",)
WHAT = "tensors have no .data; the values without autodiff are x.without_autodiff()"
WHY = """PyTorch's `.data` is a view of the values outside autograd, mostly used to update parameters
in place. burn_torch tensors are immutable, so there is nothing to write through; the
graph-free value is `x.without_autodiff()` (Burn's `inner()`), and `burn_torch.compat.to_torch(x)`
gives the torch storage itself."""
RECIPE = "x.without_autodiff() for the values; update parameters by building a new leaf"


def torch_side():
    x = torch.tensor([1.0, 2.0], requires_grad=True)
    x.data.requires_grad


def burn_literal():
    ad = Device.cpu().autodiff()
    x = Tensor.from_floats([1.0, 2.0], ad).require_grad()
    x.data


def burn_side():
    ad = Device.cpu().autodiff()
    x = Tensor.from_floats([1.0, 2.0], ad).require_grad()
    x.without_autodiff().is_autodiff()


TORCH = {"x.data.requires_grad": False}
LITERAL = Raises(AttributeError, "'Tensor' object has no attribute 'data'")
BURN = {"x.without_autodiff().is_autodiff()": False}
