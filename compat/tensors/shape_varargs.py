"""x.reshape(2, -1): torch takes sizes as separate arguments, Burn takes one list."""
import torch

from burn_torch import Device, Tensor
from burn_torch.compat.entry import Raises

ID = "shape_varargs"
TITLE = "Sizes and dims are one list: `x.reshape([2, -1])`, `x.permute([1, 0])`"
CATEGORY = "tensors"
SEVERITY = "loud"
DETECTORS = ("shape_as_arguments",)
WHAT = "reshape, permute, repeat, expand and flip take one list; sizes passed as separate arguments raise TypeError"
WHY = """PyTorch accepts `x.reshape(2, -1)` as well as `x.reshape((2, -1))`, and likewise for
`permute`, `repeat`, `expand` and `flip` (`x.flip(0)`). Burn's methods take the dimensions as one
array (`reshape([2, -1])`, `permute([1, 0])`, `flip([0])`), so the separate-arguments form raises.
The meaning of each size is PyTorch's (`-1` infers one size)."""
RECIPE = "wrap the sizes in a list: x.reshape([n, -1]), x.permute([0, 2, 1]), x.repeat([2, 1]), x.flip([0])"


def torch_side():
    x = torch.arange(6.0)
    list(x.reshape(2, -1).permute(1, 0).shape)


def burn_literal():
    x = Tensor.arange(0, 6, Device.cpu()).float()
    x.reshape(2, -1)


def burn_side():
    x = Tensor.arange(0, 6, Device.cpu()).float()
    x.reshape([2, -1]).permute([1, 0]).dims()


TORCH = {"list(x.reshape(2, -1).permute(1, 0).shape)": [3, 2]}
LITERAL = Raises(TypeError, "reshape() takes 2 positional arguments but 3 were given")
BURN = {"x.reshape([2, -1]).permute([1, 0]).dims()": [3, 2]}
