"""x[i] / x[:, 1]: no indexing operator; slice, select, narrow."""
import torch

from burn_torch import Device, Tensor
from burn_torch.compat.entry import Raises

ID = "indexing"
TITLE = "No `x[...]` indexing: `slice`, `slice_dim`, `select_dim`, `select`, `narrow`"
CATEGORY = "tensors"
SEVERITY = "loud"
DETECTORS = ("tensor_subscript",)
WHAT = "tensors are not subscriptable; slicing is a method taking Python slice objects, and keeps the rank"
WHY = """Burn slices with explicit ranges and never drops a dimension by indexing: `x.slice(ranges)`
takes one Python `slice` per leading dimension (`x.slice([slice(0, 1)])` is `x[0:1]`), and
`x.slice_dim(d, slice_obj)`, `x.narrow(d, start, length)` and `x.select(d, indices)` work along one
dimension. PyTorch's `x[0]` and `x.select(d, i)` (which drop the dimension) are Burn's
`x.select_dim(0, 0)` and `x.select_dim(d, i)`: a slice followed by `squeeze_dim`, one step.
Writes (`x[0] = v`) become `slice_assign` / `slice_fill`, returning a new tensor."""
RECIPE = "x[0] → x.select_dim(0, 0); x[:, 1:3] → x.slice_dim(1, slice(1, 3))"


def torch_side():
    x = torch.tensor([[1.0, 2.0], [3.0, 4.0]])
    x[0].tolist()


def burn_literal():
    x = Tensor.from_floats([[1.0, 2.0], [3.0, 4.0]], Device.cpu())
    x[0]


def burn_side():
    x = Tensor.from_floats([[1.0, 2.0], [3.0, 4.0]], Device.cpu())
    x.select_dim(0, 0).to_data().to_list()


TORCH = {"x[0].tolist()": [1.0, 2.0]}
LITERAL = Raises(TypeError, "'Tensor' object is not subscriptable")
BURN = {"x.select_dim(0, 0).to_data().to_list()": [1.0, 2.0]}
