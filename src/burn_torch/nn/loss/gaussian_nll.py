"""Burn's ``GaussianNLLLoss`` and its config."""
from __future__ import annotations

import math

from ...module import Config, module_fields
from ...tensor import Tensor
from .reduction import _Loss, _same_shape


_HALF_LN_TWO_PI = 0.5 * math.log(2.0 * math.pi)


# -- Gaussian negative log-likelihood --------------------------------------------------------------
class GaussianNLLLossConfig(Config):
    eps: float = 1e-6
    full: bool = False

    def init(self) -> "GaussianNLLLoss":
        return GaussianNLLLoss(self.eps, self.full)


@module_fields
class GaussianNLLLoss(_Loss):
    """``(log(var') + (input - target)^2 / var') / 2`` with ``var' = clamp_min(var, eps)`` (Burn's
    clamp: no gradient for ``var`` where it is below ``eps``), plus ``log(2 pi) / 2`` when
    ``full``. ``forward(input, target, var, reduction)``."""

    eps: float = 1e-6
    full: bool = False

    def forward_no_reduction(self, input: Tensor, target: Tensor, var: Tensor) -> Tensor:
        _same_shape("GaussianNLLLoss", input, target, var)
        var = var.clamp_min(self.eps)
        loss = (var.log() + (input - target).square() / var) * 0.5
        return loss + _HALF_LN_TWO_PI if self.full else loss
