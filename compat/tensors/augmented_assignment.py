"""x += 1 rebinds x; other names keep the old value."""
import torch

from burn_torch import Device, Tensor

ID = "augmented_assignment"
TITLE = "`x += y` rebinds `x`; aliases keep the old value"
CATEGORY = "tensors"
SEVERITY = "silent"
DETECTORS = ("tensor_augmented_assignment",)
WHAT = "x += y builds a new tensor and rebinds x: other names for the old tensor do not change"
WHY = """PyTorch implements `+=`, `-=`, `*=` and `/=` in place, so every name (list entry, module
attribute, optimizer state) referring to the tensor sees the update. burn_torch tensors are
immutable: Python falls back to `x = x + y`, and only the name `x` is rebound. Code that updates a
tensor through one name and reads it through another silently reads the old value."""
RECIPE = "assign the new tensor to every place that must see it (e.g. the module attribute)"


def torch_side():
    x = torch.tensor([1.0, 2.0])
    alias = x
    x += 1
    alias.tolist()


def burn_literal():
    x = Tensor.from_floats([1.0, 2.0], Device.cpu())
    alias = x
    x += 1
    alias.to_data().to_list()


def burn_side():
    x = Tensor.from_floats([1.0, 2.0], Device.cpu())
    x = x + 1
    alias = x
    alias.to_data().to_list()


TORCH = {"alias.tolist()": [2.0, 3.0]}
LITERAL = {"alias.to_data().to_list()": [1.0, 2.0]}
BURN = {"alias.to_data().to_list()": [2.0, 3.0]}
