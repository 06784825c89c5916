"""Burn's ``SoftMarginLoss``."""
from __future__ import annotations

from ...functional.activation import softplus
from ...tensor import Tensor
from .reduction import _Loss, _same_shape


# -- soft margin -----------------------------------------------------------------------------------
class SoftMarginLoss(_Loss):
    """``softplus(-target * logits)`` (Burn's ``SoftMarginLoss::new()``, no config).
    ``forward(logits, targets, reduction)``."""

    def forward_no_reduction(self, logits: Tensor, targets: Tensor) -> Tensor:
        _same_shape("SoftMarginLoss", logits, targets)
        return softplus(-(targets * logits), 1.0)
