"""Burn's ``ThresholdedRelu`` layer and its config."""
from __future__ import annotations

from ...functional import activation as act
from .base import _ActivationConfig, _Configured


class ThresholdedReluConfig(_ActivationConfig["ThresholdedRelu"]):
    alpha: float = 1.0


class ThresholdedRelu(_Configured, config=ThresholdedReluConfig):
    """``x`` where ``x > alpha``, 0 elsewhere."""
    _fn = staticmethod(act.thresholded_relu)
