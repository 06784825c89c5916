"""Quantized tensors silently ignore require_grad()."""
import torch

from burn_torch import Device, Tensor
from burn_torch.compat.entry import Raises

ID = "quantized_cannot_require_grad"
TITLE = "Quantized tensors ignore `require_grad()` instead of raising"
CATEGORY = "autodiff"
SEVERITY = "silent"
DETECTORS = ("quantized_requires_grad",)
WHAT = "require_grad() and set_require_grad() return a quantized tensor unchanged (never tracked)"
WHY = """Quantized tensors cannot keep gradients in Burn, and its `require_grad()` /
`set_require_grad(...)` leave them unchanged rather than panicking. PyTorch raises when a
quantized tensor is asked to require gradients. The quantized tensor keeps its autodiff
association but is never tracked, so no gradient reaches it."""
RECIPE = "dequantize first: q.dequantize().require_grad()"


def torch_side():
    q = torch.quantize_per_tensor(torch.tensor([1.0, 2.0]), 0.1, 0, torch.qint8)
    q.requires_grad_()


def burn_literal():
    ad = Device.cpu().autodiff()
    q = Tensor.from_floats([1.0, 2.0], ad).quantize_dynamic().require_grad()
    q.is_require_grad()


def burn_side():
    ad = Device.cpu().autodiff()
    q = Tensor.from_floats([1.0, 2.0], ad).quantize_dynamic()
    x = q.dequantize().require_grad()
    x.is_require_grad()


TORCH = Raises(RuntimeError, "can require gradients")
LITERAL = {"q.is_require_grad()": False}
BURN = {"x.is_require_grad()": True}
