"""Burn's ``Tanh`` layer."""
from __future__ import annotations

from ...functional.activation import tanh
from ...module import Module
from ...tensor import Tensor


class Tanh(Module):
    """``tanh(x)`` element-wise."""

    def forward(self, input: Tensor) -> Tensor:
        return tanh(input)

    def __repr__(self) -> str:
        return "Tanh"
