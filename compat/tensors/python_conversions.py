"""bool(t) / float(t): no implicit conversions; into_scalar()."""
import torch

from burn_torch import Device, Tensor
from burn_torch.compat.entry import Raises

ID = "python_conversions"
TITLE = "No truth value or `float()` of a tensor: `into_scalar()`"
CATEGORY = "tensors"
SEVERITY = "loud"
DETECTORS = ("tensor_as_number",)
WHAT = "if t:, bool(t), float(t) and int(t) raise TypeError; read the number with into_scalar()"
WHY = """Reading a value back to Python synchronises with the device, and Burn makes that explicit:
`into_scalar()` on a one-element tensor (or `to_data()` for all values). burn_torch tensors do
not convert implicitly, so conditions such as early stopping (`if loss < best:`) need the number
first."""
RECIPE = "loss.into_scalar() < best; t.any().into_scalar() for a Bool tensor"


def torch_side():
    loss = torch.tensor([0.5])
    stop = bool(loss < 1.0)
    stop


def burn_literal():
    loss = Tensor.from_floats([0.5], Device.cpu())
    stop = bool(loss.lower_elem(1.0))


def burn_side():
    loss = Tensor.from_floats([0.5], Device.cpu())
    stop = loss.into_scalar() < 1.0
    stop


TORCH = {"stop": True}
LITERAL = Raises(TypeError, "a Tensor has no truth value")
BURN = {"stop": True}
