"""Reduction, scan, sorting and statistics methods of Tensor, with Burn's names and shapes.

Full reductions (``sum()``, ``prod()``, ``max()``, ``any()``...) return shape ``[1]``; ``*_dim``
reductions keep the reduced dim with size 1; scans and sorts keep the shape. Negative dims count
from the end. Bool tensors have no numeric reductions (TypeError), as in Burn; the statistics
(``var*``, ``median``) are Float-only. Errors are raised before anything is recorded.

Where a value is selected among equal candidates (``max``, ``min``, ``*_dim``, ``median``,
``sort``, ``topk``, ``cummax``, ``cummin``), the whole gradient goes to the one selected element,
as in Burn; torch's full ``max()``/``min()``/``median()`` would split it among the ties.
"""
from __future__ import annotations

import numbers
from typing import TYPE_CHECKING

from ..autodiff.recorder import apply1, wrap
from ..dtype import Bool
from ..ops import reduce as reduce_ops
from .base import TensorBase, require_float

if TYPE_CHECKING:
    from ..tensor import Tensor


def _not_bool(x: TensorBase, what: str) -> None:
    if x.kind is Bool:
        raise TypeError(f"{what} needs an Int or Float tensor, got Bool; call .int() first")


def _nonempty(x: TensorBase, what: str, dim: int | None = None) -> None:
    """ValueError when there is nothing to select from (the whole tensor, or along ``dim``)."""
    shape = x._data.shape
    if (shape.numel() if dim is None else shape[dim]) == 0:
        where = "an empty tensor" if dim is None else f"the empty dimension {dim}"
        raise ValueError(f"{what}: cannot reduce {where} (shape {list(shape)})")


def _select(op, x: TensorBase, dim: int, indices) -> "tuple[Tensor, Tensor]":
    """The values of ``x`` at ``indices`` along ``dim`` (recorded with ``op``), and the indices."""
    return apply1(op, x, (dim, indices)), wrap(indices, x._ctx)


def _sorted(x: TensorBase, dim: int, descending: bool) -> "tuple[Tensor, Tensor]":
    _not_bool(x, "sort")
    dim = x._dim(dim)
    return _select(reduce_ops.SORT, x, dim, reduce_ops.argsort(x._data, dim, descending))


