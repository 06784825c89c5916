"""mean() of an Int tensor is an Int (truncated); PyTorch raises."""
import torch

from burn_torch import Device, Tensor
from burn_torch.compat.entry import Raises

ID = "integer_mean"
TITLE = "`mean()` of an Int tensor is a truncated Int"
CATEGORY = "tensors"
SEVERITY = "silent"
DETECTORS = ("integer_mean_call",)
WHAT = "mean() / mean_dim() of an Int tensor returns an Int (truncated); PyTorch refuses integer means"
WHY = """Burn computes the mean of an Int tensor in its own kind: the sum divided by the count with
integer division. PyTorch cannot infer a floating output type for an integer mean and raises.
Counting correct predictions and taking their mean therefore gives 0 instead of 0.5."""
RECIPE = "convert first: t.float().mean()"


def torch_side():
    t = torch.tensor([1, 0])
    t.mean()


def burn_literal():
    t = Tensor.from_ints([1, 0], Device.cpu())
    t.mean().to_data().to_list()


def burn_side():
    t = Tensor.from_ints([1, 0], Device.cpu())
    t.float().mean().to_data().to_list()


TORCH = Raises(RuntimeError, "mean(): could not infer output dtype")
LITERAL = {"t.mean().to_data().to_list()": [0]}
BURN = {"t.float().mean().to_data().to_list()": [0.5]}
