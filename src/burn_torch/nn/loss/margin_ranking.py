"""Burn's ``MarginRankingLoss`` and its config."""
from __future__ import annotations

from ...functional.activation import relu
from ...module import Config, module_fields
from ...tensor import Tensor
from .reduction import _Loss, _same_shape


# -- margin ranking --------------------------------------------------------------------------------
class MarginRankingLossConfig(Config):
    margin: float = 0.0

    def init(self) -> "MarginRankingLoss":
        """The loss; ValueError for a negative margin."""
        if not self.margin >= 0.0:
            raise ValueError("Margin for margin ranking loss must be a non-negative number.")
        return MarginRankingLoss(self.margin)


@module_fields
class MarginRankingLoss(_Loss):
    """``relu(margin - target * (first - second))``. ``forward(first, second, target,
    reduction)`` with a Float target of 1 or -1."""

    margin: float = 0.0

    def forward_no_reduction(self, first: Tensor, second: Tensor, target: Tensor) -> Tensor:
        _same_shape("MarginRankingLoss", first, second, target)
        return relu(self.margin - target * (first - second))
