"""Burn's ``ThresholdedRelu`` layer and its config."""
from __future__ import annotations

from ...functional import activation as act
from ...module import Config
from .base import _Configured, _layer


class ThresholdedRelu(_Configured):
    """``x`` where ``x > alpha``, 0 elsewhere."""
    _fn, _names = staticmethod(act.thresholded_relu), ("alpha",)


class ThresholdedReluConfig(Config):
    alpha: float = 1.0

    def init(self) -> ThresholdedRelu:
        return _layer(ThresholdedRelu, self)
