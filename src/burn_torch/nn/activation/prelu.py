"""Burn's ``PRelu`` layer (learned negative slopes) and its config."""
from __future__ import annotations

from ... import validate
from ...device import Device
from ...functional.activation import prelu
from ...module import Config, Module, Param, module_fields
from ...tensor import Tensor
from ..initializer import Initializer
from ..checks import expect_input


class PReluConfig(Config):
    """Configuration of [`PRelu`][burn_torch.nn.activation.PRelu]: ``num_parameters`` slopes (1, or
    one per channel), each initialised to ``alpha`` (Burn's defaults 1 and 0.25)."""

    num_parameters: int = 1
    alpha: float = 0.25

    def init(self, device: Device) -> "PRelu":
        validate.config_sizes(self, "num_parameters")
        return PRelu(Initializer.constant(self.alpha).init([self.num_parameters], device),
                     self.alpha)


@module_fields
class PRelu(Module):
    """``x`` from 0 up, ``alpha * x`` below 0 with a learned ``alpha`` (a Param of shape
    ``[num_parameters]``; ``alpha_value`` is the initial value, as Burn)."""

    alpha: Param
    alpha_value: float

    def forward(self, input: Tensor) -> Tensor:
        """``input`` where positive, ``alpha * input`` elsewhere (one alpha per channel, dim 1,
        with ``num_parameters`` > 1: ValueError for another channel count)."""
        n = self.alpha.val()._data.shape[0]
        if n > 1:
            expect_input("PRelu", input, f"[batch, {n}, ...] (num_parameters {n})", None, {1: n})
        return prelu(input, self.alpha.val())
