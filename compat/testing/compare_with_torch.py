"""torch.testing.assert_close does not take burn_torch tensors: to_torch / assert_approx_eq."""
import torch

from burn_torch import Device, Tensor
from burn_torch.compat.entry import Raises

ID = "compare_with_torch"
TITLE = "Compare with PyTorch through `to_torch` (or `TensorData.assert_approx_eq`)"
CATEGORY = "testing"
SEVERITY = "loud"
DETECTORS = ("torch_compare_call",)
WHAT = "torch.testing.assert_close / torch.allclose reject burn_torch tensors"
WHY = """burn_torch tensors are not `torch.Tensor`s, so torch's comparison helpers do not accept them.
`burn_torch.compat.to_torch(t)` returns the storage (no copy) for torch's helpers;
`t.to_data().assert_approx_eq(other, tolerance)` and `t.all_close(other)` compare within
burn_torch. `burn_torch.testing.assert_grads_match_torch` runs a function under Burn semantics
and under torch autograd and compares outputs and every leaf gradient."""
RECIPE = "torch.testing.assert_close(to_torch(t), expected) or t.to_data().assert_approx_eq(...)"


def torch_side():
    y = torch.tensor([1.0, 2.0]) * 2
    torch.testing.assert_close(y, torch.tensor([2.0, 4.0]))


def burn_literal():
    y = Tensor.from_floats([1.0, 2.0], Device.cpu()) * 2
    torch.testing.assert_close(y, torch.tensor([2.0, 4.0]))


def burn_side():
    from burn_torch.compat import to_torch
    y = Tensor.from_floats([1.0, 2.0], Device.cpu()) * 2
    torch.testing.assert_close(to_torch(y), torch.tensor([2.0, 4.0]))


TORCH = {"torch.testing.assert_close(y, torch.tensor([2.0, 4.0]))": None}
LITERAL = Raises(TypeError, "No comparison pair was able to handle inputs")
BURN = {"torch.testing.assert_close(to_torch(y), torch.tensor([2.0, 4.0]))": None}
