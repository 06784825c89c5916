"""Burn's ``MultiMarginLoss`` and its config."""
from __future__ import annotations

from ...dtype import Int
from ...module import Config, module_fields
from ...tensor import Tensor
from .reduction import _Loss


# -- multi-class margin ----------------------------------------------------------------------------
class MultiMarginLossConfig(Config):
    margin: float = 1.0
    p: int = 1

    def init(self) -> "MultiMarginLoss":
        """The loss; ValueError for a negative margin or ``p`` other than 1 and 2."""
        if not self.margin >= 0.0:
            raise ValueError(f"Margin for multi margin loss must be non-negative, got {self.margin}")
        if self.p not in (1, 2) or isinstance(self.p, bool):
            raise ValueError(f"Multi margin loss only supports p = 1 or p = 2, got {self.p}")
        return MultiMarginLoss(self.margin, self.p)


@module_fields
class MultiMarginLoss(_Loss):
    """Per sample, ``sum_{j != y} max(0, margin - x[y] + x[j])^p / classes`` for logits ``x``
    ``[batch, classes]`` and Int targets ``y`` ``[batch]``. ``forward(input, target,
    reduction)``."""

    margin: float = 1.0
    p: int = 1

    def forward_no_reduction(self, input: Tensor, target: Tensor) -> Tensor:
        if target.kind is not Int:
            raise TypeError(f"MultiMarginLoss: target must be an Int tensor, got {target.kind}")
        if input.rank() != 2 or target.dims() != input.dims()[:1]:
            raise ValueError(f"MultiMarginLoss: expected input [batch, classes] and target "
                             f"[batch], got {input.dims()} and {target.dims()}")
        batch, classes = input.dims()
        correct = input.gather(1, target.reshape([batch, 1]))
        summed = (input - correct + self.margin).clamp_min(0.0).powi_scalar(self.p).sum_dim(1)
        return (summed - self.margin ** self.p).squeeze_dim(1) * (1.0 / classes)
