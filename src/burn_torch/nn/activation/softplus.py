"""Burn's ``Softplus`` layer and its config."""
from __future__ import annotations

from ...functional import activation as act
from ...module import Config
from .base import _Configured, _layer


class Softplus(_Configured):
    """``log(1 + exp(beta * x)) / beta``."""
    _fn, _names = staticmethod(act.softplus), ("beta",)


class SoftplusConfig(Config):
    beta: float = 1.0

    def init(self) -> Softplus:
        return _layer(Softplus, self)
