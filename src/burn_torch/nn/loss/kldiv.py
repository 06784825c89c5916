"""Burn's ``KLDivLoss`` and its config (``Reduction.AUTO`` is the batch mean here)."""
from __future__ import annotations

import torch

from ...module import Config, module_fields
from ...tensor import Tensor
from .reduction import _Loss, _reduce, _same_shape, Reduction


# -- Kullback-Leibler divergence -------------------------------------------------------------------
class KLDivLossConfig(Config):
    log_target: bool = False

    def init(self) -> "KLDivLoss":
        return KLDivLoss(self.log_target)


@module_fields
class KLDivLoss(_Loss):
    """``target * (log(target) - predictions)`` (predictions are log-probabilities; the target's
    log is of ``clamp(target, tiny, 1)``), or ``exp(target) * (target - predictions)`` with
    ``log_target``. ``forward(predictions, targets, reduction)``: ``AUTO`` and ``BATCH_MEAN``
    divide the sum by the size of dim 0 (Burn's default; torch's default is the mean)."""

    log_target: bool = False

    # Burn's KLDivLoss takes exactly (predictions, targets), where _Loss.forward takes any inputs
    def forward(self, predictions: Tensor, targets: Tensor,  # type: ignore[override]
                reduction: Reduction = Reduction.AUTO) -> Tensor:
        loss = self.forward_no_reduction(predictions, targets)
        if reduction in (Reduction.AUTO, Reduction.BATCH_MEAN):
            return loss.sum() / float(loss.dims()[0])
        return _reduce(loss, reduction, "KLDivLoss")

    def forward_no_reduction(self, predictions: Tensor, targets: Tensor) -> Tensor:
        _same_shape("KLDivLoss", predictions, targets)
        if self.log_target:
            return targets.exp() * (targets - predictions)
        tiny = torch.finfo(targets.to_torch().dtype).tiny
        return targets * (targets.clamp(tiny, 1.0).log() - predictions)
