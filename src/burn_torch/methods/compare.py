"""Comparison methods of Tensor: non-differentiable, Bool results."""
from __future__ import annotations

from typing import TYPE_CHECKING

import torch

from ..autodiff.record import apply1
from ..ops import compare as C
from .base import TensorBase, binary

if TYPE_CHECKING:
    from ..tensor import Tensor



class CompareMethods(TensorBase):
    __slots__ = ()

    # ======================================================================= comparisons ====
    def equal(self, other: "Tensor") -> "Tensor":
        return binary(C.EQUAL, self, other)

    def not_equal(self, other: "Tensor") -> "Tensor":
        return binary(C.NOT_EQUAL, self, other)

    def greater(self, other: "Tensor") -> "Tensor":
        return binary(C.GREATER, self, other)

    def greater_equal(self, other: "Tensor") -> "Tensor":
        return binary(C.GREATER_EQUAL, self, other)

    def lower(self, other: "Tensor") -> "Tensor":
        return binary(C.LOWER, self, other)

    def lower_equal(self, other: "Tensor") -> "Tensor":
        return binary(C.LOWER_EQUAL, self, other)

    def equal_elem(self, value) -> "Tensor":
        return apply1(C.EQUAL, self, (value,))

    def not_equal_elem(self, value) -> "Tensor":
        return apply1(C.NOT_EQUAL, self, (value,))

    def greater_elem(self, value) -> "Tensor":
        return apply1(C.GREATER, self, (value,))

    def greater_equal_elem(self, value) -> "Tensor":
        return apply1(C.GREATER_EQUAL, self, (value,))

    def lower_elem(self, value) -> "Tensor":
        return apply1(C.LOWER, self, (value,))

    def lower_equal_elem(self, value) -> "Tensor":
        return apply1(C.LOWER_EQUAL, self, (value,))

    def all_close(self, other: "Tensor", rtol: float = 1e-5, atol: float = 1e-8) -> bool:
        """Whether all values are close (``torch.allclose``), as a Python bool."""
        return bool(torch.allclose(self._data, other._data, rtol=rtol, atol=atol))
