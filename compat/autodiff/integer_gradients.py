"""Integer tensors: never tracked; require_grad raises TypeError."""
import torch

from burn_torch import Device, Tensor
from burn_torch.compat.entry import Raises

ID = "integer_gradients"
TITLE = "Int tensors carry autodiff but are never tracked"
CATEGORY = "autodiff"
SEVERITY = "loud"
DETECTORS = ("integer_requires_grad",)
WHAT = "require_grad() on an Int or Bool tensor raises TypeError; they keep the autodiff association only"
WHY = """Only Float tensors take part in the graph. An Int or Bool tensor created on an autodiff device
carries the device's autodiff association (`is_autodiff()` is True, as in Burn) but is never
tracked and has no gradient. Both libraries refuse to make an integer tensor require gradients;
PyTorch raises a RuntimeError, burn_torch a TypeError."""
RECIPE = "convert first: t.float().require_grad()"


def torch_side():
    i = torch.tensor([1, 2])
    i.requires_grad_()


def burn_literal():
    ad = Device.cpu().autodiff()
    i = Tensor.from_ints([1, 2], ad)
    i = i.require_grad()


def burn_side():
    ad = Device.cpu().autodiff()
    i = Tensor.from_ints([1, 2], ad)
    x = i.float().require_grad()
    i.is_autodiff()
    i.is_tracked()
    x.is_require_grad()


TORCH = Raises(RuntimeError, "only Tensors of floating point dtype can require gradients")
LITERAL = Raises(TypeError, "require_grad needs a Float tensor, got Int")
BURN = {"i.is_autodiff()": True, "i.is_tracked()": False, "x.is_require_grad()": True}
