"""x.shape is a method: comparisons with it are always False."""
import torch

from burn_torch import Device, Tensor

ID = "shape_is_a_method"
TITLE = "`x.shape` is a method: use `x.dims()`"
CATEGORY = "tensors"
SEVERITY = "silent"
DETECTORS = ("shape_read",)
WHAT = "x.shape is a method (Burn's shape()), so x.shape == (2, 3) is always False; dims() gives the list"
WHY = """As in Burn, `shape()` is a method returning a `Shape`, and `dims()` returns the dimensions
as a list. Without the call, `x.shape` is the bound method: comparing it with a tuple is silently
False, and indexing it raises. There is no `size()`; `rank()` and `num_elements()` replace
`dim()` and `numel()`."""
RECIPE = "x.dims() == [2, 3]; x.dims()[0] for x.shape[0]"


def torch_side():
    x = torch.zeros(2, 3)
    x.shape == (2, 3)


def burn_literal():
    x = Tensor.zeros([2, 3], Device.cpu())
    x.shape == (2, 3)


def burn_side():
    x = Tensor.zeros([2, 3], Device.cpu())
    x.dims() == [2, 3]


TORCH = {"x.shape == (2, 3)": True}
LITERAL = {"x.shape == (2, 3)": False}
BURN = {"x.dims() == [2, 3]": True}
