"""Indexing and masking methods of Tensor. Index and mask tensors are never differentiated."""
from __future__ import annotations

import math
from typing import TYPE_CHECKING

import torch

from .. import validate
from ..autodiff.recorder import apply1, apply2, wrap
from ..dtype import kind_of
from ..ops import index as index_ops
from ..ops.index import IndexingUpdateOp
from .base import TensorBase, same_kind

if TYPE_CHECKING:
    from ..tensor import Tensor



def as_index_tensor(indices, like: TensorBase, what: str) -> torch.Tensor:
    if isinstance(indices, TensorBase):
        data = indices._data
    else:
        data = torch.as_tensor(indices, device=like._data.device)
    if data.dtype.is_floating_point or data.dtype is torch.bool:
        raise TypeError(f"{what}: indices must be an Int tensor, got {kind_of(data.dtype)}")
    return data if data.dtype is torch.int64 else data.long()


def check_in_range(what: str, x: TensorBase, d: int, idx: torch.Tensor) -> None:
    """IndexError for an index outside dim ``d`` of ``x`` (see ``validate.indices_in_range``:
    CPU indices only)."""
    shape = x._data.shape
    validate.indices_in_range(what, d, idx, shape[d], shape)


def update_operands(what: str, x: TensorBase, values, op) -> None:
    """TypeError unless ``op`` is an IndexingUpdateOp and ``x``, ``values`` are numeric tensors of
    the same dtype."""
    if not isinstance(op, IndexingUpdateOp):
        raise TypeError(f"{what}: op must be a burn_torch.IndexingUpdateOp, got {op!r}")
    if not isinstance(values, TensorBase):
        raise TypeError(f"{what}: values must be a Tensor, got {validate.type_name(values)}")
    if x._data.dtype is torch.bool:
        raise TypeError(f"{what} needs a Float or Int tensor, got Bool")
    if values._data.dtype is not x._data.dtype:
        raise TypeError(f"{what}: values of dtype {values.dtype()} for a tensor of dtype {x.dtype()}; "
                        f"convert one of them first")


def as_mask(mask, what: str) -> torch.Tensor:
    if not isinstance(mask, TensorBase) or mask._data.dtype is not torch.bool:
        raise TypeError(f"{what}: the mask must be a Bool tensor")
    return mask._data


