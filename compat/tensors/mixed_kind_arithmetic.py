"""No type promotion between kinds: Int * 0.5 raises."""
import torch

from burn_torch import Device, Tensor
from burn_torch.compat.entry import Raises

ID = "mixed_kind_arithmetic"
TITLE = "No promotion between Int and Float"
CATEGORY = "tensors"
SEVERITY = "loud"
DETECTORS = ("mixed_kind_operator",)
WHAT = "an Int tensor combined with a float scalar or a Float tensor raises TypeError; PyTorch promotes"
WHY = """Burn's tensor kind (Float, Int, Bool) is part of the tensor's type and operations never
change it implicitly. PyTorch promotes integer tensors to floating point when mixed with floats."""
RECIPE = "convert explicitly: t.float() * 0.5"


def torch_side():
    t = torch.tensor([1, 2])
    (t * 0.5).tolist()


def burn_literal():
    t = Tensor.from_ints([1, 2], Device.cpu())
    t * 0.5


def burn_side():
    t = Tensor.from_ints([1, 2], Device.cpu())
    (t.float() * 0.5).to_data().to_list()


TORCH = {"(t * 0.5).tolist()": [0.5, 1.0]}
LITERAL = Raises(TypeError, "a float scalar with a Int tensor; call .float() first")
BURN = {"(t.float() * 0.5).to_data().to_list()": [0.5, 1.0]}
