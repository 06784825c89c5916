"""A hand-written update (p -= lr * p.grad): build a new leaf each step."""
import torch

from burn_torch import Device, Tensor
from burn_torch.compat.entry import Raises

ID = "manual_sgd_update"
TITLE = "A hand-written update builds a new leaf each step"
CATEGORY = "training"
SEVERITY = "loud"
DETECTORS = ("grad_update_augassign", "grad_update_inplace")
WHAT = "p -= lr * g makes p a tracked intermediate (not a leaf): the next step has no gradient for it"
WHY = """PyTorch updates a parameter in place under `no_grad()`, so it stays the same leaf. In
burn_torch `w -= g * lr` is `w = w - g * lr`, a recorded operation on a tracked tensor: `w` becomes
an intermediate, the next backward gives no gradient for it, and `w.grad(grads)` is None. The
update has to leave the graph and make a new leaf, as Burn's optimizers do:
`Tensor.from_inner(w.inner() - g * lr).require_grad()`. Module parameters are better updated by an
optimizer (`opt.step(lr, model, grads)`)."""
RECIPE = "w = Tensor.from_inner(w.inner() - w.grad(grads) * lr).require_grad() (or use an optimizer)"


def torch_side():
    w = torch.tensor([1.0, 2.0], requires_grad=True)
    for _ in range(2):
        (w * w).sum().backward()
        with torch.no_grad():
            w -= 0.25 * w.grad
        w.grad = None
    w.tolist()


def burn_literal():
    ad = Device.cpu().autodiff()
    w = Tensor.from_floats([1.0, 2.0], ad).require_grad()
    for _ in range(2):
        grads = (w * w).sum().backward()
        w -= w.grad(grads) * 0.25


def burn_side():
    ad = Device.cpu().autodiff()
    w = Tensor.from_floats([1.0, 2.0], ad).require_grad()
    for _ in range(2):
        grads = (w * w).sum().backward()
        w = Tensor.from_inner(w.inner() - w.grad(grads) * 0.25).require_grad()
    w.to_data().to_list()


TORCH = {"w.tolist()": [0.25, 0.5]}
LITERAL = Raises(TypeError, "unsupported operand type(s) for *: 'NoneType' and 'float'")
BURN = {"w.to_data().to_list()": [0.25, 0.5]}
