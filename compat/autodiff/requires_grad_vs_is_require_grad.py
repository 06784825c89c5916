"""requires_grad vs is_require_grad vs is_tracked."""
import torch

from burn_torch import Device, Tensor

ID = "requires_grad_vs_is_require_grad"
TITLE = "`requires_grad` is `is_tracked()`, not `is_require_grad()`"
CATEGORY = "autodiff"
SEVERITY = "silent"
DETECTORS = ("requires_grad_read",)
WHAT = "is_require_grad() means 'keeps its gradient' (leaves only); PyTorch's requires_grad is is_tracked()"
WHY = """Burn separates three properties that PyTorch folds into `requires_grad`: `is_autodiff()`
(the tensor may be recorded), `is_tracked()` (it takes part in a recorded graph) and
`is_require_grad()` (it keeps its gradient after backward, which only `require_grad()` leaves do).
A tracked intermediate has `requires_grad == True` in PyTorch but `is_require_grad() == False`
here. Always `is_require_grad() ⇒ is_tracked() ⇒ is_autodiff()`."""
RECIPE = "use t.is_tracked() for 'is part of the graph', t.is_require_grad() for 'is a leaf with a gradient'"


def torch_side():
    x = torch.tensor([1.0, 2.0], requires_grad=True)
    h = x * 2
    x.requires_grad
    h.requires_grad


def burn_literal():
    ad = Device.cpu().autodiff()
    x = Tensor.from_floats([1.0, 2.0], ad).require_grad()
    h = x * 2
    x.is_require_grad()
    h.is_require_grad()


def burn_side():
    ad = Device.cpu().autodiff()
    x = Tensor.from_floats([1.0, 2.0], ad).require_grad()
    h = x * 2
    x.is_tracked()
    h.is_tracked()


TORCH = {"x.requires_grad": True, "h.requires_grad": True}
LITERAL = {"x.is_require_grad()": True, "h.is_require_grad()": False}
BURN = {"x.is_tracked()": True, "h.is_tracked()": True}
