"""Burn's ``PositionWiseFeedForward`` block of the transformer layers, and its config."""
from __future__ import annotations

import math
from typing import TYPE_CHECKING

from ... import validate
from ...device import Device
from ...module import Config, Module, module_fields
from ...tensor import Tensor
from ..activation.activation_wrapper import ActivationConfig
from ..dropout import Dropout, DropoutConfig
from ..initializer import Initializer
from ..linear import Linear, LinearConfig

if TYPE_CHECKING:
    from ..activation.activation_wrapper import Activation


_DEFAULT_INIT = Initializer.kaiming_uniform(1.0 / math.sqrt(3.0), False)


class PositionWiseFeedForwardConfig(Config):
    """Configuration of
    [`PositionWiseFeedForward`][burn_torch.nn.transformer.PositionWiseFeedForward] (Burn's fields
    and defaults)."""

    d_model: int
    d_ff: int
    dropout: float = 0.1
    initializer: Initializer = _DEFAULT_INIT
    activation: ActivationConfig = ActivationConfig.gelu()

    def init(self, device: Device) -> "PositionWiseFeedForward":
        validate.config_sizes(self, "d_model", "d_ff")
        return PositionWiseFeedForward(
            LinearConfig(self.d_model, self.d_ff).with_initializer(self.initializer).init(device),
            LinearConfig(self.d_ff, self.d_model).with_initializer(self.initializer).init(device),
            DropoutConfig(self.dropout).init(), self.activation.init(device))


@module_fields
class PositionWiseFeedForward(Module):
    """``linear_outer(dropout(activation(linear_inner(x))))`` over the last dim."""

    linear_inner: Linear
    linear_outer: Linear
    dropout: Dropout
    activation: Activation

    def forward(self, input: Tensor) -> Tensor:
        x = self.activation.forward(self.linear_inner.forward(input))
        return self.linear_outer.forward(self.dropout.forward(x))
