"""Burn's ``Hardtanh`` layer and its config."""
from __future__ import annotations

from ...functional import activation as act
from .base import _ActivationConfig, _Configured


class HardtanhConfig(_ActivationConfig["Hardtanh"]):
    min_val: float = -1.0
    max_val: float = 1.0


class Hardtanh(_Configured, config=HardtanhConfig):
    """``clamp(x, min_val, max_val)``."""
    _fn = staticmethod(act.hardtanh)
