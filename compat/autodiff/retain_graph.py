"""retain_graph: Burn has none; combine the losses into one backward."""
import torch

from burn_torch import Device, Tensor, UnsupportedAutodiffFeatureError
from burn_torch.compat.entry import Raises

ID = "retain_graph"
TITLE = "No `retain_graph`: combine losses that share intermediates"
CATEGORY = "autodiff"
SEVERITY = "loud"
DETECTORS = ("retain_graph_keyword",)
WHAT = "backward() has no retain_graph: the graph is always consumed, and the keyword raises"
WHY = """A Burn backward pass consumes the recorded steps it walks through, and there is no option to
keep them. Two losses computed from the same intermediates are added into one loss and
backpropagated once, which gives the same gradients as PyTorch's two passes accumulated into
`.grad` (gradients are linear in the loss)."""
RECIPE = "add the losses and call backward() once: (loss_a + loss_b).backward()"


def torch_side():
    x = torch.tensor([1.0, 2.0], requires_grad=True)
    h = x * x
    h.sum().backward(retain_graph=True)
    (h * 3).sum().backward()
    x.grad.tolist()


def burn_literal():
    ad = Device.cpu().autodiff()
    x = Tensor.from_floats([1.0, 2.0], ad).require_grad()
    h = x * x
    grads = h.sum().backward(retain_graph=True)


def burn_side():
    ad = Device.cpu().autodiff()
    x = Tensor.from_floats([1.0, 2.0], ad).require_grad()
    h = x * x
    grads = (h.sum() + (h * 3).sum()).backward()
    x.grad(grads).to_data().to_list()


TORCH = {"x.grad.tolist()": [8.0, 16.0]}
LITERAL = Raises(UnsupportedAutodiffFeatureError, "Burn has no retain_graph")
BURN = {"x.grad(grads).to_data().to_list()": [8.0, 16.0]}
