"""Burn's ``Gelu`` layer (exact, or the tanh approximation)."""
from __future__ import annotations

from ...functional.activation import gelu, gelu_tanh
from ...module import Module, module_fields
from ...tensor import Tensor


@module_fields
class Gelu(Module):
    """GELU element-wise: exact (erf form), or the tanh approximation when ``approximate``
    (Burn's ``Gelu::new_approximate()``)."""

    approximate: bool = False

    @classmethod
    def new_approximate(cls) -> "Gelu":
        return cls(True)

    def forward(self, input: Tensor) -> Tensor:
        return gelu_tanh(input) if self.approximate else gelu(input)

    def __repr__(self) -> str:
        return "Gelu"