class IndexMethods(TensorBase):
    __slots__ = ()

    # ========================================================================== indexing ====
    def select(self, dim: int, indices) -> "Tensor":
        """Entries at Int ``indices`` (rank 1) along ``dim``; repeated indices accumulate gradients."""
        idx = as_index_tensor(indices, self, "select")
        if idx.dim() != 1:
            raise ValueError(f"select: indices must have rank 1, got shape {list(idx.shape)}")
        d = self._dim(dim)
        check_in_range("select", self, d, idx)
        return apply1(index_ops.SELECT, self, (d, idx))

    def gather(self, dim: int, indices) -> "Tensor":
        """``out[i][j] = self[indices[i][j]][j]`` (for dim 0); indices have this tensor's rank."""
        idx = as_index_tensor(indices, self, "gather")
        if idx.dim() != self._data.dim():
            raise ValueError(f"gather: indices of shape {list(idx.shape)} must have the rank of "
                             f"the tensor, shape {self.dims()}")
        d = self._dim(dim)
        # torch's kernel checks the range itself (no host read of the indices on the way in):
        # only a failure pays for the check that raises IndexError naming the bad index
        try:
            return apply1(index_ops.GATHER, self, (d, idx))
        except ValueError as err:
            error = err
        check_in_range("gather", self, d, idx)
        raise error

    def mask_fill(self, mask: "Tensor", value) -> "Tensor":
        """``value`` where the Bool ``mask`` is set, else self; no gradient flows to filled entries."""
        return apply1(index_ops.MASK_FILL, self, (as_mask(mask, "mask_fill"),
                                                  validate.real("mask_fill", "value", value)))

    def mask_where(self, mask: "Tensor", values: "Tensor") -> "Tensor":
        """``values`` where the Bool ``mask`` is set, else self (note: torch.where's order differs)."""
        m = as_mask(mask, "mask_where")
        if not isinstance(values, TensorBase):
            raise TypeError("mask_where: values must be a Tensor")
        if values._data.dtype is not self._data.dtype:
            same_kind("mask_where", self, values)
        return apply2(index_ops.MASK_WHERE, self, values, (m,))

    def mask_select(self, mask: "Tensor") -> "Tensor":
        """The entries where the Bool ``mask`` (of this tensor's shape) is set, in row-major order,
        as a rank-1 tensor; gradients flow back to the selected entries only."""
        m = as_mask(mask, "mask_select")
        if m.shape != self._data.shape:
            raise ValueError(f"mask_select: mask of shape {list(m.shape)} for a tensor of shape "
                             f"{self.dims()}")
        return apply1(index_ops.MASK_SELECT, self, (m,))

    # ================================================================== indexed updates ====
    def select_assign(self, dim: int, indices, values: "Tensor", op: IndexingUpdateOp) -> "Tensor":
        """A copy where slice ``i`` of ``values`` along ``dim`` is combined by ``op`` into slice
        ``indices[i]`` (Int, rank 1) of this tensor; ``values`` has this tensor's shape except
        ``len(indices)`` along ``dim``. Gradients follow Burn's rules (see
        ``IndexingUpdateOp``): MIN/MAX give the whole gradient to every side equal to the
        result, MUL gives each value the gradient times the entry it scaled."""
        update_operands("select_assign", self, values, op)
        d = self._dim(dim)
        idx = as_index_tensor(indices, self, "select_assign")
        if idx.dim() != 1:
            raise ValueError(f"select_assign: indices must have rank 1, got shape {list(idx.shape)}")
        expected = self.dims()
        expected[d] = idx.shape[0]
        if values.dims() != expected:
            raise ValueError(f"select_assign: values of shape {values.dims()} for {idx.shape[0]} "
                             f"indices along dim {d} of shape {self.dims()}; expected {expected}")
        check_in_range("select_assign", self, d, idx)
        return apply2(index_ops.SELECT_ASSIGN[op], self, values, (index_ops.AlongDim(d, idx),))

    def scatter(self, dim: int, indices, values: "Tensor", op: IndexingUpdateOp) -> "Tensor":
        """A copy where each ``values[i...]`` is combined by ``op`` into the entry at the same
        position except ``indices[i...]`` along ``dim``. ``indices`` (Int) has the shape of
        ``values``, which equals this tensor's except along ``dim``, as Burn requires. Gradients
        as [`select_assign`][burn_torch.tensor.Tensor.select_assign]."""
        update_operands("scatter", self, values, op)
        d = self._dim(dim)
        idx = as_index_tensor(indices, self, "scatter")
        shape, ishape = self.dims(), list(idx.shape)
        if ishape != values.dims() or len(ishape) != len(shape) or any(
                a != b for i, (a, b) in enumerate(zip(shape, ishape)) if i != d):
            raise ValueError(f"scatter: indices of shape {ishape} and values of shape {values.dims()} "
                             f"must have the same shape, equal to the tensor's {shape} except "
                             f"along dim {d}")
        check_in_range("scatter", self, d, idx)
        return apply2(index_ops.SCATTER[op], self, values, (index_ops.Elementwise(d, idx),))

    def gather_nd(self, indices) -> "Tensor":
        """The slices ``self[i0, ..., iK-1]`` addressed by the rows of the Int ``indices``
        ``[..., K]``, shaped ``indices.shape[:-1] + self.shape[K:]``; repeated rows accumulate
        gradients."""
        place = self._multi_index(indices, "gather_nd")
        if not place.batch and self._data.dim() == place.k:
            raise ValueError(f"gather_nd: indices of shape [{place.k}] address single entries of a "
                             f"rank-{place.k} tensor, which would give a rank-0 result; use indices "
                             f"of shape [1, {place.k}]")
        return apply1(index_ops.GATHER_ND, self, (place,))

    def scatter_nd(self, indices, values: "Tensor", op: IndexingUpdateOp) -> "Tensor":
        """A copy where ``values[m]`` is combined by ``op`` into the slice addressed by row ``m``
        of the Int ``indices`` ``[M, K]`` (leading batch dims allowed); ``values`` has shape
        ``indices.shape[:-1] + self.shape[K:]``. Gradients as
        [`select_assign`][burn_torch.tensor.Tensor.select_assign]."""
        update_operands("scatter_nd", self, values, op)
        place = self._multi_index(indices, "scatter_nd")
        expected = list(place.batch) + self.dims()[place.k:]
        if values.dims() != expected:
            raise ValueError(f"scatter_nd: values of shape {values.dims()} for indices addressing "
                             f"{place.k} dims of shape {self.dims()}; expected {expected}")
        return apply2(index_ops.SCATTER_ND[op], self, values, (place,))

    def _multi_index(self, indices, what: str) -> "index_ops.Multi":
        idx = as_index_tensor(indices, self, what)
        shape = self.dims()
        k = idx.shape[-1] if idx.dim() else 0
        if idx.dim() == 0 or not 1 <= k <= len(shape):
            raise ValueError(f"{what}: indices of shape {list(idx.shape)} must be [..., K] with "
                             f"1 <= K <= {len(shape)} (tensor shape {shape})")
        for j in range(k):
            check_in_range(what, self, j, idx[..., j])
        strides = torch.tensor([math.prod(shape[j + 1:k]) for j in range(k)], device=idx.device)
        flat = (idx * strides).sum(-1).reshape(-1)
        return index_ops.Multi(k, flat, idx.shape[:-1])

    # ======================================================== non-differentiable indices ====
    def one_hot(self, num_classes: int) -> "Tensor":
        """One-hot rows over a new last dim of ``num_classes`` (>= 2), of this tensor's dtype;
        negative indices count from ``num_classes``, as Burn's. TypeError for Bool tensors,
        ValueError for an index outside ``-num_classes..num_classes``."""
        if self._data.dtype is torch.bool:
            raise TypeError("one_hot needs an Int (or Float) tensor of class indices, got Bool")
        num_classes = validate.integer("one_hot", "num_classes", num_classes)
        if num_classes < 2:
            raise ValueError(f"one_hot needs at least 2 classes, got {num_classes}")
        d = self._data
        if d.numel() and (d.min() < -num_classes or d.max() >= num_classes):
            raise ValueError(f"one_hot: class indices must lie in -{num_classes}..{num_classes}, "
                             f"got values from {d.min().item()} to {d.max().item()}")
        return apply1(index_ops.ONE_HOT, self, (num_classes,))

    def one_hot_fill(self, num_classes: int, on_value: float, off_value: float,
                     axis: int = -1) -> "Tensor":
        """One-hot encoding along a new dim at ``axis`` (``-rank-1..=rank``; negative counts from
        the end of the result) of ``num_classes``: ``on_value`` at each index, ``off_value``
        elsewhere, in this tensor's dtype. Negative indices count from ``num_classes``, as
        Burn's. Not differentiable. TypeError for Bool tensors, ValueError for an index outside
        ``-num_classes..num_classes``, IndexError for an axis out of range."""
        if self._data.dtype is torch.bool:
            raise TypeError("one_hot_fill needs an Int (or Float) tensor of class indices, got Bool")
        num_classes = validate.size("one_hot_fill", "num_classes", num_classes, minimum=1)
        on = validate.real("one_hot_fill", "on_value", on_value)
        off = validate.real("one_hot_fill", "off_value", off_value)
        axis = validate.dim("one_hot_fill", self._data.dim() + 1, axis, "axis")
        d = self._data
        if d.numel() and (d.min() < -num_classes or d.max() >= num_classes):
            raise ValueError(f"one_hot_fill: class indices must lie in -{num_classes}..{num_classes}, "
                             f"got values from {d.min().item()} to {d.max().item()}")
        return apply1(index_ops.ONE_HOT_FILL, self, (num_classes, on, off, axis))

    def argwhere(self) -> "Tensor":
        """The Int ``[N, rank]`` coordinates of the set entries of this Bool tensor, row-major.
        TypeError for Float/Int tensors."""
        return self._argwhere("argwhere")

    def nonzero(self) -> "list[Tensor]":
        """The coordinates of the set entries of this Bool tensor: one rank-1 Int tensor per dim
        (a Python list). TypeError for Float/Int tensors."""
        where = self._argwhere("nonzero")
        return [wrap(column, where._ctx) for column in where._data.unbind(1)]

    def _argwhere(self, what: str) -> "Tensor":
        if self._data.dtype is not torch.bool:
            raise TypeError(f"{what} needs a Bool tensor, got {self.kind}; compare first or call .bool()")
        return apply1(index_ops.ARGWHERE, self)
