"""Burn's ``Linear`` layer: ``y = x @ W + b`` with ``W`` stored ``[d_input, d_output]``."""
from __future__ import annotations

import math

from .. import validate
from ..device import Device
from ..module import Config, Module, Param, module_fields
from ..functional.module_ops.linear import linear
from ..tensor import Tensor
from .checks import expect_input
from .initializer import Initializer


class LinearConfig(Config):
    """Configuration of [`Linear`][burn_torch.nn.linear.Linear] (Burn's defaults: bias on,
    Kaiming-uniform with gain ``1/sqrt(3)``, i.e. ``U(-1/sqrt(d_input), 1/sqrt(d_input))`` for
    weight and bias, the same distribution as ``torch.nn.Linear``)."""

    d_input: int
    d_output: int
    bias: bool = True
    initializer: Initializer = Initializer.kaiming_uniform(1.0 / math.sqrt(3.0), False)

    def init(self, device: Device) -> "Linear":
        """A new Linear layer with trainable parameters on ``device``."""
        validate.config_sizes(self, "d_input", "d_output")
        fans = (self.d_input, self.d_output)
        weight = self.initializer.init_with([self.d_input, self.d_output], *fans, device)
        bias = self.initializer.init_with([self.d_output], *fans, device) if self.bias else None
        return Linear(weight, bias)


@module_fields
class Linear(Module):
    """``forward(x) = x @ weight + bias`` over the last dimension of ``x`` (any rank >= 1).

    Fields as in Burn: ``weight`` (a Param of shape ``[d_input, d_output]``, transposed with
    respect to ``torch.nn.Linear``) and ``bias`` (a Param of shape ``[d_output]``, or None).
    """

    weight: Param
    bias: Param | None = None

    def forward(self, input: Tensor) -> Tensor:
        """``[..., d_input] -> [..., d_output]`` (``burn_torch.module_ops.linear``); ValueError
        for another last dim."""
        d_input = self.weight.val()._data.shape[0]
        expect_input("Linear", input, f"[..., {d_input}] (d_input {d_input})", None, {-1: d_input})
        return linear(input, self.weight.val(), None if self.bias is None else self.bias.val())

    def __repr__(self) -> str:
        d_input, d_output = self.weight.val().dims()
        return (f"Linear {{d_input: {d_input}, d_output: {d_output}, bias: {self.bias is not None}, "
                f"params: {self.num_params()}}}")
