"""Burn's ``Threshold`` layer and its config."""
from __future__ import annotations

from ...functional import activation as act
from .base import _ActivationConfig, _Configured


class ThresholdConfig(_ActivationConfig["Threshold"]):
    """Both fields are required, as Burn's: ``ThresholdConfig(threshold, value)``."""

    threshold: float
    value: float


class Threshold(_Configured, config=ThresholdConfig):
    """``x`` where ``x > threshold``, ``value`` elsewhere."""
    _fn = staticmethod(act.threshold)
