"""argmax(dim) keeps the dim; there is no argmax() over all elements."""
import torch

from burn_torch import Device, Tensor

ID = "argmax_keeps_dim"
TITLE = "`argmax(d)` keeps the reduced dimension and needs a dim"
CATEGORY = "tensors"
SEVERITY = "silent"
DETECTORS = ("argmax_reduction",)
WHAT = "argmax(d) / argmin(d) keep dim d with size 1 and require d; PyTorch drops it (and flattens without d)"
WHY = """Burn's `argmax` and `argmin` reduce along one dimension, which stays with size 1. Predicted
classes from logits `[batch, classes]` therefore come out as `[batch, 1]`: comparing them with
targets of shape `[batch]` broadcasts to `[batch, batch]` and silently inflates an accuracy. There
is no argmax over all elements (PyTorch's `x.argmax()` flattens); reshape to one dimension first."""
RECIPE = "x.argmax(d).squeeze_dim(d) for PyTorch's x.argmax(dim=d); x.reshape([-1]).argmax(0) for x.argmax()"


def torch_side():
    logits = torch.tensor([[1.0, 5.0], [7.0, 2.0]])
    logits.argmax(dim=1).tolist()


def burn_literal():
    logits = Tensor.from_floats([[1.0, 5.0], [7.0, 2.0]], Device.cpu())
    logits.argmax(1).to_data().to_list()


def burn_side():
    logits = Tensor.from_floats([[1.0, 5.0], [7.0, 2.0]], Device.cpu())
    logits.argmax(1).squeeze_dim(1).to_data().to_list()


TORCH = {"logits.argmax(dim=1).tolist()": [1, 0]}
LITERAL = {"logits.argmax(1).to_data().to_list()": [[1], [0]]}
BURN = {"logits.argmax(1).squeeze_dim(1).to_data().to_list()": [1, 0]}
