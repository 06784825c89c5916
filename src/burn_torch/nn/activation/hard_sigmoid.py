"""Burn's ``HardSigmoid`` layer and its config."""
from __future__ import annotations

from ...functional import activation as act
from .base import _ActivationConfig, _Configured


class HardSigmoidConfig(_ActivationConfig["HardSigmoid"]):
    alpha: float = 0.2
    beta: float = 0.5


class HardSigmoid(_Configured, config=HardSigmoidConfig):
    """``clamp(alpha * x + beta, 0, 1)``."""
    _fn = staticmethod(act.hard_sigmoid)
