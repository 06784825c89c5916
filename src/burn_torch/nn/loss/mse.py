"""Burn's ``MseLoss``."""
from __future__ import annotations

from ...autodiff.recorder import apply2
from ...module import Module
from ...ops.loss import MSE_LOSS
from ...tensor import Tensor
from .reduction import _one_step_reduction, _reduce, Reduction


class MseLoss(Module):
    """Mean squared error: ``(logits - targets)^2`` reduced to shape ``[1]``."""

    def forward(self, logits: Tensor, targets: Tensor, reduction: Reduction = Reduction.MEAN) -> Tensor:
        """The reduced loss, shape ``[1]``; ValueError if the shapes differ. Float tensors of one
        dtype and shape reduce in one step (torch's ``mse_loss`` kernels)."""
        code = _one_step_reduction(logits, targets, reduction)
        if code is not None:
            return apply2(MSE_LOSS, logits, targets, (code,))
        return _reduce(self.forward_no_reduction(logits, targets), reduction)

    def forward_no_reduction(self, logits: Tensor, targets: Tensor) -> Tensor:
        """The per-element squared errors, the shape of ``logits``."""
        if logits.dims() != targets.dims():
            raise ValueError(f"MseLoss: logits shape {logits.dims()} != targets shape {targets.dims()}")
        return (logits - targets).square()
