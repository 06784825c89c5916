"""Burn's ``SoftShrink`` layer and its config."""
from __future__ import annotations

from ...functional import activation as act
from ...module import Config
from .base import _Configured, _layer


class SoftShrink(_Configured):
    """``x - sign(x) * lambda_`` where ``|x| > lambda_``, 0 elsewhere."""
    _fn, _names = staticmethod(act.soft_shrink), ("lambda_",)


class SoftShrinkConfig(Config):
    lambda_: float = 0.5

    def init(self) -> SoftShrink:
        return _layer(SoftShrink, self)
