"""Burn's ``Mish`` layer."""
from __future__ import annotations

from ...functional import activation as act
from .base import _Stateless


class Mish(_Stateless):
    """``x * tanh(softplus(x, 1))``."""
    _fn = staticmethod(act.mish)
