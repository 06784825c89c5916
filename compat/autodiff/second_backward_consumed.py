"""A second backward through a consumed graph: both raise, Burn before consuming anything."""
import torch

from burn_torch import Device, GraphConsumedError, Tensor
from burn_torch.compat.entry import Raises

ID = "second_backward_consumed"
TITLE = "A second backward through a consumed graph raises (before touching anything)"
CATEGORY = "autodiff"
SEVERITY = "loud"
DETECTORS = ("backward_through_consumed_graph",)
WHAT = "backward through an already consumed intermediate raises GraphConsumedError, checked up front"
WHY = """Backward consumes the recorded steps reachable from the output, as PyTorch frees its saved
tensors. Both refuse a second pass through them; Burn checks the whole ancestry before consuming
anything, so a failed call leaves the graph and every container untouched. Leaves stay reusable:
a fresh forward pass from them backpropagates normally, and `is_tracked()` stays True on the
consumed tensors (it reports graph participation, not whether another backward would succeed)."""
RECIPE = "recompute the forward pass from the leaves for each backward (or combine the losses first)"


def torch_side():
    x = torch.tensor([1.0, 2.0], requires_grad=True)
    h = x * x
    h.sum().backward()
    (h * 3).sum().backward()


def burn_literal():
    ad = Device.cpu().autodiff()
    x = Tensor.from_floats([1.0, 2.0], ad).require_grad()
    h = x * x
    grads = h.sum().backward()
    grads = (h * 3).sum().backward()


def burn_side():
    ad = Device.cpu().autodiff()
    x = Tensor.from_floats([1.0, 2.0], ad).require_grad()
    h = x * x
    grads = h.sum().backward()
    fresh = (x * 3).sum()
    try:
        (fresh + (h * 3).sum()).backward()  # needs h's consumed step: raises, consuming nothing
    except GraphConsumedError:
        pass
    grads_fresh = fresh.backward()  # fresh's own steps are intact
    h = x * x  # recompute the forward pass from the leaf
    grads = (h * 3).sum().backward()
    x.grad(grads_fresh).to_data().to_list()
    x.grad(grads).to_data().to_list()


TORCH = Raises(RuntimeError, "Trying to backward through the graph a second time")
LITERAL = Raises(GraphConsumedError, "which an earlier backward consumed")
BURN = {"x.grad(grads_fresh).to_data().to_list()": [3.0, 3.0],
        "x.grad(grads).to_data().to_list()": [6.0, 12.0]}
