"""Burn's ``HingeEmbeddingLoss`` and its config."""
from __future__ import annotations

from ...module import Config
from ...tensor import Tensor
from .reduction import _Loss, _same_shape


# -- hinge embedding -------------------------------------------------------------------------------
class HingeEmbeddingLossConfig(Config):
    margin: float = 1.0

    def init(self) -> "HingeEmbeddingLoss":
        return HingeEmbeddingLoss(self.margin)


class HingeEmbeddingLoss(_Loss):
    """``input`` where the (Float) target is 1, ``max(0, margin - input)`` elsewhere.
    ``forward(input, target, reduction)``."""

    def __init__(self, margin: float = 1.0) -> None:
        super().__init__()
        self.margin = margin

    def forward_no_reduction(self, input: Tensor, target: Tensor) -> Tensor:
        _same_shape("HingeEmbeddingLoss", input, target)
        negative = (self.margin - input).clamp_min(0.0)
        return negative.mask_where(target.equal_elem(1), input)
