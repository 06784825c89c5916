"""Editing gradients: x.grad.clamp_() vs grad_replace."""
import torch

from burn_torch import Device, Tensor

ID = "edit_gradients"
TITLE = "Edit a gradient with `grad_replace`, not in place"
CATEGORY = "training"
SEVERITY = "silent"
DETECTORS = ("grad_inplace_edit", "grad_set")
WHAT = "x.grad(grads) is a value: changing a copy leaves the container (what the optimizer reads) unchanged"
WHY = """PyTorch edits gradients in place on `.grad` (`x.grad.clamp_(-5, 5)`, `x.grad *= s`). Here the
gradient lives in the container and tensors are immutable: computing a clamped gradient creates
a new tensor, and the container keeps the old one until `x.grad_replace(grads, new)` puts the new
one in. The replacement must not carry autodiff (gradients never do). For clipping during
training, configure the optimizer's gradient clipping instead."""
RECIPE = "x.grad_replace(grads, x.grad(grads).clamp(-5.0, 5.0))"


def torch_side():
    x = torch.tensor([1.0, 2.0], requires_grad=True)
    (x * x * 10.0).sum().backward()
    x.grad.clamp_(-5, 5)
    x.grad.tolist()


def burn_literal():
    ad = Device.cpu().autodiff()
    x = Tensor.from_floats([1.0, 2.0], ad).require_grad()
    grads = (x * x * 10.0).sum().backward()
    g = x.grad(grads)
    g = g.clamp(-5.0, 5.0)  # a new tensor: grads still holds the old one
    x.grad(grads).to_data().to_list()


def burn_side():
    ad = Device.cpu().autodiff()
    x = Tensor.from_floats([1.0, 2.0], ad).require_grad()
    grads = (x * x * 10.0).sum().backward()
    x.grad_replace(grads, x.grad(grads).clamp(-5.0, 5.0))
    x.grad(grads).to_data().to_list()


TORCH = {"x.grad.tolist()": [5.0, 5.0]}
LITERAL = {"x.grad(grads).to_data().to_list()": [20.0, 40.0]}
BURN = {"x.grad(grads).to_data().to_list()": [5.0, 5.0]}
