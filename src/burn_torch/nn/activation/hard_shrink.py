"""Burn's ``HardShrink`` layer and its config."""
from __future__ import annotations

from ...functional import activation as act
from ...module import Config
from .base import _Configured, _layer


class HardShrink(_Configured):
    """``x`` where ``|x| > lambda_``, 0 elsewhere."""
    _fn, _names = staticmethod(act.hard_shrink), ("lambda_",)


class HardShrinkConfig(Config):
    lambda_: float = 0.5

    def init(self) -> HardShrink:
        return _layer(HardShrink, self)
