"""Mixing tensors with and without autodiff: the latter is a constant."""
import torch

from burn_torch import Device, Tensor
from burn_torch.compat.entry import Raises

ID = "mixing_tracked_untracked"
TITLE = "A tensor without autodiff mixed into a tracked computation is a constant"
CATEGORY = "autodiff"
SEVERITY = "silent"
DETECTORS = ("untracked_operand",)
WHAT = "operands without autodiff (or untracked) are constants of a tracked operation, never errors"
WHY = """When an operation combines a tensor with autodiff and one without, Burn runs it with
autodiff and treats the other operand as a constant; the operand itself is unchanged. PyTorch
refuses to save tensors created under `torch.inference_mode()` for backward, so code that
precomputes constants in inference mode raises there but runs here."""
RECIPE = "nothing to do: compute constants with without_autodiff() and mix them in freely"


def torch_side():
    with torch.inference_mode():
        c = torch.tensor([3.0, 4.0])
    x = torch.tensor([1.0, 2.0], requires_grad=True)
    (x * c).sum().backward()


def burn_literal():
    ad = Device.cpu().autodiff()
    c = Tensor.from_floats([3.0, 4.0], Device.cpu())
    x = Tensor.from_floats([1.0, 2.0], ad).require_grad()
    grads = (x * c).sum().backward()
    x.grad(grads).to_data().to_list()
    c.is_autodiff()


def burn_side():
    ad = Device.cpu().autodiff()
    c = Tensor.from_floats([3.0, 4.0], ad).without_autodiff()
    x = Tensor.from_floats([1.0, 2.0], ad).require_grad()
    grads = (x * c).sum().backward()
    x.grad(grads).to_data().to_list()
    c.is_autodiff()


TORCH = Raises(RuntimeError, "Inference tensors cannot be saved for backward")
LITERAL = {"x.grad(grads).to_data().to_list()": [3.0, 4.0], "c.is_autodiff()": False}
BURN = {"x.grad(grads).to_data().to_list()": [3.0, 4.0], "c.is_autodiff()": False}
