"""Burn's rearranging methods composed of existing ops: ``t``, ``unsqueeze_dims``, ``iter_dim``,
``split_with_sizes``, ``roll``/``roll_dim``, ``take`` and ``pad``.

Each is a composition of op-table entries (reshape, narrow, cat, select, slice_assign, flip,
repeat_dim), so its gradient is the composition of theirs.
"""
from __future__ import annotations

import enum
import numbers
from typing import TYPE_CHECKING, Iterator, Sequence

import torch

from .. import validate
from .base import TensorBase, check_scalar
from .shape import pieces

if TYPE_CHECKING:
    from ..tensor import Tensor


class PadMode(enum.Enum):
    """Burn's ``PadMode`` without its value: ``CONSTANT`` (pass the fill value to ``pad``
    instead of a mode), ``REFLECT`` (mirror without the edge) and ``EDGE`` (repeat the edge)."""

    CONSTANT = "constant"
    REFLECT = "reflect"
    EDGE = "edge"


class RearrangeMethods(TensorBase):
    __slots__ = ()

    def t(self) -> "Tensor":
        """Same as ``transpose`` (swaps the last two dims; a rank < 2 tensor is unchanged)."""
        return self.transpose()

    def unsqueeze_dims(self, axes: Sequence[int]) -> "Tensor":
        """Inserts a size-1 dim at each of ``axes`` (positions in the result, of rank
        ``rank + len(axes)``). Negative axes count from the end, each further negative one a
        place earlier; repeated axes insert that many dims, as Burn's. IndexError for an axis
        outside the result's rank."""
        rank = self._data.dim() + len(axes)
        offset = rank
        positions = []
        for a in axes:
            a = validate.integer("unsqueeze_dims", "axes", a)
            if not -rank <= a < rank:
                raise IndexError(f"unsqueeze_dims: axis {a} is out of range for a result of rank {rank}")
            if a < 0:
                offset -= 1
                a += offset + 1
            positions.append(a)
        positions.sort()
        for i in range(1, len(positions)):
            positions[i] = max(positions[i], positions[i - 1] + 1)
        if positions and positions[-1] >= rank:
            raise IndexError(f"unsqueeze_dims: axes {list(axes)} do not fit a result of rank {rank}")
        old = iter(self._data.shape)
        return self.reshape([1 if d in positions else next(old) for d in range(rank)])

    def iter_dim(self, dim: int) -> "Iterator[Tensor]":
        """Iterates over the slices of size 1 along ``dim`` (each keeps the dim), first to last."""
        d = self._dim(dim)
        return (self.narrow(d, i, 1) for i in range(self._data.shape[d]))

    def split_with_sizes(self, split_sizes: Sequence[int], dim: int) -> "list[Tensor]":
        """Consecutive pieces of ``split_sizes[i]`` entries along ``dim``; zero sizes give no
        piece, as Burn's. ValueError unless the sizes are non-negative and sum to the dim's size."""
        d = self._dim(dim)
        sizes = validate.shape("split_with_sizes", split_sizes, "split_sizes")
        if sum(sizes) != self._data.shape[d]:
            raise ValueError(f"split_with_sizes: sizes {sizes} sum to {sum(sizes)}, not to the size "
                             f"{self._data.shape[d]} of dim {d} (shape {self.dims()})")
        nonzero = [size for size in sizes if size]
        return pieces(self, d, nonzero) if nonzero else []

    def roll_dim(self, shift: int, dim: int) -> "Tensor":
        """Rotates the entries of ``dim``: the result is ``cat([x[s:], x[:s]])`` with ``s = shift``
        wrapped into ``0..size``, as Burn's ``roll_dim``. This is ``torch.roll(x, -shift, dim)``:
        Burn rolls towards lower indices."""
        return self.roll([shift], [dim])

    def roll(self, shifts: Sequence[int], dims: Sequence[int]) -> "Tensor":
        """[`roll_dim`][burn_torch.tensor.Tensor.roll_dim] for each ``(shifts[i], dims[i])``; shifts
        of a repeated dim add up. ValueError when the two lists differ in length."""
        shifts, dims = list(shifts), list(dims)
        if len(shifts) != len(dims):
            raise ValueError(f"roll: {len(shifts)} shifts for {len(dims)} dims; they must align")
        total = [0] * self._data.dim()
        for s, d in zip(shifts, dims):
            total[self._dim(d)] += validate.integer("roll", "shifts", s)
        out = self
        if self._data.numel() == 0:
            return out  # type: ignore[return-value]  # self is a Tensor: see TensorBase
        for d, s in enumerate(total):
            s %= self._data.shape[d]
            if s:
                size = self._data.shape[d]
                out = type(self).cat([out.narrow(d, s, size - s), out.narrow(d, 0, s)], d)
        return out  # type: ignore[return-value]  # self is a Tensor: see TensorBase

    def take(self, dim: int, indices) -> "Tensor":
        """Entries at the Int ``indices`` (any rank) along ``dim``: the result's shape is
        ``shape[:dim] + indices.shape + shape[dim+1:]`` (``select`` on the flattened indices, then
        a reshape, as Burn's). Repeated indices accumulate gradients."""
        d = self._dim(dim)
        if not isinstance(indices, TensorBase):
            raise TypeError(f"take: indices must be an Int Tensor, got {validate.type_name(indices)}")
        index_shape = list(indices._data.shape)
        picked = self.select(d, indices.reshape([-1]))
        shape = list(self._data.shape)
        return picked.reshape(shape[:d] + index_shape + shape[d + 1:])

    def pad(self, padding, mode=0) -> "Tensor":
        """Pads the trailing dims. ``padding`` is ``(left, right, top, bottom)`` (the last dim,
        then the one before it) or a sequence of ``(before, after)`` pairs for the last
        ``len(padding)`` dims. ``mode``: a number pads with that constant (default 0),
        ``PadMode.REFLECT`` mirrors without the edge (each pad smaller than its dim),
        ``PadMode.EDGE`` repeats the edge (dim not empty). TypeError for another padding form,
        mode or a Bool tensor; ValueError for more pairs than dims or pads a mode cannot take."""
        if self._data.dtype is torch.bool:
            raise TypeError("pad needs a Float or Int tensor, got Bool")
        pairs = self._padding_pairs(padding)
        if isinstance(mode, numbers.Number) and not isinstance(mode, bool):
            check_scalar("pad", self, mode)
            return self._pad_constant(pairs, mode)
        if mode is PadMode.CONSTANT:
            return self._pad_constant(pairs, 0)
        if mode not in (PadMode.REFLECT, PadMode.EDGE):
            raise TypeError(f"pad: mode must be a number or a PadMode, got {mode!r}")
        out = self
        for d, (before, after) in enumerate(pairs):
            if before or after:
                out = out._pad_dim(d, before, after, mode)
        return out  # type: ignore[return-value]  # self is a Tensor: see TensorBase

    def _padding_pairs(self, padding) -> "list[tuple[int, int]]":
        rank = self._data.dim()
        if isinstance(padding, tuple) and len(padding) == 4 and all(isinstance(p, int) for p in padding):
            left, right, top, bottom = padding
            trailing = [(top, bottom), (left, right)]
        else:
            if not all(isinstance(p, (tuple, list)) for p in padding):
                raise TypeError(f"pad: padding must be (left, right, top, bottom) or a sequence of "
                                f"(before, after) pairs, got {padding!r}")
            trailing = [tuple(p) for p in padding]
            if any(len(p) != 2 for p in trailing):
                raise ValueError(f"pad: expected (before, after) pairs, got {padding!r}")
        if len(trailing) > rank:
            raise ValueError(f"pad: {len(trailing)} padding pairs for a tensor of rank {rank}")
        pairs = [(0, 0)] * (rank - len(trailing)) + trailing
        for before, after in pairs:
            validate.size("pad", "padding", before)
            validate.size("pad", "padding", after)
        return pairs

    def _pad_constant(self, pairs, value) -> "Tensor":
        dims = [size + before + after for size, (before, after) in zip(self._data.shape, pairs)]
        region = [slice(before, before + size) for size, (before, _) in zip(self._data.shape, pairs)]
        padded = type(self).full(dims, value, self.device(), self.kind, self.dtype())
        return padded.slice_assign(region, self)  # type: ignore[arg-type]  # self is a Tensor: see TensorBase

    def _pad_dim(self, d: int, before: int, after: int, mode: PadMode) -> "Tensor":
        size = self._data.shape[d]
        if mode is PadMode.REFLECT:
            if before >= size or after >= size:
                raise ValueError(f"pad: reflect padding ({before}, {after}) must be smaller than "
                                 f"dim {d} of size {size}")
            head = self.narrow(d, 1, before).flip([d]) if before else None
            tail = self.narrow(d, size - after - 1, after).flip([d]) if after else None
        else:
            if size == 0:
                raise ValueError(f"pad: cannot edge-pad the empty dim {d}")
            head = self.narrow(d, 0, 1).repeat_dim(d, before) if before else None
            tail = self.narrow(d, size - 1, 1).repeat_dim(d, after) if after else None
        # self is a Tensor: see TensorBase
        return type(self).cat([p for p in (head, self, tail) if p is not None], d)  # type: ignore[misc]
