"""Burn's ``LogSigmoid`` layer."""
from __future__ import annotations

from ...functional import activation as act
from .base import _Stateless


class LogSigmoid(_Stateless):
    """``log(sigmoid(x))``."""
    _fn = staticmethod(act.log_sigmoid)
