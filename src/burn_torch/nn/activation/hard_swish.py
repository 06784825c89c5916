"""Burn's ``HardSwish`` layer."""
from __future__ import annotations

from ...functional import activation as act
from .base import _Stateless


class HardSwish(_Stateless):
    """``x * hard_sigmoid(x, 1/6, 0.5)``."""
    _fn = staticmethod(act.hard_swish)
