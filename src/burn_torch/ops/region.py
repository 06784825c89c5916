"""Region gradients: the gradient of a slicing op, zero outside the part it selected.

The rule of ``narrow`` (``split``, ``chunk``) or ``slice`` returns a ``Region`` — the
selected part's gradient and where that part lies in the input — instead of a zero-filled tensor
of the input's shape. The engine collects an input's regions (``Regions``) until the input's
own step runs or a whole-tensor gradient joins them, then makes them one dense gradient: pieces
of one dim that do not overlap (the pieces of a ``split``, the steps of a loop over
``x.narrow(1, t, 1)``) are concatenated, the gaps filled with zeros — one ``cat`` kernel, as
torch's split backward; otherwise the first region is materialised (``Region.dense``) and
the others add into their part of it in place. A region arriving after a dense gradient adds into
it. Splitting a tensor into ``n`` pieces costs one ``cat``, not ``n`` zero-padded tensors and
``n - 1`` full-size sums. Regions never leave the engine: hooks and the gradients container see
dense tensors.
"""
from __future__ import annotations

import torch

_PAD = torch.constant_pad_nd
_CAT = torch.cat


class Region:
    """``grad`` placed in a zero tensor of ``shape``: at ``index`` (a tuple of slices; a
    ``slice``'s region), or, when ``dim`` is set, at ``start`` along ``dim`` over ``grad``'s
    extent there (a ``narrow``'s region, whose index is never built)."""

    __slots__ = ("grad", "shape", "index", "dim", "start")

    def __init__(self, grad: torch.Tensor, shape: torch.Size, index: tuple | None = None,
                 dim: int | None = None, start: int = 0) -> None:
        self.grad = grad
        self.shape = shape
        self.index = index
        self.dim = dim
        self.start = start

    def dense(self) -> torch.Tensor:
        """A fresh tensor of ``shape``: ``grad`` in its region, zeros elsewhere (a narrow's:
        one constant-pad kernel)."""
        d = self.dim
        if d is not None:
            grad = self.grad
            after = self.shape[d] - self.start - grad.shape[d]
            return _PAD(grad, (0, 0) * (len(self.shape) - 1 - d) + (self.start, after))
        out = self.grad.new_zeros(self.shape)
        out[self.index] = self.grad
        return out

    def add_to(self, target: torch.Tensor) -> None:
        """Adds ``grad`` into ``target``'s region in place (``target`` has ``shape``)."""
        d = self.dim
        if d is not None:
            target.narrow(d, self.start, self.grad.shape[d]).add_(self.grad)
        else:
            target[self.index].add_(self.grad)


def _start(region: Region) -> int:
    return region.start


class Regions:
    """The regions of one input's gradient received so far, in arrival order, not yet summed."""

    __slots__ = ("parts",)

    def __init__(self, first: Region) -> None:
        self.parts = [first]

    def dense(self) -> torch.Tensor:
        """A fresh tensor of the input's shape: the sum of the regions (zeros elsewhere)."""
        parts = self.parts
        first = parts[0]
        if len(parts) == 1:
            return first.dense()
        pieces = _pieces(parts)
        if pieces is not None:
            return _CAT(pieces, first.dim)
        out = first.dense()
        for region in parts[1:]:
            region.add_to(out)
        return out


def _pieces(parts: list) -> list | None:
    """The regions' gradients and zero gaps in order along their one dim, when every region is
    a ``narrow``'s, all along the same dim, and none overlaps another; else None."""
    first = parts[0]
    d = first.dim
    if d is None:
        return None
    for region in parts:
        if region.dim != d:
            return None
    shape = first.shape
    pieces = []
    pos = 0
    for region in sorted(parts, key=_start):
        if region.start < pos:
            return None
        if region.start > pos:
            pieces.append(_zeros(first.grad, shape, d, region.start - pos))
        pieces.append(region.grad)
        pos = region.start + region.grad.shape[d]
    if pos < shape[d]:
        pieces.append(_zeros(first.grad, shape, d, shape[d] - pos))
    return pieces


def _zeros(like: torch.Tensor, shape: torch.Size, d: int, size: int) -> torch.Tensor:
    gap = list(shape)
    gap[d] = size
    return like.new_zeros(gap)
