"""register_hook: no hooks; split the graph and edit the gradient between the two passes."""
import torch

from burn_torch import Device, Tensor
from burn_torch.compat.entry import Raises

ID = "hooks"
TITLE = "No gradient hooks (`register_hook`)"
CATEGORY = "autodiff"
SEVERITY = "loud"
DETECTORS = ("register_hook_call",)
WHAT = "tensors have no register_hook: backward cannot be intercepted"
WHY = """Burn's backward pass runs the recorded steps without callbacks. A hook that changes the
gradient flowing through an intermediate is ported by splitting the graph there: backpropagate
the loss to the intermediate made a new leaf, change its gradient, then backpropagate
`(h * g_h).sum()` to the source leaves. A hook on a leaf becomes an edit of its gradient in the
container (`x.grad_replace(grads, ...)`) after backward."""
RECIPE = "split at the tensor: g_h = h_leaf.grad(...); change g_h; (h * g_h).sum().backward(); for leaves use grad_replace"


def torch_side():
    x = torch.tensor([1.0, 2.0], requires_grad=True)
    h = x * 3
    h.register_hook(lambda g: g * 10)
    h.sum().backward()
    x.grad.tolist()


def burn_literal():
    ad = Device.cpu().autodiff()
    x = Tensor.from_floats([1.0, 2.0], ad).require_grad()
    h = x * 3
    h.register_hook(lambda g: g * 10)


def burn_side():
    ad = Device.cpu().autodiff()
    x = Tensor.from_floats([1.0, 2.0], ad).require_grad()
    h = x * 3
    h_leaf = h.detach().require_grad()
    g_h = h_leaf.grad(h_leaf.sum().backward()) * 10  # what the hook did
    grads = (h * g_h).sum().backward()
    x.grad(grads).to_data().to_list()


TORCH = {"x.grad.tolist()": [30.0, 30.0]}
LITERAL = Raises(AttributeError, "'Tensor' object has no attribute 'register_hook'")
BURN = {"x.grad(grads).to_data().to_list()": [30.0, 30.0]}
