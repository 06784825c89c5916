"""for row in x: torch tensors iterate over their first dim; burn_torch tensors do not iterate."""
import torch

from burn_torch import Device, Tensor
from burn_torch.compat.entry import Raises

ID = "tensor_iteration"
TITLE = "Tensors are not iterable: `x.iter_dim(0)`"
CATEGORY = "tensors"
SEVERITY = "loud"
DETECTORS = ("tensor_iteration",)
WHAT = "for row in x, zip(x, y) and list(x) raise TypeError; iter_dim(dim) yields slices that keep the rank"
WHY = """A PyTorch tensor iterates over its first dimension, yielding tensors one rank lower, so
`for r in rewards`, `zip(log_probs, returns)` and `a, b = t` work on tensors. A burn_torch Tensor
is not iterable (it is not subscriptable either: see indexing). Burn's `iter_dim(dim)` yields
the slices along any dim, each keeping that dim with size 1; squeeze it to get PyTorch's items,
or convert the values to a list when you only need numbers."""
RECIPE = "for row in x.iter_dim(0): row = row.squeeze_dim(0); numbers: x.to_data().to_list()"


def torch_side():
    x = torch.tensor([[1.0, 2.0], [3.0, 4.0]])
    [row.sum().item() for row in x]


def burn_literal():
    x = Tensor.from_floats([[1.0, 2.0], [3.0, 4.0]], Device.cpu())
    [row.sum().into_scalar() for row in x]


def burn_side():
    x = Tensor.from_floats([[1.0, 2.0], [3.0, 4.0]], Device.cpu())
    [row.squeeze_dim(0).sum().into_scalar() for row in x.iter_dim(0)]


TORCH = {"[row.sum().item() for row in x]": [3.0, 7.0]}
LITERAL = Raises(TypeError, "'Tensor' object is not iterable")
BURN = {"[row.squeeze_dim(0).sum().into_scalar() for row in x.iter_dim(0)]": [3.0, 7.0]}
