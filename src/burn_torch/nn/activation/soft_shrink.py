"""Burn's ``SoftShrink`` layer and its config."""
from __future__ import annotations

from ...functional import activation as act
from .base import _ActivationConfig, _Configured


class SoftShrinkConfig(_ActivationConfig["SoftShrink"]):
    lambda_: float = 0.5


class SoftShrink(_Configured, config=SoftShrinkConfig):
    """``x - sign(x) * lambda_`` where ``|x| > lambda_``, 0 elsewhere."""
    _fn = staticmethod(act.soft_shrink)
