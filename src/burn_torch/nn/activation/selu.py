"""Burn's ``Selu`` layer."""
from __future__ import annotations

from ...functional import activation as act
from .base import _Stateless


class Selu(_Stateless):
    """SELU with the paper's constants."""
    _fn = staticmethod(act.selu)
