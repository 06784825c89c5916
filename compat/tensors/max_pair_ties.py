"""torch.maximum splits the gradient of ties; Burn's max_pair gives it to self."""
import torch

from burn_torch import Device, Tensor

ID = "max_pair_ties"
TITLE = "`torch.maximum(a, b)` is not `a.max_pair(b)` at ties and NaNs"
CATEGORY = "tensors"
SEVERITY = "silent"
DETECTORS = ("elementwise_max_pair",)
WHAT = "max_pair/min_pair give a tie's whole gradient to self and keep self where other is NaN"
WHY = """Burn's `a.max_pair(b)` is `a.mask_where(a.lower(b), b)`: where the two are equal the
value and the whole gradient come from `a`, and where `b` is NaN the comparison is false, so the
result is `a`. PyTorch's `torch.maximum` (and `minimum`) splits a tie's gradient evenly and
propagates NaN. Values agree elsewhere, so a port that trains through ties (ReLU-like clamps
against a copy of the input, `max(x, x.detach())`) silently gets other gradients."""
RECIPE = "torch.maximum(a, b) → (a + b + (a - b).abs()) / 2 for torch's tie gradient; else a.max_pair(b)"


def torch_side():
    a = torch.tensor([1.0, 2.0], requires_grad=True)
    b = torch.tensor([1.0, 0.0], requires_grad=True)
    torch.maximum(a, b).sum().backward()
    a.grad.tolist()


def burn_literal():
    device = Device.cpu().autodiff()
    a = Tensor.from_floats([1.0, 2.0], device).require_grad()
    b = Tensor.from_floats([1.0, 0.0], device).require_grad()
    grads = a.max_pair(b).sum().backward()
    a.grad(grads).to_data().to_list()


def burn_side():
    device = Device.cpu().autodiff()
    a = Tensor.from_floats([1.0, 2.0], device).require_grad()
    b = Tensor.from_floats([1.0, 0.0], device).require_grad()
    grads = ((a + b + (a - b).abs()) / 2).sum().backward()
    a.grad(grads).to_data().to_list()


TORCH = {"a.grad.tolist()": [0.5, 1.0]}
LITERAL = {"a.grad(grads).to_data().to_list()": [1.0, 1.0]}
BURN = {"a.grad(grads).to_data().to_list()": [0.5, 1.0]}
