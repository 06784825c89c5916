"""transpose(a, b) is swap_dims(a, b); transpose() swaps the last two dims."""
import torch

from burn_torch import Device, Tensor
from burn_torch.compat.entry import Raises

ID = "transpose_swap_dims"
TITLE = "`transpose()` takes no dims: `swap_dims(a, b)` is PyTorch's `transpose(a, b)`"
CATEGORY = "tensors"
SEVERITY = "loud"
DETECTORS = ("transpose_call",)
WHAT = "transpose() swaps the last two dims and takes no arguments; swap_dims(a, b) swaps any two"
WHY = """Burn's `transpose()` is the matrix transpose of the last two dimensions (PyTorch's `x.mT`,
or `x.t()` in 2-D). Swapping two given dimensions is `swap_dims(a, b)`. There is no `.T`."""
RECIPE = "x.swap_dims(a, b) for x.transpose(a, b); x.transpose() for x.mT / x.t()"


def torch_side():
    x = torch.zeros(2, 3, 4)
    list(x.transpose(0, 1).shape)


def burn_literal():
    x = Tensor.zeros([2, 3, 4], Device.cpu())
    x.transpose(0, 1)


def burn_side():
    x = Tensor.zeros([2, 3, 4], Device.cpu())
    x.swap_dims(0, 1).dims()


TORCH = {"list(x.transpose(0, 1).shape)": [3, 2, 4]}
LITERAL = Raises(TypeError, "transpose() takes 1 positional argument but 3 were given")
BURN = {"x.swap_dims(0, 1).dims()": [3, 2, 4]}
