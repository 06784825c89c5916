"""Burn's multi-dim reductions, pairwise extrema and small statistics, composed of existing ops:
``sum_dims``/``mean_dims``/``prod_dims``/``max_dims``/``min_dims``, ``sum_dims_squeeze``,
``max_abs``/``max_abs_dim``/``max_abs_dims``, ``max_pair``/``min_pair``, ``argtopk``, ``dot`` and
``cov``. Gradients are those of the ops they are made of (Burn composes them the same way).
"""
from __future__ import annotations

from typing import TYPE_CHECKING, Sequence

from .. import validate
from .base import TensorBase, not_a_tensor, require_float

if TYPE_CHECKING:
    from ..tensor import Tensor


class AggregateMethods(TensorBase):
    __slots__ = ()

    def _fold_dims(self, method: str, dims: Sequence[int]) -> "Tensor":
        if not hasattr(dims, "__iter__"):
            raise TypeError(f"{method}s: dims must be a sequence of ints, got {type(dims).__name__}")
        out = self
        for d in dims:
            out = getattr(out, method)(d)
        return out  # type: ignore[return-value]  # self is a Tensor: see TensorBase

    def sum_dims(self, dims: Sequence[int]) -> "Tensor":
        """``sum_dim`` over each of ``dims`` in turn (each kept with size 1)."""
        return self._fold_dims("sum_dim", dims)

    def mean_dims(self, dims: Sequence[int]) -> "Tensor":
        """``mean_dim`` over each of ``dims`` in turn (each kept with size 1)."""
        return self._fold_dims("mean_dim", dims)

    def prod_dims(self, dims: Sequence[int]) -> "Tensor":
        """``prod_dim`` over each of ``dims`` in turn (each kept with size 1)."""
        return self._fold_dims("prod_dim", dims)

    def max_dims(self, dims: Sequence[int]) -> "Tensor":
        """``max_dim`` over each of ``dims`` in turn (each kept with size 1)."""
        return self._fold_dims("max_dim", dims)

    def min_dims(self, dims: Sequence[int]) -> "Tensor":
        """``min_dim`` over each of ``dims`` in turn (each kept with size 1)."""
        return self._fold_dims("min_dim", dims)

    def max_abs_dims(self, dims: Sequence[int]) -> "Tensor":
        """[`max_abs_dim`][burn_torch.tensor.Tensor.max_abs_dim] over each of ``dims`` in turn (each
        kept with size 1)."""
        return self._fold_dims("max_abs_dim", dims)

    def sum_dims_squeeze(self, dims: Sequence[int]) -> "Tensor":
        """[`sum_dims`][burn_torch.tensor.Tensor.sum_dims], then those dims removed. ValueError when
        no dim would remain."""
        dims = [self._dim(d, "dims") for d in dims]
        summed = self.sum_dims(dims)
        return summed.squeeze_dims(dims) if dims else summed

    def max_abs(self) -> "Tensor":
        """The largest absolute value, shape ``[1]`` (``abs().max()``, as Burn's default)."""
        return self.abs().max()

    def max_abs_dim(self, dim: int) -> "Tensor":
        """The largest absolute values along ``dim`` (kept with size 1)."""
        return self.abs().max_dim(dim)

    def max_pair(self, other: "Tensor") -> "Tensor":
        """Elementwise maximum as Burn's ``self.mask_where(self < other, other)``: where the two
        are equal (or either is NaN) the result, and its gradient, come from ``self``."""
        if not isinstance(other, TensorBase):
            raise not_a_tensor("max_pair", other)
        return self.mask_where(self.lower(other), other)

    def min_pair(self, other: "Tensor") -> "Tensor":
        """Elementwise minimum as Burn's ``self.mask_where(self > other, other)``: ties and NaNs
        take ``self``."""
        if not isinstance(other, TensorBase):
            raise not_a_tensor("min_pair", other)
        return self.mask_where(self.greater(other), other)

    def argtopk(self, k: int, dim: int) -> "Tensor":
        """The Int indices of the ``k`` largest entries along ``dim``, largest first (ties: lowest
        index first). As Burn, ``k`` must be smaller than the dim's size (ValueError otherwise)."""
        d = self._dim(dim)
        k = validate.integer("argtopk", "k", k)
        if not 0 <= k < self._data.shape[d]:
            raise ValueError(f"argtopk: k must satisfy 0 <= k < {self._data.shape[d]} (the size of "
                             f"dim {d}), got {k}")
        return self.topk_with_indices(k, d)[1]

    def dot(self, other: "Tensor") -> "Tensor":
        """The dot product of two rank-1 tensors of the same length, shape ``[1]``
        (``(self * other).sum()``). ValueError for other ranks or lengths."""
        if not isinstance(other, TensorBase):
            raise not_a_tensor("dot", other)
        if self._data.dim() != 1 or other.dims() != self.dims():
            raise ValueError(f"dot needs two rank-1 tensors of the same length, got shapes "
                             f"{self.dims()} and {other.dims()}")
        return self.mul(other).sum()

    def cov(self, dim: int, correction_factor: int) -> "Tensor":
        """Burn's covariance: the entries along ``dim`` are the observations; with ``c`` the
        tensor centred on its mean over ``dim`` and that dim moved first,
        ``c^T @ c / (n - correction_factor)`` (``^T`` swapping the last two dims). For a
        ``[variables, n]`` matrix and ``dim=1`` this is ``torch.cov(x, correction=...)``."""
        require_float(self, "cov")
        d = self._dim(dim)
        correction = validate.integer("cov", "correction_factor", correction_factor)
        n = self._data.shape[d]
        centered = self.sub(self.mean_dim(d)).swap_dims(d, 0)
        return centered.transpose().matmul(centered).div_scalar(float(n - correction))
