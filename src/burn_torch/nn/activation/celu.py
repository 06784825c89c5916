"""Burn's ``Celu`` layer and its config."""
from __future__ import annotations

from ...functional import activation as act
from ...module import Config
from .base import _Configured, _layer


class Celu(_Configured):
    """``alpha * (exp(x / alpha) - 1)`` where ``x <= 0``, ``x`` above."""
    _fn, _names = staticmethod(act.celu), ("alpha",)


class CeluConfig(Config):
    alpha: float = 1.0

    def init(self) -> Celu:
        """The layer; ValueError for ``alpha == 0``."""
        if self.alpha == 0:
            raise ValueError("CeluConfig: alpha must not be 0")
        return _layer(Celu, self)
