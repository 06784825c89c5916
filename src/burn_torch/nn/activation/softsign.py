"""Burn's ``Softsign`` layer."""
from __future__ import annotations

from ...functional import activation as act
from .base import _Stateless


class Softsign(_Stateless):
    """``x / (1 + |x|)``."""
    _fn = staticmethod(act.softsign)
