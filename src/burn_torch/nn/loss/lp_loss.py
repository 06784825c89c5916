"""Burn's ``LpLoss`` and its config."""
from __future__ import annotations

from typing import Sequence

from ...module import Config, module_fields
from ...tensor import Tensor
from .reduction import _Loss, _mean_dims, _same_shape


# -- Lp --------------------------------------------------------------------------------------------
class LpLossConfig(Config):
    """``p``: the order (required, > 0). ``LpLossConfig.l1()``/``.l2()`` build the loss."""

    p: float

    def init(self) -> "LpLoss":
        """The loss; ValueError unless ``p > 0``."""
        if not self.p > 0.0:
            raise ValueError("The order of the norm p must be positive.")
        return LpLoss(self.p)

    @staticmethod
    def l1() -> "LpLoss":
        return LpLoss(1.0)

    @staticmethod
    def l2() -> "LpLoss":
        return LpLoss(2.0)


@module_fields
class LpLoss(_Loss):
    """``|predictions - targets|^p`` element-wise (``|e|`` for p = 1, ``e * e`` for p = 2).
    ``forward(predictions, targets, reduction)``."""

    p: float

    def forward_no_reduction(self, predictions: Tensor, targets: Tensor) -> Tensor:
        _same_shape("LpLoss", predictions, targets)
        error = predictions - targets
        if self.p == 1.0:
            return error.abs()
        if self.p == 2.0:
            return error * error
        return error.abs().powf_scalar(self.p)

    def forward_reduce_dims(self, predictions: Tensor, targets: Tensor,
                            dims: Sequence[int]) -> Tensor:
        """The element losses averaged over ``dims`` (kept as size 1)."""
        return _mean_dims(self.forward_no_reduction(predictions, targets), dims)
