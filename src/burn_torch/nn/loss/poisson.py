"""Burn's ``PoissonNllLoss`` and its config."""
from __future__ import annotations

import math

from ...module import Config, module_fields
from ...tensor import Tensor
from .reduction import _Loss, _same_shape


# -- Poisson negative log-likelihood ---------------------------------------------------------------
class PoissonNllLossConfig(Config):
    log_input: bool = True
    full: bool = False
    eps: float = 1e-8

    def init(self) -> "PoissonNllLoss":
        """The loss; ValueError unless ``eps > 0``."""
        if not self.eps > 0.0:
            raise ValueError("eps for PoissonNllLoss must be a positive number.")
        return PoissonNllLoss(self.log_input, self.full, self.eps)


@module_fields
class PoissonNllLoss(_Loss):
    """``exp(p) - t * p`` (``log_input``) or ``p - t * log(p + eps)``, plus with ``full``
    Stirling's ``t log t - t + log(2 pi t) / 2`` where ``t > 1``. ``forward(predictions,
    targets, reduction)``."""

    log_input: bool = True
    full: bool = False
    eps: float = 1e-8

    def forward_no_reduction(self, predictions: Tensor, targets: Tensor) -> Tensor:
        """ValueError for different shapes, a negative target, or (without ``log_input``) a
        negative prediction."""
        _same_shape("PoissonNllLoss", predictions, targets)
        if targets.lower_elem(0.0).any().into_scalar():
            raise ValueError("All the values of `targets` must be non-negative.")
        if not self.log_input and predictions.lower_elem(0.0).any().into_scalar():
            raise ValueError("When `log_input` is `false`, all the values of `predictions` must "
                             "be non-negative.")
        if self.log_input:
            loss = predictions.exp() - targets * predictions
        else:
            loss = predictions - targets * (predictions + self.eps).log()
        if self.full:
            stirling = targets * targets.log() - targets + (targets * (2.0 * math.pi)).log() * 0.5
            loss = loss + stirling.mask_where(targets.lower_equal_elem(1.0), targets.zeros_like())
        return loss
