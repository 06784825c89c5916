"""x.sum(dim) drops the dim; sum_dim(d) keeps it with size 1."""
import torch

from burn_torch import Device, Tensor

ID = "sum_dim_keeps_dim"
TITLE = "`sum_dim(d)` keeps the reduced dimension (PyTorch's `keepdim=True`)"
CATEGORY = "tensors"
SEVERITY = "silent"
DETECTORS = ("sum_dim_reduction",)
WHAT = "sum_dim(d) / prod_dim(d) keep dim d with size 1; PyTorch's sum(d) removes it"
WHY = """Burn's reductions along a dimension never change the rank: the reduced dimension stays
with size 1, like PyTorch's `keepdim=True`. The result has a different shape from PyTorch's
default, and broadcasts differently against the input."""
RECIPE = "x.sum_dim(d).squeeze_dim(d) for PyTorch's x.sum(d); x.sum(d, keepdim=True) is x.sum_dim(d)"


def torch_side():
    x = torch.tensor([[1.0, 2.0], [3.0, 4.0]])
    x.sum(dim=1).tolist()


def burn_literal():
    x = Tensor.from_floats([[1.0, 2.0], [3.0, 4.0]], Device.cpu())
    x.sum_dim(1).to_data().to_list()


def burn_side():
    x = Tensor.from_floats([[1.0, 2.0], [3.0, 4.0]], Device.cpu())
    x.sum_dim(1).squeeze_dim(1).to_data().to_list()


TORCH = {"x.sum(dim=1).tolist()": [3.0, 7.0]}
LITERAL = {"x.sum_dim(1).to_data().to_list()": [[3.0], [7.0]]}
BURN = {"x.sum_dim(1).squeeze_dim(1).to_data().to_list()": [3.0, 7.0]}
