"""Region gradients: the gradient of a slicing op, zero outside the part it selected.

The rule of ``narrow`` (``split``, ``chunk``) or ``slice`` returns a :class:`Region` — the
selected part's gradient and where that part lies in the input — instead of a zero-filled tensor
of the input's shape. The engine collects an input's regions (:class:`Regions`) until the input's
own step runs or a whole-tensor gradient joins them, then makes them one dense gradient: pieces
of one dim that do not overlap (the pieces of a ``split``, the steps of a loop over
``x.narrow(1, t, 1)``) are concatenated, the gaps filled with zeros — one ``cat`` kernel, as
torch's split backward; otherwise the first region is materialised (:meth:`Region.dense`) and
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
    """``grad`` placed at ``index`` (a tuple of slices) of a zero tensor of ``shape``; ``pad``,
    when given, is the ``constant_pad_nd`` padding that builds that tensor in one kernel."""

    __slots__ = ("grad", "index", "shape", "pad")

    def __init__(self, grad: torch.Tensor, index: tuple, shape: torch.Size,
                 pad: tuple | None = None) -> None:
        self.grad = grad
        self.index = index
        self.shape = shape
        self.pad = pad

    def dense(self) -> torch.Tensor:
        """A fresh tensor of ``shape``: ``grad`` at ``index``, zeros elsewhere."""
        if self.pad is not None:
            return _PAD(self.grad, self.pad)
        out = self.grad.new_zeros(self.shape)
        out[self.index] = self.grad
        return out

    def add_to(self, target: torch.Tensor) -> None:
        """Adds ``grad`` into ``target``'s region in place (``target`` has ``shape``)."""
        target[self.index].add_(self.grad)


def _start(region: Region) -> int:
    return region.index[-1].start


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
            return _CAT(pieces, len(first.index) - 1)
        out = first.dense()
        for region in parts[1:]:
            region.add_to(out)
        return out


def _pieces(parts: list) -> list | None:
    """The regions' gradients and zero gaps in order along their one dim, when every region is
    a ``narrow``'s (it has ``pad``), all along the same dim, and none overlaps another; else
    None."""
    first = parts[0]
    d = len(first.index) - 1
    for region in parts:
        if region.pad is None or len(region.index) != d + 1:
            return None
    shape = first.shape
    pieces = []
    pos = 0
    for region in sorted(parts, key=_start):
        span = region.index[d]
        if span.start < pos:
            return None
        if span.start > pos:
            pieces.append(_zeros(first.grad, shape, d, span.start - pos))
        pieces.append(region.grad)
        pos = span.stop
    if pos < shape[d]:
        pieces.append(_zeros(first.grad, shape, d, shape[d] - pos))
    return pieces


def _zeros(like: torch.Tensor, shape: torch.Size, d: int, size: int) -> torch.Tensor:
    gap = list(shape)
    gap[d] = size
    return like.new_zeros(gap)
