"""x.device / x.dtype are methods: comparing the bound methods is always False."""
import torch

from burn_torch import Device, DType, Tensor

ID = "device_dtype_methods"
TITLE = "`device()` and `dtype()` are methods: `x.dtype == DType.F32` is always False"
CATEGORY = "tensors"
SEVERITY = "silent"
DETECTORS = ("device_dtype_attribute",)
WHAT = "x.device / x.dtype without parentheses are bound methods; comparisons with them are silently False"
WHY = """Burn's `Tensor::device()` and `Tensor::dtype()` are methods, as are `dims()` and
`shape()`. PyTorch's `x.device` and `x.dtype` are attributes. Translated without the call, a
comparison such as `x.dtype == DType.F32` or `x.device == y.device` compares bound methods and
is False, so a branch on it silently takes the other way (and `Tensor.zeros(shape, x.device)`
gets a method instead of a device)."""
RECIPE = "call them: x.device(), x.dtype() (compare with Device values and DType members)"


def torch_side():
    x = torch.zeros(2)
    y = torch.zeros(3)
    [x.dtype == torch.float32, x.device == y.device]


def burn_literal():
    x = Tensor.zeros([2], Device.cpu())
    y = Tensor.zeros([3], Device.cpu())
    [x.dtype == DType.F32, x.device == y.device]


def burn_side():
    x = Tensor.zeros([2], Device.cpu())
    y = Tensor.zeros([3], Device.cpu())
    [x.dtype() == DType.F32, x.device() == y.device()]


TORCH = {"[x.dtype == torch.float32, x.device == y.device]": [True, True]}
LITERAL = {"[x.dtype == DType.F32, x.device == y.device]": [False, False]}
BURN = {"[x.dtype() == DType.F32, x.device() == y.device()]": [True, True]}
