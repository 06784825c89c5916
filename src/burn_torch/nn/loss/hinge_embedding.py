"""Burn's ``HingeEmbeddingLoss`` and its config."""
from __future__ import annotations

from ...module import Config, module_fields
from ...tensor import Tensor
from .reduction import _Loss, _same_shape


# -- hinge embedding -------------------------------------------------------------------------------
class HingeEmbeddingLossConfig(Config):
    margin: float = 1.0

    def init(self) -> "HingeEmbeddingLoss":
        return HingeEmbeddingLoss(self.margin)


@module_fields
class HingeEmbeddingLoss(_Loss):
    """``input`` where the (Float) target is 1, ``max(0, margin - input)`` elsewhere.
    ``forward(input, target, reduction)``."""

    margin: float = 1.0

    def forward_no_reduction(self, input: Tensor, target: Tensor) -> Tensor:
        _same_shape("HingeEmbeddingLoss", input, target)
        negative = (self.margin - input).clamp_min(0.0)
        return negative.mask_where(target.equal_elem(1), input)
