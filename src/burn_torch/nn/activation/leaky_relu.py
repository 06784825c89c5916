"""Burn's ``LeakyRelu`` layer and its config."""
from __future__ import annotations

from ...functional.activation import leaky_relu
from ...module import Config, Module, module_fields
from ...tensor import Tensor


class LeakyReluConfig(Config):
    """Configuration of [`LeakyRelu`][burn_torch.nn.activation.LeakyRelu] (Burn's default slope
    0.01)."""

    negative_slope: float = 0.01

    def init(self) -> "LeakyRelu":
        return LeakyRelu(self.negative_slope)


@module_fields
class LeakyRelu(Module):
    """``x`` from 0 up, ``negative_slope * x`` below 0."""

    negative_slope: float

    def forward(self, input: Tensor) -> Tensor:
        return leaky_relu(input, self.negative_slope)

    def __repr__(self) -> str:
        return f"LeakyRelu {{negative_slope: {self.negative_slope}}}"
