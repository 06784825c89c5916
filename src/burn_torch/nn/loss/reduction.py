"""Burn's ``Reduction`` and the reduction every loss's ``forward`` applies to its
``forward_no_reduction``.
"""
from __future__ import annotations

import enum
from typing import TYPE_CHECKING, Callable, Sequence

from ...module import Module
from ...tensor import Tensor


class Reduction(enum.Enum):
    """How a loss reduces per-element values: ``MEAN``, ``SUM``, ``BATCH_MEAN`` (the sum over
    the batch size, for ``KLDivLoss``) or ``AUTO`` (each loss's default: the mean, except
    ``KLDivLoss``'s batch mean)."""

    MEAN = "mean"
    SUM = "sum"
    BATCH_MEAN = "batch_mean"
    AUTO = "auto"


# torch's codes of the reductions a loss computes in one step (MseLoss, HuberLoss)
_ONE_STEP_REDUCTIONS = {Reduction.MEAN: 1, Reduction.AUTO: 1, Reduction.SUM: 2}


def _one_step_reduction(x, y, reduction) -> int | None:
    """torch's code for ``reduction`` when ``x`` and ``y`` are Float tensors of one dtype and
    shape and the reduction is a mean or a sum (the loss's one-step entry then applies); else
    None (Burn's composed ops, which also report bad arguments)."""
    code = _ONE_STEP_REDUCTIONS.get(reduction) if isinstance(reduction, Reduction) else None
    if (code is not None and isinstance(x, Tensor) and isinstance(y, Tensor)
            and x._data.shape == y._data.shape and x._data.dtype is y._data.dtype
            and x._data.is_floating_point()):
        return code
    return None


def _reduce(values: Tensor, reduction: Reduction, what: str = "this loss") -> Tensor:
    """``values`` summed for ``SUM``, averaged for ``MEAN`` and ``AUTO``: shape ``[1]``.
    Raises ValueError for ``BATCH_MEAN`` (only ``KLDivLoss`` takes it, as Burn) or a value that
    is not a Reduction."""
    if reduction is Reduction.SUM:
        return values.sum()
    if reduction in (Reduction.MEAN, Reduction.AUTO):
        return values.mean()
    raise ValueError(f"{reduction!r} reduction is not supported by {what}")


def _same_shape(what: str, *tensors: Tensor) -> None:
    shapes = [t.dims() for t in tensors]
    if any(s != shapes[0] for s in shapes):
        raise ValueError(f"{what}: the inputs must have the same shape, got {shapes}")


class _Loss(Module):
    """A loss whose ``forward`` is ``forward_no_reduction`` reduced (``AUTO`` is the mean)."""

    if TYPE_CHECKING:  # each loss defines it with its own inputs
        forward_no_reduction: Callable[..., Tensor]

    def forward(self, *inputs, reduction: Reduction = Reduction.AUTO) -> Tensor:
        if inputs and isinstance(inputs[-1], Reduction):
            inputs, reduction = inputs[:-1], inputs[-1]
        return _reduce(self.forward_no_reduction(*inputs), reduction, type(self).__name__)

    def __repr__(self) -> str:
        fields = ", ".join(f"{k}: {v}" for k, v in vars(self).items() if not k.startswith("_"))
        return f"{type(self).__name__} {{{fields}}}" if fields else type(self).__name__


def _mean_dims(values: Tensor, dims: Sequence[int]) -> Tensor:
    for d in sorted({values._dim(d) for d in dims}):
        values = values.mean_dim(d)
    return values
