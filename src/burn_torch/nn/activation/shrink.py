"""Burn's ``Shrink`` layer and its config."""
from __future__ import annotations

from ...functional import activation as act
from .base import _ActivationConfig, _Configured


class ShrinkConfig(_ActivationConfig["Shrink"]):
    lambda_: float = 0.5
    bias: float = 0.5


class Shrink(_Configured, config=ShrinkConfig):
    """``x - sign(x) * bias`` where ``|x| > lambda_``, 0 elsewhere."""
    _fn = staticmethod(act.shrink)
