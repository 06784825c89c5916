"""Burn's ``Relu`` layer."""
from __future__ import annotations

from ...functional.activation import relu
from ...module import Module
from ...tensor import Tensor


class Relu(Module):
    """``max(x, 0)`` element-wise."""

    def forward(self, input: Tensor) -> Tensor:
        return relu(input)

    def __repr__(self) -> str:
        return "Relu"
