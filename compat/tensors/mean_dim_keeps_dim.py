"""x.mean(dim) vs mean_dim(d): the kept dim broadcasts differently."""
import torch

from burn_torch import Device, Tensor

ID = "mean_dim_keeps_dim"
TITLE = "`mean_dim(d)` keeps the reduced dimension, so it broadcasts differently"
CATEGORY = "tensors"
SEVERITY = "silent"
DETECTORS = ("mean_dim_reduction",)
WHAT = "mean_dim(d) keeps dim d with size 1: x - x.mean_dim(1) broadcasts per row, unlike x - x.mean(1)"
WHY = """Because the reduced dimension is kept, `x - x.mean_dim(1)` subtracts each row's mean from
that row. PyTorch's `x - x.mean(dim=1)` broadcasts the row means along the last dimension instead
(a classic bug that `keepdim=True` fixes). Same code shape, different numbers."""
RECIPE = "x.mean_dim(d) is x.mean(d, keepdim=True); add .squeeze_dim(d) for PyTorch's x.mean(d)"


def torch_side():
    x = torch.tensor([[1.0, 2.0], [3.0, 4.0]])
    (x - x.mean(dim=1)).tolist()


def burn_literal():
    x = Tensor.from_floats([[1.0, 2.0], [3.0, 4.0]], Device.cpu())
    (x - x.mean_dim(1)).to_data().to_list()


def burn_side():
    x = Tensor.from_floats([[1.0, 2.0], [3.0, 4.0]], Device.cpu())
    (x - x.mean_dim(1).squeeze_dim(1)).to_data().to_list()


TORCH = {"(x - x.mean(dim=1)).tolist()": [[-0.5, -1.5], [1.5, 0.5]]}
LITERAL = {"(x - x.mean_dim(1)).to_data().to_list()": [[-0.5, 0.5], [-0.5, 0.5]]}
BURN = {"(x - x.mean_dim(1).squeeze_dim(1)).to_data().to_list()": [[-0.5, -1.5], [1.5, 0.5]]}
