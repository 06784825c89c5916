"""Burn's ``Threshold`` layer and its config."""
from __future__ import annotations

from ...functional import activation as act
from ...module import Config
from .base import _Configured, _layer


class Threshold(_Configured):
    """``x`` where ``x > threshold``, ``value`` elsewhere."""
    _fn, _names = staticmethod(act.threshold), ("threshold", "value")


class ThresholdConfig(Config):
    """Both fields are required, as Burn's: ``ThresholdConfig(threshold, value)``."""

    threshold: float
    value: float

    def init(self) -> Threshold:
        return _layer(Threshold, self)
