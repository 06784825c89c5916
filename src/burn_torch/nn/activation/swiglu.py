"""Burn's ``SwiGlu``: the gated feed-forward unit ``silu(x W_inner + b) * (x W_outer + b)``."""
from __future__ import annotations

import math

from ... import validate
from ...device import Device
from ...functional import activation as act
from ...module import Config, Module
from ...tensor import Tensor
from ..initializer import Initializer
from ..linear import Linear, LinearConfig


# -- SwiGlu: silu(x W_inner + b) * (x W_outer + b) ------------------------------------------------
class SwiGluConfig(Config):
    """Configuration of :class:`SwiGlu` (Burn's defaults: no bias, Linear's initializer)."""

    d_input: int
    d_output: int
    bias: bool = False
    initializer: Initializer = Initializer.kaiming_uniform(1.0 / math.sqrt(3.0), False)

    def init(self, device: Device) -> "SwiGlu":
        """Two ``Linear(d_input, d_output)`` layers on ``device``."""
        validate.config_sizes(self, "d_input", "d_output")
        linear = LinearConfig(self.d_input, self.d_output, self.bias, self.initializer)
        return SwiGlu(linear.init(device), linear.init(device))


class SwiGlu(Module):
    """``silu(linear_inner(x)) * linear_outer(x)``: ``[..., d_input] -> [..., d_output]``."""

    def __init__(self, linear_inner: Linear, linear_outer: Linear) -> None:
        super().__init__()
        self.linear_inner = linear_inner
        self.linear_outer = linear_outer

    def forward(self, input: Tensor) -> Tensor:
        return act.silu(self.linear_inner.forward(input)) * self.linear_outer.forward(input)

    def __repr__(self) -> str:
        d_input, d_output = self.linear_inner.weight.val().dims()
        return (f"SwiGlu {{d_input: {d_input}, d_output: {d_output}, "
                f"bias: {self.linear_inner.bias is not None}, params: {self.num_params()}}}")
