"""Burn's ``Tanhshrink`` layer."""
from __future__ import annotations

from ...functional import activation as act
from .base import _Stateless


class Tanhshrink(_Stateless):
    """``x - tanh(x)``."""
    _fn = staticmethod(act.tanhshrink)
