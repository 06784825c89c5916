"""Region gradients: the gradient of a slicing op, zero outside the part it selected.

The rule of ``narrow`` (``split``, ``chunk``) or ``slice`` returns a :class:`Region` — the
selected part's gradient and where that part lies in the input — instead of a zero-filled tensor
of the input's shape. The engine adds it into that region of the input's accumulated gradient:
the first region of an input is materialised once (:meth:`Region.dense`), later ones add into
their part of it in place. Splitting a tensor into ``n`` pieces then costs one dense gradient
and ``n - 1`` region additions, not ``n`` zero-padded tensors and ``n - 1`` full-size sums; a
step-by-step loop over a sequence (``x.narrow(1, t, 1)`` for each ``t``) costs one dense
gradient instead of one per step. Regions never leave the engine: hooks and the gradients
container see dense tensors.
"""
from __future__ import annotations

import torch

_PAD = torch.constant_pad_nd


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
