"""Burn's ``Elu`` layer and its config."""
from __future__ import annotations

from ...functional import activation as act
from .base import _ActivationConfig, _Configured


class EluConfig(_ActivationConfig["Elu"]):
    alpha: float = 1.0


class Elu(_Configured, config=EluConfig):
    """``alpha * (exp(x) - 1)`` where ``x <= 0``, ``x`` above."""
    _fn = staticmethod(act.elu)
