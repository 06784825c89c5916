"""Comparison methods of Tensor: non-differentiable, Bool results."""
from __future__ import annotations

from typing import TYPE_CHECKING

import torch

from ..autodiff.recorder import apply1, apply2
from .. import validate
from ..ops import compare as compare_ops
from .base import TensorBase, binary, float_binary, float_unary, scalar

if TYPE_CHECKING:
    from ..tensor import Tensor



class CompareMethods(TensorBase):
    __slots__ = ()

    # ======================================================================= comparisons ====
    def equal(self, other: "Tensor") -> "Tensor":
        return binary(compare_ops.EQUAL, self, other)

    def not_equal(self, other: "Tensor") -> "Tensor":
        return binary(compare_ops.NOT_EQUAL, self, other)

    def greater(self, other: "Tensor") -> "Tensor":
        return binary(compare_ops.GREATER, self, other)

    def greater_equal(self, other: "Tensor") -> "Tensor":
        return binary(compare_ops.GREATER_EQUAL, self, other)

    def lower(self, other: "Tensor") -> "Tensor":
        return binary(compare_ops.LOWER, self, other)

    def lower_equal(self, other: "Tensor") -> "Tensor":
        return binary(compare_ops.LOWER_EQUAL, self, other)

    def equal_elem(self, value) -> "Tensor":
        """Elementwise ``self == value`` for a scalar of this tensor's kind (TypeError for a float
        on an Int/Bool tensor, as for arithmetic scalars)."""
        return scalar(compare_ops.EQUAL, self, value)

    def not_equal_elem(self, value) -> "Tensor":
        return scalar(compare_ops.NOT_EQUAL, self, value)

    def greater_elem(self, value) -> "Tensor":
        return scalar(compare_ops.GREATER, self, value)

    def greater_equal_elem(self, value) -> "Tensor":
        return scalar(compare_ops.GREATER_EQUAL, self, value)

    def lower_elem(self, value) -> "Tensor":
        return scalar(compare_ops.LOWER, self, value)

    def lower_equal_elem(self, value) -> "Tensor":
        return scalar(compare_ops.LOWER_EQUAL, self, value)

    # Burn 0.22 names of the ``*_elem`` comparisons (same contracts).
    def equal_scalar(self, value) -> "Tensor":
        """Same as [`equal_elem`][burn_torch.tensor.Tensor.equal_elem]."""
        return self.equal_elem(value)

    def not_equal_scalar(self, value) -> "Tensor":
        """Same as ``not_equal_elem``."""
        return self.not_equal_elem(value)

    def greater_scalar(self, value) -> "Tensor":
        """Same as ``greater_elem``."""
        return self.greater_elem(value)

    def greater_equal_scalar(self, value) -> "Tensor":
        """Same as ``greater_equal_elem``."""
        return self.greater_equal_elem(value)

    def lower_scalar(self, value) -> "Tensor":
        """Same as ``lower_elem``."""
        return self.lower_elem(value)

    def lower_equal_scalar(self, value) -> "Tensor":
        """Same as ``lower_equal_elem``."""
        return self.lower_equal_elem(value)

    # ========================================================================= predicates ====
    def is_nan(self) -> "Tensor":
        """Bool: where this Float tensor is NaN. TypeError for Int/Bool tensors."""
        return float_unary(compare_ops.IS_NAN, self)

    def is_inf(self) -> "Tensor":
        """Bool: where this Float tensor is +inf or -inf. TypeError for Int/Bool tensors."""
        return float_unary(compare_ops.IS_INF, self)

    def is_finite(self) -> "Tensor":
        """Bool: where this Float tensor is neither NaN nor infinite. TypeError for Int/Bool."""
        return float_unary(compare_ops.IS_FINITE, self)

    def contains_nan(self) -> "Tensor":
        """Bool of shape ``[1]``: whether any entry of this Float tensor is NaN."""
        return float_unary(compare_ops.CONTAINS_NAN, self)

    def is_close(self, other: "Tensor", rtol: float | None = None,
                 atol: float | None = None) -> "Tensor":
        """Bool: where ``|self - other| <= atol + rtol * |other|`` (defaults 1e-5 and 1e-8, as
        Burn's); NaN is never close, equal infinities are. Float tensors only."""
        rtol = 1e-5 if rtol is None else float(rtol)
        atol = 1e-8 if atol is None else float(atol)
        return float_binary(compare_ops.IS_CLOSE, self, other, (rtol, atol))

    def all_close(self, other: "Tensor", rtol: float = 1e-5, atol: float = 1e-8) -> bool:
        """Whether all values are close (``torch.allclose``), as a Python bool."""
        return bool(torch.allclose(self._data, other._data, rtol=rtol, atol=atol))

    # ========================================================================= Bool logic ====
    def bool_and(self, other: "Tensor") -> "Tensor":
        """Elementwise logical and of two Bool tensors (broadcasting); TypeError otherwise."""
        return bool_binary(compare_ops.BOOL_AND, self, other)

    def bool_or(self, other: "Tensor") -> "Tensor":
        """Elementwise logical or of two Bool tensors (broadcasting); TypeError otherwise."""
        return bool_binary(compare_ops.BOOL_OR, self, other)

    def bool_xor(self, other: "Tensor") -> "Tensor":
        """Elementwise logical xor of two Bool tensors (broadcasting); TypeError otherwise."""
        return bool_binary(compare_ops.BOOL_XOR, self, other)

    def bool_not(self) -> "Tensor":
        """Elementwise logical not of a Bool tensor; TypeError otherwise."""
        require_bool(self, "bool_not")
        return apply1(compare_ops.BOOL_NOT, self)


def require_bool(x: TensorBase, what: str) -> None:
    if x._data.dtype is not torch.bool:
        raise TypeError(f"{what} needs Bool tensors, got {x.kind}; compare first or call .bool()")


def bool_binary(op, a: TensorBase, b) -> "Tensor":
    if not isinstance(b, TensorBase):
        raise TypeError(f"{op.name}: expected a Tensor operand, got {validate.type_name(b)}")
    require_bool(a, op.name)
    require_bool(b, op.name)
    return apply2(op, a, b)
