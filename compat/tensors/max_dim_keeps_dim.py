"""x.max(dim) returns (values, indices) without the dim; max_dim keeps it."""
import torch

from burn_torch import Device, Tensor

ID = "max_dim_keeps_dim"
TITLE = "`max_dim(d)` returns only values and keeps the dimension"
CATEGORY = "tensors"
SEVERITY = "silent"
DETECTORS = ("max_dim_reduction",)
WHAT = "max_dim(d) returns values only, keeping dim d; max_dim_with_indices(d) also keeps it in both results"
WHY = """PyTorch's `x.max(dim)` returns a `(values, indices)` pair with the dimension removed. Burn
splits it into `max_dim(d)` (values) and `max_dim_with_indices(d)` (both), and, like every Burn
reduction along a dimension, keeps the reduced dimension with size 1. The same holds for
`min_dim` / `min_dim_with_indices`."""
RECIPE = "values, indices = x.max_dim_with_indices(d), then .squeeze_dim(d) on each for PyTorch's shapes"


def torch_side():
    x = torch.tensor([[1.0, 5.0], [7.0, 2.0]])
    values, indices = x.max(dim=1)
    values.tolist()
    indices.tolist()


def burn_literal():
    x = Tensor.from_floats([[1.0, 5.0], [7.0, 2.0]], Device.cpu())
    values, indices = x.max_dim_with_indices(1)
    values.to_data().to_list()
    indices.to_data().to_list()


def burn_side():
    x = Tensor.from_floats([[1.0, 5.0], [7.0, 2.0]], Device.cpu())
    values, indices = x.max_dim_with_indices(1)
    values.squeeze_dim(1).to_data().to_list()
    indices.squeeze_dim(1).to_data().to_list()


TORCH = {"values.tolist()": [5.0, 7.0], "indices.tolist()": [1, 0]}
LITERAL = {"values.to_data().to_list()": [[5.0], [7.0]], "indices.to_data().to_list()": [[1], [0]]}
BURN = {"values.squeeze_dim(1).to_data().to_list()": [5.0, 7.0],
        "indices.squeeze_dim(1).to_data().to_list()": [1, 0]}
