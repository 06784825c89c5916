"""x.topk(k) returns (values, indices); Tensor.topk returns the values only."""
import torch

from burn_torch import Device, Tensor
from burn_torch.compat.entry import Raises

ID = "topk_indices"
TITLE = "`topk` returns the values only; `topk_with_indices` returns both"
CATEGORY = "tensors"
SEVERITY = "loud"
DETECTORS = ("topk_indices_use",)
WHAT = "Tensor.topk(k, dim) is the values tensor; unpacking it into (values, indices) fails"
WHY = """Burn splits PyTorch's `topk` in two: `topk(k, dim)` returns the values and
`topk_with_indices(k, dim)` the pair (as `max_dim` / `max_dim_with_indices`). Burn also requires
the dimension; PyTorch defaults to the last one. Values come largest first, as PyTorch's with
`sorted=True`."""
RECIPE = "values, indices = x.topk_with_indices(k, dim)"


def torch_side():
    x = torch.tensor([1.0, 3.0, 2.0])
    values, indices = x.topk(2)
    indices.tolist()


def burn_literal():
    x = Tensor.from_floats([1.0, 3.0, 2.0], Device.cpu())
    values, indices = x.topk(2, 0)


def burn_side():
    x = Tensor.from_floats([1.0, 3.0, 2.0], Device.cpu())
    values, indices = x.topk_with_indices(2, 0)
    indices.to_data().to_list()


TORCH = {"indices.tolist()": [1, 2]}
LITERAL = Raises(TypeError, "cannot unpack non-iterable Tensor object")
BURN = {"indices.to_data().to_list()": [1, 2]}
