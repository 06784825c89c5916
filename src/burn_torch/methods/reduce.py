"""Reduction methods of Tensor (Burn's shapes: ``sum()`` is ``[1]``, ``*_dim`` keep the dim)."""
from __future__ import annotations

from typing import TYPE_CHECKING

from ..autodiff.record import apply1
from ..ops import reduce as R
from .base import TensorBase

if TYPE_CHECKING:
    from ..tensor import Tensor



class ReduceMethods(TensorBase):
    __slots__ = ()

    # ======================================================================== reductions ====
    def sum(self) -> "Tensor":
        """Sum of all elements, shape ``[1]``."""
        return apply1(R.SUM, self)

    def mean(self) -> "Tensor":
        """Mean of all elements, shape ``[1]``."""
        return apply1(R.MEAN, self)

    def sum_dim(self, dim: int) -> "Tensor":
        """Sum along ``dim``, keeping it with size 1."""
        return apply1(R.SUM_DIM, self, (self._dim(dim),))

    def mean_dim(self, dim: int) -> "Tensor":
        """Mean along ``dim``, keeping it with size 1."""
        return apply1(R.MEAN_DIM, self, (self._dim(dim),))

    def argmax(self, dim: int) -> "Tensor":
        """Int indices of the maxima along ``dim`` (kept with size 1)."""
        return apply1(R.ARGMAX, self, (self._dim(dim),))

    def argmin(self, dim: int) -> "Tensor":
        """Int indices of the minima along ``dim`` (kept with size 1)."""
        return apply1(R.ARGMIN, self, (self._dim(dim),))

    def max_dim(self, dim: int) -> "Tensor":
        """Maxima along ``dim`` (kept); the gradient flows to the selected index only."""
        return self.max_dim_with_indices(dim)[0]

    def min_dim(self, dim: int) -> "Tensor":
        """Minima along ``dim`` (kept); the gradient flows to the selected index only."""
        return self.min_dim_with_indices(dim)[0]

    def max_dim_with_indices(self, dim: int) -> "tuple[Tensor, Tensor]":
        indices = self.argmax(dim)
        return self.gather(dim, indices), indices

    def min_dim_with_indices(self, dim: int) -> "tuple[Tensor, Tensor]":
        indices = self.argmin(dim)
        return self.gather(dim, indices), indices
