"""Arithmetic, operators and float math methods of Tensor."""
from __future__ import annotations

from typing import TYPE_CHECKING

from ..autodiff.record import apply1, apply2
from ..ops import elementwise as E
from ..ops import linalg as L
from .base import TensorBase, binary, float_unary, operator, scalar

if TYPE_CHECKING:
    from ..tensor import Tensor

_ADD, _SUB, _MUL, _DIV, _MATMUL = E.ADD, E.SUB, E.MUL, E.DIV, L.MATMUL



class ArithmeticMethods(TensorBase):
    __slots__ = ()

    # ======================================================================== arithmetic ====
    def add(self, other: "Tensor") -> "Tensor":
        """Elementwise ``self + other`` with broadcasting."""
        return binary(E.ADD, self, other)

    def sub(self, other: "Tensor") -> "Tensor":
        """Elementwise ``self - other`` with broadcasting."""
        return binary(E.SUB, self, other)

    def mul(self, other: "Tensor") -> "Tensor":
        """Elementwise ``self * other`` with broadcasting."""
        return binary(E.MUL, self, other)

    def div(self, other: "Tensor") -> "Tensor":
        """Elementwise ``self / other``; integer (truncating) division for Int tensors."""
        return binary(E.DIV, self, other)

    def remainder(self, other: "Tensor") -> "Tensor":
        """Elementwise remainder with the sign of the divisor (``torch.remainder``)."""
        return binary(E.REMAINDER, self, other)

    def add_scalar(self, value) -> "Tensor":
        return scalar(E.ADD_SCALAR, self, value)

    def sub_scalar(self, value) -> "Tensor":
        return scalar(E.SUB_SCALAR, self, value)

    def mul_scalar(self, value) -> "Tensor":
        return scalar(E.MUL_SCALAR, self, value)

    def div_scalar(self, value) -> "Tensor":
        """``self / value``; integer (truncating) division for Int tensors."""
        return scalar(E.DIV_SCALAR, self, value)

    def remainder_scalar(self, value) -> "Tensor":
        return scalar(E.REMAINDER_SCALAR, self, value)

    def neg(self) -> "Tensor":
        return apply1(E.NEG, self)

    def __add__(self, other):
        if other.__class__ is self.__class__ and self._data.dtype is other._data.dtype:
            return apply2(_ADD, self, other)
        return operator(E.ADD, E.ADD_SCALAR, self, other)

    def __radd__(self, other):
        return operator(E.ADD, E.ADD_SCALAR, self, other)

    def __sub__(self, other):
        if other.__class__ is self.__class__ and self._data.dtype is other._data.dtype:
            return apply2(_SUB, self, other)
        return operator(E.SUB, E.SUB_SCALAR, self, other)

    def __rsub__(self, other):
        return operator(None, E.RSUB_SCALAR, self, other)

    def __mul__(self, other):
        if other.__class__ is self.__class__ and self._data.dtype is other._data.dtype:
            return apply2(_MUL, self, other)
        return operator(E.MUL, E.MUL_SCALAR, self, other)

    def __rmul__(self, other):
        return operator(E.MUL, E.MUL_SCALAR, self, other)

    def __truediv__(self, other):
        if other.__class__ is self.__class__ and self._data.dtype is other._data.dtype:
            return apply2(_DIV, self, other)
        return operator(E.DIV, E.DIV_SCALAR, self, other)

    def __rtruediv__(self, other):
        return operator(None, E.RDIV_SCALAR, self, other)

    def __mod__(self, other):
        return operator(E.REMAINDER, E.REMAINDER_SCALAR, self, other)

    def __neg__(self):
        return apply1(E.NEG, self)

    def __matmul__(self, other):
        if other.__class__ is self.__class__ and self._data.dtype is other._data.dtype \
                and self._data.dim() >= 2 and other._data.dim() >= 2:
            return apply2(_MATMUL, self, other)
        return self.matmul(other)

    # ======================================================================== float math ====
    def exp(self) -> "Tensor":
        return float_unary(E.EXP, self)

    def log(self) -> "Tensor":
        return float_unary(E.LOG, self)

    def log1p(self) -> "Tensor":
        return float_unary(E.LOG1P, self)

    def sqrt(self) -> "Tensor":
        return float_unary(E.SQRT, self)

    def abs(self) -> "Tensor":
        return apply1(E.ABS, self)

    def recip(self) -> "Tensor":
        return float_unary(E.RECIP, self)

    def square(self) -> "Tensor":
        return apply1(E.SQUARE, self)

    def sin(self) -> "Tensor":
        return float_unary(E.SIN, self)

    def cos(self) -> "Tensor":
        return float_unary(E.COS, self)

    def tanh(self) -> "Tensor":
        return float_unary(E.TANH, self)

    def erf(self) -> "Tensor":
        return float_unary(E.ERF, self)

    def powf(self, other: "Tensor") -> "Tensor":
        """Elementwise ``self ** other`` for float tensors, differentiable in both."""
        return binary(E.POWF, self, other)

    def powf_scalar(self, exponent: float) -> "Tensor":
        return apply1(E.POWF_SCALAR, self, (float(exponent),))

    def powi_scalar(self, exponent: int) -> "Tensor":
        if not isinstance(exponent, int) or isinstance(exponent, bool):
            raise TypeError(f"powi_scalar needs an int exponent, got {exponent!r}")
        return apply1(E.POWI_SCALAR, self, (exponent,))

    def clamp(self, min, max) -> "Tensor":
        """Elementwise clamp to [min, max]; the gradient passes only inside the range (inclusive)."""
        if min is not None and max is not None and min > max:
            raise ValueError(f"clamp: min {min} is greater than max {max}")
        return apply1(E.CLAMP, self, (min, max))

    def clamp_min(self, min) -> "Tensor":
        return apply1(E.CLAMP, self, (min, None))

    def clamp_max(self, max) -> "Tensor":
        return apply1(E.CLAMP, self, (None, max))

    def matmul(self, other: "Tensor") -> "Tensor":
        """Batched matrix product over the last two dims; leading dims broadcast."""
        if not isinstance(other, TensorBase):
            raise TypeError(f"matmul: expected a Tensor, got {type(other).__name__}")
        if self._data.dim() < 2 or other._data.dim() < 2:
            raise ValueError(f"matmul needs tensors of rank >= 2, got shapes {self.dims()} and {other.dims()}")
        return binary(L.MATMUL, self, other)
