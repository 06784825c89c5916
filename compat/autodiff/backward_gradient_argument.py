"""y.backward(v): Burn's backward takes no seed; write (y * v).sum().backward()."""
import torch

from burn_torch import Device, Tensor, UnsupportedAutodiffFeatureError
from burn_torch.compat.entry import Raises

ID = "backward_gradient_argument"
TITLE = "`y.backward(v)`: backward takes no gradient argument"
CATEGORY = "autodiff"
SEVERITY = "loud"
DETECTORS = ("backward_gradient_argument",)
WHAT = "backward() takes no arguments: an explicit gradient (vector-Jacobian seed) raises"
WHY = """Burn's backward always starts from ones of the output's shape. A vector-Jacobian product is
expressed in the forward pass instead: weighting the output by a constant `v` and summing gives
exactly the gradients PyTorch computes from `y.backward(v)`."""
RECIPE = "(y * v).sum().backward(), with v a constant (no require_grad)"


def torch_side():
    x = torch.tensor([1.0, 2.0], requires_grad=True)
    y = x * x
    y.backward(torch.tensor([1.0, 10.0]))
    x.grad.tolist()


def burn_literal():
    ad = Device.cpu().autodiff()
    x = Tensor.from_floats([1.0, 2.0], ad).require_grad()
    y = x * x
    grads = y.backward(Tensor.from_floats([1.0, 10.0], ad))


def burn_side():
    ad = Device.cpu().autodiff()
    x = Tensor.from_floats([1.0, 2.0], ad).require_grad()
    y = x * x
    v = Tensor.from_floats([1.0, 10.0], ad)
    grads = (y * v).sum().backward()
    x.grad(grads).to_data().to_list()


TORCH = {"x.grad.tolist()": [2.0, 40.0]}
LITERAL = Raises(UnsupportedAutodiffFeatureError, "for y.backward(v) write (y * v).sum().backward()")
BURN = {"x.grad(grads).to_data().to_list()": [2.0, 40.0]}
