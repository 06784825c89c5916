"""sum() / mean() return shape [1], not a 0-d tensor."""
import torch

from burn_torch import Device, Tensor

ID = "reductions_return_shape_1"
TITLE = "`sum()`, `mean()`, `max()` return shape `[1]`, not a 0-d tensor"
CATEGORY = "tensors"
SEVERITY = "silent"
DETECTORS = ("full_reduction",)
WHAT = "full reductions (sum, mean, prod, max, min) return a rank-1 tensor of shape [1]; PyTorch returns 0-d"
WHY = """Burn has no rank-0 tensors: a reduction over every element keeps rank 1 with a single
element. It broadcasts like a scalar in arithmetic, so most code is unaffected, but shapes
differ wherever they are compared, stacked or concatenated."""
RECIPE = "use .into_scalar() for the Python number; expect shape [1] where the shape matters"


def torch_side():
    x = torch.tensor([[1.0, 2.0], [3.0, 4.0]])
    list(x.sum().shape)
    x.sum().item()


def burn_literal():
    x = Tensor.from_floats([[1.0, 2.0], [3.0, 4.0]], Device.cpu())
    x.sum().dims()
    x.sum().into_scalar()


def burn_side():
    x = Tensor.from_floats([[1.0, 2.0], [3.0, 4.0]], Device.cpu())
    x.sum().reshape([]).dims()
    x.sum().into_scalar()


TORCH = {"list(x.sum().shape)": [], "x.sum().item()": 10.0}
LITERAL = {"x.sum().dims()": [1], "x.sum().into_scalar()": 10.0}
BURN = {"x.sum().reshape([]).dims()": [], "x.sum().into_scalar()": 10.0}
