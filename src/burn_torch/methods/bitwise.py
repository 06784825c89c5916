"""Bitwise methods of Int tensors (Burn's ``bitwise_*`` and ``bitwise_*_scalar``): not
differentiable, Int results of the operands' dtype."""
from __future__ import annotations

from typing import TYPE_CHECKING

import torch

from .. import validate
from ..autodiff.recorder import apply1, apply2
from ..ops import bitwise as bitwise_ops
from .base import TensorBase, not_a_tensor

if TYPE_CHECKING:
    from ..tensor import Tensor


def _require_int(what: str, x: TensorBase) -> None:
    if x._data.is_floating_point() or x._data.dtype is torch.bool:
        raise TypeError(f"{what} needs Int tensors, got {x.kind}; call .int() first")


def _tensor_op(op, a: TensorBase, b) -> "Tensor":
    if not isinstance(b, TensorBase):
        raise not_a_tensor(op.name, b)
    _require_int(op.name, a)
    _require_int(op.name, b)
    return apply2(op, a, b)


def _scalar_op(op, what: str, a: TensorBase, value) -> "Tensor":
    _require_int(what, a)
    return apply1(op, a, (validate.integer(what, "other", value),))


class BitwiseMethods(TensorBase):
    __slots__ = ()

    def bitwise_and(self, other: "Tensor") -> "Tensor":
        """Elementwise ``self & other`` of Int tensors (broadcasting); TypeError otherwise."""
        return _tensor_op(bitwise_ops.BITWISE_AND, self, other)

    def bitwise_or(self, other: "Tensor") -> "Tensor":
        """Elementwise ``self | other`` of Int tensors (broadcasting)."""
        return _tensor_op(bitwise_ops.BITWISE_OR, self, other)

    def bitwise_xor(self, other: "Tensor") -> "Tensor":
        """Elementwise ``self ^ other`` of Int tensors (broadcasting)."""
        return _tensor_op(bitwise_ops.BITWISE_XOR, self, other)

    def bitwise_left_shift(self, other: "Tensor") -> "Tensor":
        """Elementwise ``self << other`` of Int tensors (broadcasting)."""
        return _tensor_op(bitwise_ops.BITWISE_LEFT_SHIFT, self, other)

    def bitwise_right_shift(self, other: "Tensor") -> "Tensor":
        """Elementwise arithmetic ``self >> other`` of Int tensors (broadcasting)."""
        return _tensor_op(bitwise_ops.BITWISE_RIGHT_SHIFT, self, other)

    def bitwise_not(self) -> "Tensor":
        """Elementwise ``!self`` (two's complement ``-x - 1``) of an Int tensor."""
        _require_int("bitwise_not", self)
        return apply1(bitwise_ops.BITWISE_NOT, self)

    def bitwise_and_scalar(self, other: int) -> "Tensor":
        """Elementwise ``self & other`` for a Python int (TypeError for other scalars)."""
        return _scalar_op(bitwise_ops.BITWISE_AND, "bitwise_and_scalar", self, other)

    def bitwise_or_scalar(self, other: int) -> "Tensor":
        """Elementwise ``self | other`` for a Python int."""
        return _scalar_op(bitwise_ops.BITWISE_OR, "bitwise_or_scalar", self, other)

    def bitwise_xor_scalar(self, other: int) -> "Tensor":
        """Elementwise ``self ^ other`` for a Python int."""
        return _scalar_op(bitwise_ops.BITWISE_XOR, "bitwise_xor_scalar", self, other)

    def bitwise_left_shift_scalar(self, other: int) -> "Tensor":
        """Elementwise ``self << other`` for a Python int."""
        return _scalar_op(bitwise_ops.BITWISE_LEFT_SHIFT, "bitwise_left_shift_scalar", self, other)

    def bitwise_right_shift_scalar(self, other: int) -> "Tensor":
        """Elementwise arithmetic ``self >> other`` for a Python int."""
        return _scalar_op(bitwise_ops.BITWISE_RIGHT_SHIFT, "bitwise_right_shift_scalar", self, other)
