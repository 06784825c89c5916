"""Arithmetic, operators and float math methods of Tensor."""
from __future__ import annotations

from typing import TYPE_CHECKING

import torch

from .. import validate
from ..autodiff.recorder import apply1, apply2
from ..ops import elementwise as elementwise_ops
from ..ops import linalg as linalg_ops
from .base import (TensorBase, binary, float_binary, float_unary, foreign, not_a_tensor,
                   operator, require_float_pair, scalar)

if TYPE_CHECKING:
    from ..tensor import Tensor

_ADD, _SUB, _MUL = elementwise_ops.ADD, elementwise_ops.SUB, elementwise_ops.MUL
_DIV, _MATMUL = elementwise_ops.DIV, linalg_ops.MATMUL


class ArithmeticMethods(TensorBase):
    __slots__ = ()

    # ======================================================================== arithmetic ====
    def add(self, other: "Tensor") -> "Tensor":
        """Elementwise ``self + other`` with broadcasting."""
        return binary(elementwise_ops.ADD, self, other)

    def sub(self, other: "Tensor") -> "Tensor":
        """Elementwise ``self - other`` with broadcasting."""
        return binary(elementwise_ops.SUB, self, other)

    def mul(self, other: "Tensor") -> "Tensor":
        """Elementwise ``self * other`` with broadcasting."""
        return binary(elementwise_ops.MUL, self, other)

    def div(self, other: "Tensor") -> "Tensor":
        """Elementwise ``self / other``; integer (truncating) division for Int tensors."""
        return binary(elementwise_ops.DIV, self, other)

    def remainder(self, other: "Tensor") -> "Tensor":
        """Elementwise remainder with the sign of the divisor (``torch.remainder``)."""
        return binary(elementwise_ops.REMAINDER, self, other)

    def add_scalar(self, value) -> "Tensor":
        return scalar(elementwise_ops.ADD_SCALAR, self, value)

    def sub_scalar(self, value) -> "Tensor":
        return scalar(elementwise_ops.SUB_SCALAR, self, value)

    def mul_scalar(self, value) -> "Tensor":
        return scalar(elementwise_ops.MUL_SCALAR, self, value)

    def div_scalar(self, value) -> "Tensor":
        """``self / value``; integer (truncating) division for Int tensors."""
        return scalar(elementwise_ops.DIV_SCALAR, self, value)

    def remainder_scalar(self, value) -> "Tensor":
        return scalar(elementwise_ops.REMAINDER_SCALAR, self, value)

    def neg(self) -> "Tensor":
        return apply1(elementwise_ops.NEG, self)

    def __add__(self, other):
        if other.__class__ is self.__class__ and self._data.dtype is other._data.dtype:
            return apply2(_ADD, self, other)
        return operator(elementwise_ops.ADD, elementwise_ops.ADD_SCALAR, self, other)

    def __radd__(self, other):
        return operator(elementwise_ops.ADD, elementwise_ops.ADD_SCALAR, self, other)

    def __sub__(self, other):
        if other.__class__ is self.__class__ and self._data.dtype is other._data.dtype:
            return apply2(_SUB, self, other)
        return operator(elementwise_ops.SUB, elementwise_ops.SUB_SCALAR, self, other)

    def __rsub__(self, other):
        return operator(None, elementwise_ops.RSUB_SCALAR, self, other)

    def __mul__(self, other):
        if other.__class__ is self.__class__ and self._data.dtype is other._data.dtype:
            return apply2(_MUL, self, other)
        return operator(elementwise_ops.MUL, elementwise_ops.MUL_SCALAR, self, other)

    def __rmul__(self, other):
        return operator(elementwise_ops.MUL, elementwise_ops.MUL_SCALAR, self, other)

    def __truediv__(self, other):
        if other.__class__ is self.__class__ and self._data.dtype is other._data.dtype:
            return apply2(_DIV, self, other)
        return operator(elementwise_ops.DIV, elementwise_ops.DIV_SCALAR, self, other)

    def __rtruediv__(self, other):
        return operator(None, elementwise_ops.RDIV_SCALAR, self, other)

    def __mod__(self, other):
        return operator(elementwise_ops.REMAINDER, elementwise_ops.REMAINDER_SCALAR, self, other)

    def __rmod__(self, other):
        return foreign("operator remainder", other)

    def __rmatmul__(self, other):
        return foreign("matmul", other)

    def __neg__(self):
        return apply1(elementwise_ops.NEG, self)

    def __matmul__(self, other):
        if other.__class__ is self.__class__ and self._data.dtype is other._data.dtype \
                and self._data.dim() >= 2 and other._data.dim() >= 2:
            return apply2(_MATMUL, self, other)
        return self.matmul(other)

    # ======================================================================== float math ====
    def exp(self) -> "Tensor":
        return float_unary(elementwise_ops.EXP, self)

    def log(self) -> "Tensor":
        return float_unary(elementwise_ops.LOG, self)

    def log1p(self) -> "Tensor":
        return float_unary(elementwise_ops.LOG1P, self)

    def sqrt(self) -> "Tensor":
        return float_unary(elementwise_ops.SQRT, self)

    def abs(self) -> "Tensor":
        return apply1(elementwise_ops.ABS, self)

    def recip(self) -> "Tensor":
        return float_unary(elementwise_ops.RECIP, self)

    def square(self) -> "Tensor":
        return apply1(elementwise_ops.SQUARE, self)

    def sin(self) -> "Tensor":
        return float_unary(elementwise_ops.SIN, self)

    def cos(self) -> "Tensor":
        return float_unary(elementwise_ops.COS, self)

    def tanh(self) -> "Tensor":
        return float_unary(elementwise_ops.TANH, self)

    def erf(self) -> "Tensor":
        return float_unary(elementwise_ops.ERF, self)

    def powf(self, other: "Tensor") -> "Tensor":
        """Elementwise ``self ** other`` for float tensors, differentiable in both."""
        return binary(elementwise_ops.POWF, self, other)

    def powf_scalar(self, exponent: float) -> "Tensor":
        return apply1(elementwise_ops.POWF_SCALAR, self,
                      (float(validate.real("powf_scalar", "exponent", exponent)),))

    def powi_scalar(self, exponent: int) -> "Tensor":
        exponent = validate.integer("powi_scalar", "exponent", exponent)
        return apply1(elementwise_ops.POWI_SCALAR, self, (exponent,))

    def clamp(self, min, max) -> "Tensor":
        """Elementwise clamp to [min, max]; the gradient passes only inside the range (inclusive).
        TypeError for a bound that is not a number, ValueError when ``min > max``."""
        min = validate.optional_real("clamp", "min", min)
        max = validate.optional_real("clamp", "max", max)
        if min is not None and max is not None and min > max:
            raise ValueError(f"clamp: min {min} is greater than max {max}")
        return apply1(elementwise_ops.CLAMP, self, (min, max))

    def clamp_min(self, min) -> "Tensor":
        return apply1(elementwise_ops.CLAMP, self, (validate.real("clamp_min", "min", min), None))

    def clamp_max(self, max) -> "Tensor":
        return apply1(elementwise_ops.CLAMP, self, (None, validate.real("clamp_max", "max", max)))

    def matmul(self, other: "Tensor") -> "Tensor":
        """Batched matrix product over the last two dims; leading dims broadcast."""
        if not isinstance(other, TensorBase):
            raise not_a_tensor("matmul", other)
        if self._data.dim() < 2 or other._data.dim() < 2:
            raise ValueError(f"matmul needs tensors of rank >= 2, got shapes {self.dims()} and {other.dims()}")
        return binary(linalg_ops.MATMUL, self, other)

    # ================================================== more float math (Burn's float API) ====
    def tan(self) -> "Tensor":
        return float_unary(elementwise_ops.TAN, self)

    def sinh(self) -> "Tensor":
        return float_unary(elementwise_ops.SINH, self)

    def cosh(self) -> "Tensor":
        return float_unary(elementwise_ops.COSH, self)

    def asin(self) -> "Tensor":
        return float_unary(elementwise_ops.ASIN, self)

    def acos(self) -> "Tensor":
        return float_unary(elementwise_ops.ACOS, self)

    def atan(self) -> "Tensor":
        return float_unary(elementwise_ops.ATAN, self)

    def asinh(self) -> "Tensor":
        return float_unary(elementwise_ops.ASINH, self)

    def acosh(self) -> "Tensor":
        return float_unary(elementwise_ops.ACOSH, self)

    def atanh(self) -> "Tensor":
        return float_unary(elementwise_ops.ATANH, self)

    def deg2rad(self) -> "Tensor":
        """Degrees to radians (``self * pi / 180``)."""
        return float_unary(elementwise_ops.DEG2RAD, self)

    def rad2deg(self) -> "Tensor":
        """Radians to degrees (``self * 180 / pi``)."""
        return float_unary(elementwise_ops.RAD2DEG, self)

    def floor(self) -> "Tensor":
        """Elementwise floor; as in Burn, the input gets a zero gradient."""
        return float_unary(elementwise_ops.FLOOR, self)

    def ceil(self) -> "Tensor":
        """Elementwise ceil; as in Burn, the input gets a zero gradient."""
        return float_unary(elementwise_ops.CEIL, self)

    def round(self) -> "Tensor":
        """Elementwise rounding, halfway cases to even; as in Burn, the input gets a zero gradient."""
        return float_unary(elementwise_ops.ROUND, self)

    def trunc(self) -> "Tensor":
        """Elementwise rounding towards zero; as in Burn, the input gets a zero gradient."""
        return float_unary(elementwise_ops.TRUNC, self)

    def fmod(self, other: "Tensor") -> "Tensor":
        """Elementwise remainder with the sign of the dividend, Burn's composition
        ``self - other * trunc(self / other)`` (0 for that product where ``other`` is infinite and
        the quotient truncates to 0, so ``fmod(x, ±inf) = x``). Float tensors only. Gradients: 1
        for ``self``, ``-trunc(self / other)`` for ``other``."""
        require_float_pair("fmod", self, other)
        truncated = self.div(other).trunc()
        product = other.mul(truncated)
        zero_times_inf = truncated.equal_elem(0.0).bool_and(other.is_inf())
        return self.sub(product.mask_where(zero_times_inf, self.mul_scalar(0.0)))

    def fmod_scalar(self, value: float) -> "Tensor":
        """[`fmod`][burn_torch.tensor.Tensor.fmod] by a Python number (``self`` unchanged for an
        infinite one)."""
        value = float(validate.real("fmod_scalar", "value", value))
        if not self._data.is_floating_point():
            raise TypeError(f"fmod_scalar needs a Float tensor, got {self.kind}; call .float() first")
        if value in (float("inf"), float("-inf")):
            return self  # type: ignore[return-value]  # self is a Tensor: see TensorBase
        return self.sub(self.div_scalar(value).trunc().mul_scalar(value))

    def sign(self) -> "Tensor":
        """Elementwise sign (-1, 0 or 1) of a Float or Int tensor; the input gets a zero gradient.

        Raises TypeError on a Bool tensor.
        """
        if self._data.dtype is torch.bool:
            raise TypeError("sign needs a Float or Int tensor, got Bool")
        return apply1(elementwise_ops.SIGN, self)

    def atan2(self, other: "Tensor") -> "Tensor":
        """Elementwise four-quadrant arctangent of ``self / other`` (self is y, other is x)."""
        return float_binary(elementwise_ops.ATAN2, self, other)

    def hypot(self, other: "Tensor") -> "Tensor":
        """Elementwise ``sqrt(self^2 + other^2)``, without intermediate overflow."""
        return float_binary(elementwise_ops.HYPOT, self, other)

    def powi(self, other: "Tensor") -> "Tensor":
        """Elementwise ``self ** other`` with an exponent tensor of the same kind (Burn's ``powi``).

        Float tensors: the exponent is a Float tensor and both operands are differentiable (Burn
        computes Float ``powi`` as ``powf``). Int tensors: the integer power. Raises TypeError on
        Bool tensors or mixed kinds.
        """
        if self._data.dtype is torch.bool:
            raise TypeError("powi needs Float or Int tensors, got Bool")
        return binary(elementwise_ops.POWI, self, other)

    def cross(self, other: "Tensor", dim: int) -> "Tensor":
        """The 3-vector cross product along ``dim``; other dims broadcast.

        Raises TypeError unless both are Float tensors, ValueError naming the shapes unless both
        have the same rank and size 3 along ``dim``, IndexError if ``dim`` is out of range.
        """
        require_float_pair("cross", self, other)
        if self._data.dim() != other._data.dim():
            raise ValueError(f"cross needs tensors of the same rank, got shapes {self.dims()} "
                             f"and {other.dims()}")
        d = self._dim(dim)
        if self._data.shape[d] != 3 or other._data.shape[d] != 3:
            raise ValueError(f"cross needs size 3 along dim {dim}, got shapes {self.dims()} "
                             f"and {other.dims()}")
        return apply2(elementwise_ops.CROSS, self, other, (d,))
