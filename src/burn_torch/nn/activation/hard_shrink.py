"""Burn's ``HardShrink`` layer and its config."""
from __future__ import annotations

from ...functional import activation as act
from .base import _ActivationConfig, _Configured


class HardShrinkConfig(_ActivationConfig["HardShrink"]):
    lambda_: float = 0.5


class HardShrink(_Configured, config=HardShrinkConfig):
    """``x`` where ``|x| > lambda_``, 0 elsewhere."""
    _fn = staticmethod(act.hard_shrink)
