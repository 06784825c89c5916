"""Burn's activation layers (``Relu``, ``Gelu``, ``Sigmoid``, ``Tanh``, ``LeakyRelu``, ``PRelu``)
and ``ActivationConfig``, the choice of activation other layers (feed-forward blocks, LSTMs)
are configured with. Each layer's ``forward`` is the function of ``burn_torch.activation``."""
from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from .. import validate
from ..functional.activation import gelu, gelu_tanh, leaky_relu, prelu, relu, sigmoid, tanh
from ..device import Device
from ..module import Config, Module, Param
from ..tensor import Tensor
from .initializer import Initializer

if TYPE_CHECKING:  # the configs of activation_layers, which imports this module
    from .activation_layers import (CeluConfig, EluConfig, HardShrinkConfig, HardSigmoidConfig,
                                    ShrinkConfig, SoftplusConfig, SoftShrinkConfig, SwiGluConfig,
                                    ThresholdedReluConfig)


class Relu(Module):
    """``max(x, 0)`` element-wise."""

    def forward(self, input: Tensor) -> Tensor:
        return relu(input)

    def __repr__(self) -> str:
        return "Relu"


class Gelu(Module):
    """GELU element-wise: exact (erf form), or the tanh approximation when ``approximate``
    (Burn's ``Gelu::new_approximate()``)."""

    def __init__(self, approximate: bool = False) -> None:
        super().__init__()
        self.approximate = approximate

    @classmethod
    def new_approximate(cls) -> "Gelu":
        return cls(True)

    def forward(self, input: Tensor) -> Tensor:
        return gelu_tanh(input) if self.approximate else gelu(input)

    def __repr__(self) -> str:
        return "Gelu"


class Sigmoid(Module):
    """``1 / (1 + exp(-x))`` element-wise."""

    def forward(self, input: Tensor) -> Tensor:
        return sigmoid(input)

    def __repr__(self) -> str:
        return "Sigmoid"


class Tanh(Module):
    """``tanh(x)`` element-wise."""

    def forward(self, input: Tensor) -> Tensor:
        return tanh(input)

    def __repr__(self) -> str:
        return "Tanh"


class LeakyReluConfig(Config):
    """Configuration of :class:`LeakyRelu` (Burn's default slope 0.01)."""

    negative_slope: float = 0.01

    def init(self) -> "LeakyRelu":
        return LeakyRelu(self.negative_slope)


class LeakyRelu(Module):
    """``x`` from 0 up, ``negative_slope * x`` below 0."""

    def __init__(self, negative_slope: float) -> None:
        super().__init__()
        self.negative_slope = negative_slope

    def forward(self, input: Tensor) -> Tensor:
        return leaky_relu(input, self.negative_slope)

    def __repr__(self) -> str:
        return f"LeakyRelu {{negative_slope: {self.negative_slope}}}"


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


@dataclass(frozen=True)
class ActivationConfig:
    """Burn's ``ActivationConfig``: which activation layer to build. Use the class methods
    (``ActivationConfig.gelu()``, ``.relu()``, ``.leaky_relu(LeakyReluConfig(0.2))``,
    ``.swiglu(SwiGluConfig(8, 8))``...); a configured variant without a config argument takes
    its config's defaults."""

    kind: str
    config: Config | None = None

    @classmethod
    def identity(cls) -> "ActivationConfig":
        return cls("identity")

    @classmethod
    def gelu(cls) -> "ActivationConfig":
        return cls("gelu")

    @classmethod
    def gelu_approximate(cls) -> "ActivationConfig":
        return cls("gelu_approximate")

    @classmethod
    def relu(cls) -> "ActivationConfig":
        return cls("relu")

    @classmethod
    def sigmoid(cls) -> "ActivationConfig":
        return cls("sigmoid")

    @classmethod
    def tanh(cls) -> "ActivationConfig":
        return cls("tanh")

    @classmethod
    def selu(cls) -> "ActivationConfig":
        return cls("selu")

    @classmethod
    def hard_swish(cls) -> "ActivationConfig":
        return cls("hard_swish")

    @classmethod
    def softsign(cls) -> "ActivationConfig":
        return cls("softsign")

    @classmethod
    def leaky_relu(cls, config: LeakyReluConfig | None = None) -> "ActivationConfig":
        return cls("leaky_relu", LeakyReluConfig() if config is None else config)

    @classmethod
    def prelu(cls, config: PReluConfig | None = None) -> "ActivationConfig":
        return cls("prelu", PReluConfig() if config is None else config)

    @classmethod
    def swiglu(cls, config: "SwiGluConfig") -> "ActivationConfig":
        return cls("swiglu", config)

    @classmethod
    def hard_sigmoid(cls, config: "HardSigmoidConfig | None" = None) -> "ActivationConfig":
        return cls._configured("hard_sigmoid", config)

    @classmethod
    def softplus(cls, config: "SoftplusConfig | None" = None) -> "ActivationConfig":
        return cls._configured("softplus", config)

    @classmethod
    def elu(cls, config: "EluConfig | None" = None) -> "ActivationConfig":
        return cls._configured("elu", config)

    @classmethod
    def celu(cls, config: "CeluConfig | None" = None) -> "ActivationConfig":
        return cls._configured("celu", config)

    @classmethod
    def thresholded_relu(cls, config: "ThresholdedReluConfig | None" = None) -> "ActivationConfig":
        return cls._configured("thresholded_relu", config)

    @classmethod
    def hard_shrink(cls, config: "HardShrinkConfig | None" = None) -> "ActivationConfig":
        return cls._configured("hard_shrink", config)

    @classmethod
    def soft_shrink(cls, config: "SoftShrinkConfig | None" = None) -> "ActivationConfig":
        return cls._configured("soft_shrink", config)

    @classmethod
    def shrink(cls, config: "ShrinkConfig | None" = None) -> "ActivationConfig":
        return cls._configured("shrink", config)

    @classmethod
    def _configured(cls, kind: str, config: Config | None) -> "ActivationConfig":
        return cls(kind, _CONFIGS[kind]() if config is None else config)

    def init(self, device: Device) -> Module:
        """The activation layer (``device`` holds PRelu's and SwiGlu's parameters)."""
        if self.kind in ("prelu", "swiglu"):
            return self.config.init(device)
        if self.config is not None:
            return self.config.init()
        return _STATELESS[self.kind]()


from . import activation_layers as _layers  # noqa: E402  (they build on this module's layers)
from .identity import Identity  # noqa: E402

_CONFIGS = {"hard_sigmoid": _layers.HardSigmoidConfig, "softplus": _layers.SoftplusConfig,
            "elu": _layers.EluConfig, "celu": _layers.CeluConfig,
            "thresholded_relu": _layers.ThresholdedReluConfig,
            "hard_shrink": _layers.HardShrinkConfig, "soft_shrink": _layers.SoftShrinkConfig,
            "shrink": _layers.ShrinkConfig}
_STATELESS = {"identity": Identity, "gelu": Gelu, "gelu_approximate": Gelu.new_approximate,
              "relu": Relu, "sigmoid": Sigmoid, "tanh": Tanh, "selu": _layers.Selu,
              "hard_swish": _layers.HardSwish, "softsign": _layers.Softsign}
