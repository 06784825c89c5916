"""Burn's ``SiLU`` layer."""
from __future__ import annotations

from ...functional import activation as act
from .base import _Stateless


class SiLU(_Stateless):
    """``x * sigmoid(x)``."""
    _fn = staticmethod(act.silu)
