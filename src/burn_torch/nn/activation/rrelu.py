"""Burn's ``RRelu`` layer (randomized leaky ReLU) and its config."""
from __future__ import annotations

from ...distribution import Distribution
from ...functional import activation as act
from ...module import Config, Module, module_fields
from ...tensor import Tensor
from .base import _fields


@module_fields
class RRelu(Module):
    """Randomized leaky ReLU. On an autodiff device (Burn's test of training) every negative
    element gets its own slope drawn from ``U(lower, upper)`` (with the device's generator: see
    ``Device.seed``), and the gradient there is that slope; elsewhere it is
    ``leaky_relu(x, (lower + upper) / 2)``."""

    lower: float
    upper: float

    def forward(self, input: Tensor) -> Tensor:
        if not input.device().is_autodiff():
            return act.leaky_relu(input, (self.lower + self.upper) / 2.0)
        negative = input.lower_elem(0.0)
        if self.lower == self.upper:
            return input.mask_where(negative, input * self.lower)
        slope = input.random_like(Distribution.uniform(self.lower, self.upper))
        return input.mask_where(negative, input * slope)

    def __repr__(self) -> str:
        return f"RRelu {{{_fields(self, 'lower', 'upper')}}}"


class RReluConfig(Config):
    lower: float = 0.125
    upper: float = 1.0 / 3.0

    def init(self) -> RRelu:
        """The layer; ValueError unless ``lower <= upper``."""
        if not self.lower <= self.upper:
            raise ValueError(f"RRelu: lower bound ({self.lower}) must be <= upper bound "
                             f"({self.upper})")
        return RRelu(self.lower, self.upper)
