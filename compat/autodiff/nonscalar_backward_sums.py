"""A non-scalar backward: PyTorch raises, Burn backpropagates the sum."""
import torch

from burn_torch import Device, Tensor
from burn_torch.compat.entry import Raises

ID = "nonscalar_backward_sums"
TITLE = "`backward()` on a non-scalar output sums it instead of raising"
CATEGORY = "autodiff"
SEVERITY = "silent"
DETECTORS = ("unreduced_backward",)
WHAT = "backward() on a non-scalar tensor is seeded with ones (same as .sum()); PyTorch raises"
WHY = """Burn seeds every backward pass with ones of the output's shape, so any tensor can be
backpropagated and a non-scalar output behaves as its sum. PyTorch refuses to guess and raises
"grad can be implicitly created only for scalar outputs". A loss that forgot its final `mean()`
therefore raises in PyTorch but, in burn_torch, runs with gradients batch-size times too large."""
RECIPE = "reduce the loss explicitly (loss.mean() or loss.sum()) before backward()"


def torch_side():
    x = torch.tensor([1.0, 2.0], requires_grad=True)
    y = x * x
    y.backward()


def burn_literal():
    ad = Device.cpu().autodiff()
    x = Tensor.from_floats([1.0, 2.0], ad).require_grad()
    y = x * x
    grads = y.backward()
    x.grad(grads).to_data().to_list()


def burn_side():
    ad = Device.cpu().autodiff()
    x = Tensor.from_floats([1.0, 2.0], ad).require_grad()
    y = x * x
    grads = y.mean().backward()
    x.grad(grads).to_data().to_list()


TORCH = Raises(RuntimeError, "grad can be implicitly created only for scalar outputs")
LITERAL = {"x.grad(grads).to_data().to_list()": [2.0, 4.0]}
BURN = {"x.grad(grads).to_data().to_list()": [1.0, 2.0]}
