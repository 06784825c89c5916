"""Burn's ``Elu`` layer and its config."""
from __future__ import annotations

from ...functional import activation as act
from ...module import Config
from .base import _Configured, _layer


class Elu(_Configured):
    """``alpha * (exp(x) - 1)`` where ``x <= 0``, ``x`` above."""
    _fn, _names = staticmethod(act.elu), ("alpha",)


class EluConfig(Config):
    alpha: float = 1.0

    def init(self) -> Elu:
        return _layer(Elu, self)
