"""retain_grad / intermediate gradients: none in Burn; split the graph at the intermediate."""
import torch

from burn_torch import Device, NonLeafRequireGradError, Tensor
from burn_torch.compat.entry import Raises

ID = "retain_grad"
TITLE = "No `retain_grad()`: intermediate tensors never keep a gradient"
CATEGORY = "autodiff"
SEVERITY = "loud"
DETECTORS = ("retain_grad_call",)
WHAT = "intermediate gradients are freed during backward; require_grad() on an intermediate raises"
WHY = """Only leaves marked with `require_grad()` keep their gradient; the gradients of intermediates
are dropped as soon as backward has used them, and `h.grad(grads)` is None (PyTorch's `h.grad`
is None too, with a warning). Retaining an intermediate's gradient while keeping its source graph
is unsupported. The chain rule gives the same numbers in two steps: make the intermediate a new
leaf, backpropagate the loss to it, then backpropagate `(h * g_h).sum()` to the source leaves."""
RECIPE = "h_leaf = h.detach().require_grad(); g_h = h_leaf.grad(loss(h_leaf).backward()); then (h * g_h).sum().backward()"


def torch_side():
    x = torch.tensor([1.0, 2.0], requires_grad=True)
    h = x * 2
    h.retain_grad()
    (h * h).sum().backward()
    h.grad.tolist()
    x.grad.tolist()


def burn_literal():
    ad = Device.cpu().autodiff()
    x = Tensor.from_floats([1.0, 2.0], ad).require_grad()
    h = (x * 2).require_grad()


def burn_side():
    ad = Device.cpu().autodiff()
    x = Tensor.from_floats([1.0, 2.0], ad).require_grad()
    h = x * 2
    h_leaf = h.detach().require_grad()
    g_h = h_leaf.grad((h_leaf * h_leaf).sum().backward())
    grads = (h * g_h).sum().backward()
    g_h.to_data().to_list()
    x.grad(grads).to_data().to_list()


TORCH = {"h.grad.tolist()": [4.0, 8.0], "x.grad.tolist()": [8.0, 16.0]}
LITERAL = Raises(NonLeafRequireGradError, "call .detach().require_grad() for a new leaf")
BURN = {"g_h.to_data().to_list()": [4.0, 8.0], "x.grad(grads).to_data().to_list()": [8.0, 16.0]}
