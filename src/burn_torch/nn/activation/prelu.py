"""Burn's ``PRelu`` layer (learned negative slopes) and its config."""
from __future__ import annotations

from ... import validate
from ...device import Device
from ...functional.activation import prelu
from ...module import Config, Module, Param
from ...tensor import Tensor
from ..initializer import Initializer


class PReluConfig(Config):
    """Configuration of :class:`PRelu`: ``num_parameters`` slopes (1, or one per channel), each
    initialised to ``alpha`` (Burn's defaults 1 and 0.25)."""

    num_parameters: int = 1
    alpha: float = 0.25

    def init(self, device: Device) -> "PRelu":
        validate.config_sizes(self, "num_parameters")
        return PRelu(Initializer.constant(self.alpha).init([self.num_parameters], device),
                     self.alpha)


class PRelu(Module):
    """``x`` from 0 up, ``alpha * x`` below 0 with a learned ``alpha`` (a Param of shape
    ``[num_parameters]``; ``alpha_value`` is the initial value, as Burn)."""

    def __init__(self, alpha: Param, alpha_value: float) -> None:
        super().__init__()
        self.alpha = alpha
        self.alpha_value = alpha_value

    def forward(self, input: Tensor) -> Tensor:
        return prelu(input, self.alpha.val())
