"""Burn's ``TripletMarginLoss`` and its config."""
from __future__ import annotations

from ...functional.linalg import lp_norm
from ...module import Config, module_fields
from ...tensor import Tensor
from .reduction import _Loss, _same_shape


# -- triplet margin --------------------------------------------------------------------------------
class TripletMarginLossConfig(Config):
    margin: float = 1.0
    p: float = 2.0

    def init(self) -> "TripletMarginLoss":
        return TripletMarginLoss(self.margin, self.p)


@module_fields
class TripletMarginLoss(_Loss):
    """``max(0, ||a - pos||_p - ||a - neg||_p + margin)`` per row of ``[batch, features]``
    inputs (no epsilon, unlike torch's ``eps=1e-6``). ``forward(anchor, positive, negative,
    reduction)``."""

    margin: float = 1.0
    p: float = 2.0

    def forward_no_reduction(self, anchor: Tensor, positive: Tensor, negative: Tensor) -> Tensor:
        _same_shape("TripletMarginLoss", anchor, positive, negative)
        if anchor.rank() != 2:
            raise ValueError(f"TripletMarginLoss: expected [batch, features] inputs, got "
                             f"{anchor.dims()}")
        d_pos = lp_norm(anchor - positive, self.p, 1).squeeze_dim(1)
        d_neg = lp_norm(anchor - negative, self.p, 1).squeeze_dim(1)
        return (d_pos - d_neg + self.margin).clamp_min(0.0)
