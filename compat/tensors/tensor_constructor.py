"""torch.tensor(data) vs Tensor.from_data(data, device)."""
import torch

from burn_torch import Device, Tensor
from burn_torch.compat.entry import Raises

ID = "tensor_constructor"
TITLE = "Tensors are created with an explicit device: `Tensor.from_data(data, device)`"
CATEGORY = "tensors"
SEVERITY = "loud"
DETECTORS = ("tensor_type_constructor",)
WHAT = "Tensor(...) cannot be called; creation functions take the device (and with it, the autodiff context)"
WHY = """As in Burn, every creation function takes the device the tensor lives on, and the device
decides whether the tensor carries autodiff (`Device.cpu().autodiff()`). There is no implicit
default device and no constructor call: `Tensor.from_data`, `from_floats`, `from_ints`, `zeros`,
`ones`, `full`, `arange` and `random` are class methods."""
RECIPE = "Tensor.from_floats(data, device) / Tensor.from_data(data, device); device = Device.cpu() or .autodiff()"


def torch_side():
    x = torch.tensor([1.0, 2.0])
    x.tolist()


def burn_literal():
    x = Tensor([1.0, 2.0])


def burn_side():
    x = Tensor.from_floats([1.0, 2.0], Device.cpu())
    x.to_data().to_list()


TORCH = {"x.tolist()": [1.0, 2.0]}
LITERAL = Raises(TypeError, "create tensors with Tensor.from_data")
BURN = {"x.to_data().to_list()": [1.0, 2.0]}
