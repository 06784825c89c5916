"""In-place ops: none in Burn; rebind the result."""
import torch

from burn_torch import Device, Tensor
from burn_torch.compat.entry import Raises

ID = "in_place_ops"
TITLE = "No in-place operations (`add_`, `mul_`, `zero_`, ...)"
CATEGORY = "tensors"
SEVERITY = "loud"
DETECTORS = ("inplace_method_call",)
WHAT = "tensors are immutable values: methods ending in _ do not exist"
WHY = """Burn's tensor operations take their inputs by value and return new tensors; burn_torch's
tensors are immutable values, which is what lets backward keep what it saved without version
counters. Every in-place method has an out-of-place form: `x.add_(1)` is `x = x + 1`,
`x.clamp_(a, b)` is `x = x.clamp(a, b)`, `x.zero_()` is `x = x.zeros_like()`; parameter
initialisers (`nn.init.*_`) become the module's initializer configuration."""
RECIPE = "rebind the out-of-place result: x = x.add(y) (and update every other name for the same tensor)"


def torch_side():
    x = torch.tensor([1.0, 2.0])
    x.add_(1)
    x.tolist()


def burn_literal():
    x = Tensor.from_floats([1.0, 2.0], Device.cpu())
    x.add_(1)


def burn_side():
    x = Tensor.from_floats([1.0, 2.0], Device.cpu())
    x = x + 1
    x.to_data().to_list()


TORCH = {"x.tolist()": [2.0, 3.0]}
LITERAL = Raises(AttributeError, "'Tensor' object has no attribute 'add_'")
BURN = {"x.to_data().to_list()": [2.0, 3.0]}
