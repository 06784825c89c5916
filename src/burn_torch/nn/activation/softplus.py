"""Burn's ``Softplus`` layer and its config."""
from __future__ import annotations

from ...functional import activation as act
from .base import _ActivationConfig, _Configured


class SoftplusConfig(_ActivationConfig["Softplus"]):
    beta: float = 1.0


class Softplus(_Configured, config=SoftplusConfig):
    """``log(1 + exp(beta * x)) / beta``."""
    _fn = staticmethod(act.softplus)
