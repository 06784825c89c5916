"""Indexing and masking methods of Tensor. Index and mask tensors are never differentiated."""
from __future__ import annotations

from typing import TYPE_CHECKING

import torch

from ..autodiff.record import apply1, apply2
from ..dtype import kind_of
from ..ops import index as I
from .base import TensorBase, same_kind

if TYPE_CHECKING:
    from ..tensor import Tensor



def as_index_tensor(indices, like: "Tensor", what: str) -> torch.Tensor:
    if isinstance(indices, TensorBase):
        data = indices._data
    else:
        data = torch.as_tensor(indices, device=like._data.device)
    if data.dtype.is_floating_point or data.dtype is torch.bool:
        raise TypeError(f"{what}: indices must be an Int tensor, got {kind_of(data.dtype)}")
    return data if data.dtype is torch.int64 else data.long()


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
        return apply1(I.SELECT, self, (self._dim(dim), idx))

    def gather(self, dim: int, indices) -> "Tensor":
        """``out[i][j] = self[indices[i][j]][j]`` (for dim 0); indices have this tensor's rank."""
        idx = as_index_tensor(indices, self, "gather")
        if idx.dim() != self._data.dim():
            raise ValueError(f"gather: indices of shape {list(idx.shape)} must have the rank of "
                             f"the tensor, shape {self.dims()}")
        return apply1(I.GATHER, self, (self._dim(dim), idx))

    def mask_fill(self, mask: "Tensor", value) -> "Tensor":
        """``value`` where the Bool ``mask`` is set, else self; no gradient flows to filled entries."""
        return apply1(I.MASK_FILL, self, (as_mask(mask, "mask_fill"), value))

    def mask_where(self, mask: "Tensor", values: "Tensor") -> "Tensor":
        """``values`` where the Bool ``mask`` is set, else self (note: torch.where's order differs)."""
        m = as_mask(mask, "mask_where")
        if not isinstance(values, TensorBase):
            raise TypeError("mask_where: values must be a Tensor")
        if values._data.dtype is not self._data.dtype:
            same_kind("mask_where", self, values)
        return apply2(I.MASK_WHERE, self, values, (m,))
