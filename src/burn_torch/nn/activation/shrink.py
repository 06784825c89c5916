"""Burn's ``Shrink`` layer and its config."""
from __future__ import annotations

from ...functional import activation as act
from ...module import Config
from .base import _Configured, _layer


class Shrink(_Configured):
    """``x - sign(x) * bias`` where ``|x| > lambda_``, 0 elsewhere."""
    _fn, _names = staticmethod(act.shrink), ("lambda_", "bias")


class ShrinkConfig(Config):
    lambda_: float = 0.5
    bias: float = 0.5

    def init(self) -> Shrink:
        return _layer(Shrink, self)
