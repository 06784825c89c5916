"""torch.where(mask, a, b) is b.mask_where(mask, a)."""
import torch

from burn_torch import Device, Tensor

ID = "where_argument_order"
TITLE = "`torch.where(mask, a, b)` is `b.mask_where(mask, a)`"
CATEGORY = "tensors"
SEVERITY = "silent"
DETECTORS = ("torch_where_call",)
WHAT = "t.mask_where(mask, values) takes values where mask is set: the receiver is torch.where's last argument"
WHY = """Burn's `mask_where` is a method of the tensor that provides the values where the mask is
*not* set; its argument provides the values where it is. Reading `torch.where(mask, a, b)` left to
right into `a.mask_where(mask, b)` swaps the two branches without any error."""
RECIPE = "torch.where(mask, a, b) → b.mask_where(mask, a)"


def torch_side():
    mask = torch.tensor([True, False])
    a = torch.tensor([1.0, 2.0])
    b = torch.tensor([10.0, 20.0])
    torch.where(mask, a, b).tolist()


def burn_literal():
    mask = Tensor.from_bools([True, False], Device.cpu())
    a = Tensor.from_floats([1.0, 2.0], Device.cpu())
    b = Tensor.from_floats([10.0, 20.0], Device.cpu())
    a.mask_where(mask, b).to_data().to_list()


def burn_side():
    mask = Tensor.from_bools([True, False], Device.cpu())
    a = Tensor.from_floats([1.0, 2.0], Device.cpu())
    b = Tensor.from_floats([10.0, 20.0], Device.cpu())
    b.mask_where(mask, a).to_data().to_list()


TORCH = {"torch.where(mask, a, b).tolist()": [1.0, 20.0]}
LITERAL = {"a.mask_where(mask, b).to_data().to_list()": [10.0, 2.0]}
BURN = {"b.mask_where(mask, a).to_data().to_list()": [1.0, 20.0]}
