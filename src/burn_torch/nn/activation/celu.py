"""Burn's ``Celu`` layer and its config."""
from __future__ import annotations

from ...functional import activation as act
from .base import _ActivationConfig, _Configured


class CeluConfig(_ActivationConfig["Celu"]):
    alpha: float = 1.0

    def init(self) -> Celu:
        """The layer; ValueError for ``alpha == 0``."""
        if self.alpha == 0:
            raise ValueError("CeluConfig: alpha must not be 0")
        return super().init()


class Celu(_Configured, config=CeluConfig):
    """``alpha * (exp(x / alpha) - 1)`` where ``x <= 0``, ``x`` above."""
    _fn = staticmethod(act.celu)
