"""clone() is the same value and graph step, not a new node."""
import torch

from burn_torch import Device, Tensor

ID = "clone_is_same_handle"
TITLE = "`clone()` of a leaf is the same leaf"
CATEGORY = "autodiff"
SEVERITY = "silent"
DETECTORS = ("clone_call",)
WHAT = "clone() is a cheap handle to the same value and graph step; a cloned leaf is the same leaf"
WHY = """burn_torch tensors are immutable values, so `clone()` copies nothing and records nothing: the
clone shares the original's graph step (Burn's `x.clone()` is how a value is used twice). In
PyTorch `x.clone()` records a copy operation, so a clone of a leaf is an intermediate whose
`.grad` stays None."""
RECIPE = "use clone() freely; x.grad(grads) and x.clone().grad(grads) are the same gradient"


def torch_side():
    x = torch.tensor([1.0, 2.0], requires_grad=True)
    c = x.clone()
    c.sum().backward()
    c.grad is None
    x.grad.tolist()


def burn_literal():
    ad = Device.cpu().autodiff()
    x = Tensor.from_floats([1.0, 2.0], ad).require_grad()
    c = x.clone()
    grads = c.sum().backward()
    c.grad(grads) is None
    x.grad(grads).to_data().to_list()


def burn_side():
    ad = Device.cpu().autodiff()
    x = Tensor.from_floats([1.0, 2.0], ad).require_grad()
    grads = x.clone().sum().backward()
    x.grad(grads).to_data().to_list()


TORCH = {"c.grad is None": True, "x.grad.tolist()": [1.0, 1.0]}
LITERAL = {"c.grad(grads) is None": False, "x.grad(grads).to_data().to_list()": [1.0, 1.0]}
BURN = {"x.grad(grads).to_data().to_list()": [1.0, 1.0]}
