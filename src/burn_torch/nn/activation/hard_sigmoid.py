"""Burn's ``HardSigmoid`` layer and its config."""
from __future__ import annotations

from ...functional import activation as act
from ...module import Config
from .base import _Configured, _layer


class HardSigmoid(_Configured):
    """``clamp(alpha * x + beta, 0, 1)``."""
    _fn, _names = staticmethod(act.hard_sigmoid), ("alpha", "beta")


class HardSigmoidConfig(Config):
    alpha: float = 0.2
    beta: float = 0.5

    def init(self) -> HardSigmoid:
        return _layer(HardSigmoid, self)
