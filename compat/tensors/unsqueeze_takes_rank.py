"""unsqueeze(d) vs Burn's unsqueeze(rank) / unsqueeze_dim(d)."""
import torch

from burn_torch import Device, Tensor

ID = "unsqueeze_takes_rank"
TITLE = "`unsqueeze(n)` takes a target rank: `unsqueeze_dim(d)` is PyTorch's `unsqueeze(d)`"
CATEGORY = "tensors"
SEVERITY = "silent"
DETECTORS = ("unsqueeze_call",)
WHAT = "unsqueeze(n) prepends size-1 dims up to rank n (a no-op when n is the current rank); unsqueeze_dim(d) inserts at d"
WHY = """Burn's `unsqueeze::<D2>()` pads the shape on the left up to rank `D2`; in Python the rank is
the argument. PyTorch's `x.unsqueeze(1)` on a vector inserts a dimension at position 1, while
burn_torch's `x.unsqueeze(1)` asks for rank 1 and returns the vector unchanged."""
RECIPE = "x.unsqueeze_dim(d) for x.unsqueeze(d)"


def torch_side():
    x = torch.tensor([1.0, 2.0, 3.0])
    list(x.unsqueeze(1).shape)


def burn_literal():
    x = Tensor.from_floats([1.0, 2.0, 3.0], Device.cpu())
    x.unsqueeze(1).dims()


def burn_side():
    x = Tensor.from_floats([1.0, 2.0, 3.0], Device.cpu())
    x.unsqueeze_dim(1).dims()


TORCH = {"list(x.unsqueeze(1).shape)": [3, 1]}
LITERAL = {"x.unsqueeze(1).dims()": [3]}
BURN = {"x.unsqueeze_dim(1).dims()": [3, 1]}
