"""No zero_grad: there is nothing to reset."""
import torch

from burn_torch import Device, Tensor
from burn_torch.compat.entry import Raises

ID = "no_zero_grad"
TITLE = "No `zero_grad()`: there is nothing to reset"
CATEGORY = "training"
SEVERITY = "loud"
DETECTORS = ("zero_grad_call", "grad_set_none", "grad_zero_call")
WHAT = "there is no .grad to clear: optimizer.zero_grad(), model.zero_grad() and x.grad = None do not exist"
WHY = """PyTorch accumulates every backward pass into `.grad`, so a training loop clears it before
each step. Burn never stores gradients on tensors: each backward pass returns a new container,
the optimizer consumes it, and the next step's backward returns a fresh one. The clearing step
simply disappears (and accumulation, when wanted, is explicit: see GradientsAccumulator)."""
RECIPE = "delete the zero_grad() / x.grad = None line"


def torch_side():
    x = torch.tensor([1.0, 2.0], requires_grad=True)
    (x * x).sum().backward()
    x.grad = None
    (x * x).sum().backward()
    x.grad.tolist()


def burn_literal():
    ad = Device.cpu().autodiff()
    x = Tensor.from_floats([1.0, 2.0], ad).require_grad()
    grads = (x * x).sum().backward()
    x.grad = None


def burn_side():
    ad = Device.cpu().autodiff()
    x = Tensor.from_floats([1.0, 2.0], ad).require_grad()
    grads = (x * x).sum().backward()
    grads = (x * x).sum().backward()
    x.grad(grads).to_data().to_list()


TORCH = {"x.grad.tolist()": [2.0, 4.0]}
LITERAL = Raises(AttributeError, "'Tensor' object attribute 'grad' is read-only")
BURN = {"x.grad(grads).to_data().to_list()": [2.0, 4.0]}
