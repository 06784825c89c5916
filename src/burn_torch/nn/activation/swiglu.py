"""Burn's ``SwiGlu``: the gated feed-forward unit ``silu(x W_inner + b) * (x W_outer + b)``."""
from __future__ import annotations

import math

from ... import validate
from ...device import Device
from ...functional import activation as act
from ...module import Config, Module, module_fields
from ...tensor import Tensor
from ..initializer import Initializer
from ..linear import Linear, LinearConfig
from ..checks import expect_input


# -- SwiGlu: silu(x W_inner + b) * (x W_outer + b) ------------------------------------------------
class SwiGluConfig(Config):
    """Configuration of [`SwiGlu`][burn_torch.nn.activation.SwiGlu] (Burn's defaults: no bias,
    Linear's initializer)."""

    d_input: int
    d_output: int
    bias: bool = False
    initializer: Initializer = Initializer.kaiming_uniform(1.0 / math.sqrt(3.0), False)

    def init(self, device: Device) -> "SwiGlu":
        """Two ``Linear(d_input, d_output)`` layers on ``device``."""
        validate.config_sizes(self, "d_input", "d_output")
        linear = LinearConfig(self.d_input, self.d_output, self.bias, self.initializer)
        return SwiGlu(linear.init(device), linear.init(device))


@module_fields
class SwiGlu(Module):
    """``silu(linear_inner(x)) * linear_outer(x)``: ``[..., d_input] -> [..., d_output]``."""

    linear_inner: Linear
    linear_outer: Linear

    def forward(self, input: Tensor) -> Tensor:
        """``silu(input W_inner + b) * (input W_outer + b)``; ValueError for another last dim."""
        d_input = self.linear_inner.weight.val()._data.shape[0]
        expect_input("SwiGlu", input, f"[..., {d_input}] (d_input {d_input})", None, {-1: d_input})
        return act.silu(self.linear_inner.forward(input)) * self.linear_outer.forward(input)

    def __repr__(self) -> str:
        d_input, d_output = self.linear_inner.weight.val().dims()
        return (f"SwiGlu {{d_input: {d_input}, d_output: {d_output}, "
                f"bias: {self.linear_inner.bias is not None}, params: {self.num_params()}}}")
