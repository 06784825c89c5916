"""Burn's ``Relu6`` layer."""
from __future__ import annotations

from ...functional import activation as act
from .base import _Stateless


class Relu6(_Stateless):
    """``clamp(x, 0, 6)``."""
    _fn = staticmethod(act.relu6)
