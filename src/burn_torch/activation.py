"""Burn's ``tensor::activation`` functions. Each is one op-table entry (``burn_torch.ops``)."""
from __future__ import annotations

from .autodiff.record import apply1
from .ops import activation as A
from .ops import elementwise as E
from .tensor import Tensor


def relu(x: Tensor) -> Tensor:
    """``max(x, 0)``; the gradient is 0 where the output is 0."""
    return apply1(A.RELU, x)


def sigmoid(x: Tensor) -> Tensor:
    return apply1(A.SIGMOID, x)


def tanh(x: Tensor) -> Tensor:
    return apply1(E.TANH, x)


def gelu(x: Tensor) -> Tensor:
    """Exact GELU (erf form)."""
    return apply1(A.GELU, x)


def softmax(x: Tensor, dim: int) -> Tensor:
    return apply1(A.SOFTMAX, x, (x._dim(dim),))


def log_softmax(x: Tensor, dim: int) -> Tensor:
    return apply1(A.LOG_SOFTMAX, x, (x._dim(dim),))


__all__ = ["relu", "sigmoid", "tanh", "gelu", "softmax", "log_softmax"]