class ReduceMethods(TensorBase):
    __slots__ = ()

    # ==================================================================== sums and products ====
    def sum(self) -> "Tensor":
        """Sum of all elements, shape ``[1]``."""
        return apply1(reduce_ops.SUM, self)

    def mean(self) -> "Tensor":
        """Mean of all elements, shape ``[1]``."""
        return apply1(reduce_ops.MEAN, self)

    def sum_dim(self, dim: int) -> "Tensor":
        """Sum along ``dim``, keeping it with size 1."""
        return apply1(reduce_ops.SUM_DIM, self, (self._dim(dim),))

    def mean_dim(self, dim: int) -> "Tensor":
        """Mean along ``dim``, keeping it with size 1."""
        return apply1(reduce_ops.MEAN_DIM, self, (self._dim(dim),))

    def prod(self) -> "Tensor":
        """Product of all elements, shape ``[1]`` (1 for an empty tensor); Int keeps its dtype.
        The gradient is exact with zeros: each element gets the product of all the others."""
        _not_bool(self, "prod")
        return apply1(reduce_ops.PROD, self)

    def prod_dim(self, dim: int) -> "Tensor":
        """Product along ``dim``, keeping it with size 1; gradient as
        [`prod`][burn_torch.tensor.Tensor.prod]."""
        _not_bool(self, "prod_dim")
        return apply1(reduce_ops.PROD_DIM, self, (self._dim(dim),))

    # ============================================================================ extrema ====
    def max(self) -> "Tensor":
        """Maximum of all elements, shape ``[1]``; ValueError on an empty tensor.

        The gradient goes to one element, the first maximum in row-major order (Burn reduces
        the flattened tensor with ``max_dim``); torch's ``max()`` splits it among ties."""
        _not_bool(self, "max")
        _nonempty(self, "max")
        return apply1(reduce_ops.MAX, self, (reduce_ops.flat_argmax(self._data),))

    def min(self) -> "Tensor":
        """Minimum of all elements, shape ``[1]``; gradient to the first minimum, as
        [`max`][burn_torch.tensor.Tensor.max]."""
        _not_bool(self, "min")
        _nonempty(self, "min")
        return apply1(reduce_ops.MIN, self, (reduce_ops.flat_argmin(self._data),))

    def argmax(self, dim: int) -> "Tensor":
        """Int indices of the first maxima along ``dim`` (kept with size 1)."""
        _not_bool(self, "argmax")
        dim = self._dim(dim)
        _nonempty(self, "argmax", dim)
        return apply1(reduce_ops.ARGMAX, self, (dim,))

    def argmin(self, dim: int) -> "Tensor":
        """Int indices of the first minima along ``dim`` (kept with size 1)."""
        _not_bool(self, "argmin")
        dim = self._dim(dim)
        _nonempty(self, "argmin", dim)
        return apply1(reduce_ops.ARGMIN, self, (dim,))

    def max_dim(self, dim: int) -> "Tensor":
        """Maxima along ``dim`` (kept); the gradient goes to the index
        [`argmax`][burn_torch.tensor.Tensor.argmax] returns."""
        return self.max_dim_with_indices(dim)[0]

    def min_dim(self, dim: int) -> "Tensor":
        """Minima along ``dim`` (kept); the gradient goes to the index
        [`argmin`][burn_torch.tensor.Tensor.argmin] returns."""
        return self.min_dim_with_indices(dim)[0]

    def max_dim_with_indices(self, dim: int) -> "tuple[Tensor, Tensor]":
        """``(maxima, first indices of the maxima)`` along ``dim`` (kept); gradient as
        [`max_dim`][burn_torch.tensor.Tensor.max_dim]."""
        indices = self.argmax(dim)
        return apply1(reduce_ops.MAX_DIM, self, (self._dim(dim), indices._data)), indices

    def min_dim_with_indices(self, dim: int) -> "tuple[Tensor, Tensor]":
        """``(minima, first indices of the minima)`` along ``dim`` (kept); gradient as
        [`min_dim`][burn_torch.tensor.Tensor.min_dim]."""
        indices = self.argmin(dim)
        return apply1(reduce_ops.MIN_DIM, self, (self._dim(dim), indices._data)), indices

    # ============================================================================== scans ====
    def cumsum(self, dim: int) -> "Tensor":
        """Cumulative sum along ``dim``; Int keeps its dtype."""
        _not_bool(self, "cumsum")
        return apply1(reduce_ops.CUMSUM, self, (self._dim(dim),))

    def cumprod(self, dim: int) -> "Tensor":
        """Cumulative product along ``dim``; Int keeps its dtype; the gradient is exact with zeros."""
        _not_bool(self, "cumprod")
        return apply1(reduce_ops.CUMPROD, self, (self._dim(dim),))

    def cummax(self, dim: int) -> "Tensor":
        """Running maximum along ``dim``. Each output's gradient goes to the latest position
        holding its value (where the running maximum equals the input), as Burn's rule."""
        _not_bool(self, "cummax")
        dim = self._dim(dim)
        return apply1(reduce_ops.CUMMAX, self, (dim, reduce_ops.cummax_indices(self._data, dim)))

    def cummin(self, dim: int) -> "Tensor":
        """Running minimum along ``dim``; gradient as
        [`cummax`][burn_torch.tensor.Tensor.cummax]."""
        _not_bool(self, "cummin")
        dim = self._dim(dim)
        return apply1(reduce_ops.CUMMIN, self, (dim, reduce_ops.cummin_indices(self._data, dim)))

    # ============================================================================ sorting ====
    def sort(self, dim: int) -> "Tensor":
        """Values sorted ascending along ``dim``; each keeps its own gradient (equal values keep
        their order: the sort is stable)."""
        return _sorted(self, dim, False)[0]

    def sort_descending(self, dim: int) -> "Tensor":
        """Values sorted descending along ``dim`` (stable); gradient as
        [`sort`][burn_torch.tensor.Tensor.sort]."""
        return _sorted(self, dim, True)[0]

    def sort_with_indices(self, dim: int) -> "tuple[Tensor, Tensor]":
        """``(sorted values, their Int indices in self)``, ascending along ``dim`` (stable)."""
        return _sorted(self, dim, False)

    def sort_descending_with_indices(self, dim: int) -> "tuple[Tensor, Tensor]":
        """``(sorted values, their Int indices in self)``, descending along ``dim`` (stable)."""
        return _sorted(self, dim, True)

    def argsort(self, dim: int) -> "Tensor":
        """Int indices that sort ``self`` ascending along ``dim`` (stable); never tracked."""
        _not_bool(self, "argsort")
        return apply1(reduce_ops.ARGSORT, self, (self._dim(dim), False))

    def argsort_descending(self, dim: int) -> "Tensor":
        """Int indices that sort ``self`` descending along ``dim`` (stable); never tracked."""
        _not_bool(self, "argsort_descending")
        return apply1(reduce_ops.ARGSORT, self, (self._dim(dim), True))

    def topk(self, k: int, dim: int) -> "Tensor":
        """The ``k`` largest values along ``dim``, largest first; the gradient goes to the
        elements they came from (among equal values, the lowest indices are taken first)."""
        return self.topk_with_indices(k, dim)[0]

    def topk_with_indices(self, k: int, dim: int) -> "tuple[Tensor, Tensor]":
        """``(topk values, their Int indices in self)``. TypeError when ``k`` is not an int,
        ValueError unless ``0 <= k <=`` the size of ``dim``."""
        _not_bool(self, "topk")
        dim = self._dim(dim)
        if not isinstance(k, numbers.Integral) or isinstance(k, bool):
            raise TypeError(f"topk: k must be an int, got {type(k).__name__}")
        shape = self._data.shape
        if not 0 <= k <= shape[dim]:
            raise ValueError(f"topk: k={k} is out of range for dimension {dim} of shape {list(shape)}")
        return _select(reduce_ops.TOPK, self, dim, reduce_ops.topk_indices(self._data, int(k), dim))

    # ========================================================================= statistics ====
    def var(self, dim: int) -> "Tensor":
        """Sample variance along ``dim`` (kept), dividing by ``n - 1``; NaN when ``n == 1``."""
        require_float(self, "var")
        return apply1(reduce_ops.VAR, self, (self._dim(dim), 1))

    def var_bias(self, dim: int) -> "Tensor":
        """Population variance along ``dim`` (kept), dividing by ``n``."""
        require_float(self, "var_bias")
        return apply1(reduce_ops.VAR, self, (self._dim(dim), 0))

    def var_mean(self, dim: int) -> "tuple[Tensor, Tensor]":
        """``(self.var(dim), self.mean_dim(dim))``."""
        return self.var(dim), self.mean_dim(dim)

    def var_mean_bias(self, dim: int) -> "tuple[Tensor, Tensor]":
        """``(self.var_bias(dim), self.mean_dim(dim))``."""
        return self.var_bias(dim), self.mean_dim(dim)

    def median(self, dim: int) -> "Tensor":
        """Lower median along ``dim`` (kept), as Burn: the element a stable ascending sort puts at
        position ``(n - 1) // 2``, which gets the whole gradient. Float only; ValueError on an
        empty ``dim``."""
        return self.median_with_indices(dim)[0]

    def median_with_indices(self, dim: int) -> "tuple[Tensor, Tensor]":
        """``(lower medians, their Int indices in self)`` along ``dim`` (kept); see
        [`median`][burn_torch.tensor.Tensor.median]."""
        require_float(self, "median")
        dim = self._dim(dim)
        _nonempty(self, "median", dim)
        return _select(reduce_ops.MEDIAN, self, dim, reduce_ops.median_indices(self._data, dim))

    # ============================================================================= truth ====
    def any(self) -> "Tensor":
        """Whether any element is nonzero (or True), as a Bool tensor of shape ``[1]``."""
        return apply1(reduce_ops.ANY, self)

    def all(self) -> "Tensor":
        """Whether every element is nonzero (or True), as a Bool tensor of shape ``[1]``."""
        return apply1(reduce_ops.ALL, self)

    def any_dim(self, dim: int) -> "Tensor":
        """[`any`][burn_torch.tensor.Tensor.any] along ``dim``, keeping it with size 1."""
        return apply1(reduce_ops.ANY_DIM, self, (self._dim(dim),))

    def all_dim(self, dim: int) -> "Tensor":
        """[`all`][burn_torch.tensor.Tensor.all] along ``dim``, keeping it with size 1."""
        return apply1(reduce_ops.ALL_DIM, self, (self._dim(dim),))
