"""Burn's ``Sigmoid`` layer."""
from __future__ import annotations

from ...functional.activation import sigmoid
from ...module import Module
from ...tensor import Tensor


class Sigmoid(Module):
    """``1 / (1 + exp(-x))`` element-wise."""

    def forward(self, input: Tensor) -> Tensor:
        return sigmoid(input)

    def __repr__(self) -> str:
        return "Sigmoid"
