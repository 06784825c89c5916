"""x.grad is a method: `x.grad is None` is always False."""
import torch

from burn_torch import Device, Tensor

ID = "grad_is_a_method"
TITLE = "`x.grad` is a method, so `x.grad is None` is always False"
CATEGORY = "autodiff"
SEVERITY = "silent"
DETECTORS = ("grad_none_check",)
WHAT = "x.grad is a bound method here: `x.grad is None` is always False, whatever the gradients"
WHY = """A tensor holds no gradient: gradients live in the container a backward pass returns, and
`x.grad(grads)` looks this tensor up in it. The attribute `x.grad` is therefore the lookup method
itself, which is never None, so a PyTorch check for a missing gradient silently passes."""
RECIPE = "ask the container: x.grad(grads) is None"


def torch_side():
    x = torch.tensor([1.0, 2.0], requires_grad=True)
    unused = torch.tensor([3.0], requires_grad=True)
    (x * x).sum().backward()
    unused.grad is None


def burn_literal():
    ad = Device.cpu().autodiff()
    x = Tensor.from_floats([1.0, 2.0], ad).require_grad()
    unused = Tensor.from_floats([3.0], ad).require_grad()
    grads = (x * x).sum().backward()
    unused.grad is None


def burn_side():
    ad = Device.cpu().autodiff()
    x = Tensor.from_floats([1.0, 2.0], ad).require_grad()
    unused = Tensor.from_floats([3.0], ad).require_grad()
    grads = (x * x).sum().backward()
    unused.grad(grads) is None


TORCH = {"unused.grad is None": True}
LITERAL = {"unused.grad is None": False}
BURN = {"unused.grad(grads) is None": True}
