"""Burn's ``Hardtanh`` layer and its config."""
from __future__ import annotations

from ...functional import activation as act
from ...module import Config
from .base import _Configured, _layer


class Hardtanh(_Configured):
    """``clamp(x, min_val, max_val)``."""
    _fn, _names = staticmethod(act.hardtanh), ("min_val", "max_val")


class HardtanhConfig(Config):
    min_val: float = -1.0
    max_val: float = 1.0

    def init(self) -> Hardtanh:
        return _layer(Hardtanh, self)
