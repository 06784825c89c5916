"""Burn's ``ActivationConfig``: the choice of activation other layers (feed-forward blocks,
recurrent gates) are configured with.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Callable

from ...device import Device
from ...module import Config
from ..identity import Identity
from .celu import CeluConfig
from .elu import EluConfig
from .gelu import Gelu
from .hard_shrink import HardShrinkConfig
from .hard_sigmoid import HardSigmoidConfig
from .hard_swish import HardSwish
from .leaky_relu import LeakyReluConfig
from .prelu import PReluConfig
from .relu import Relu
from .selu import Selu
from .shrink import ShrinkConfig
from .sigmoid import Sigmoid
from .soft_shrink import SoftShrinkConfig
from .softplus import SoftplusConfig
from .softsign import Softsign
from .swiglu import SwiGluConfig
from .tanh import Tanh
from .thresholded_relu import ThresholdedReluConfig

if TYPE_CHECKING:
    from typing import TypeAlias

    from .celu import Celu
    from .elu import Elu
    from .hard_shrink import HardShrink
    from .hard_sigmoid import HardSigmoid
    from .leaky_relu import LeakyRelu
    from .prelu import PRelu
    from .shrink import Shrink
    from .soft_shrink import SoftShrink
    from .softplus import Softplus
    from .swiglu import SwiGlu
    from .thresholded_relu import ThresholdedRelu

    # Burn's ``Activation`` enum: the layers ``ActivationConfig.init`` builds (each a Module whose
    # ``forward`` maps a tensor to a tensor).
    Activation: TypeAlias = (Identity | Gelu | Relu | Sigmoid | Tanh | Selu | HardSwish | Softsign
                             | LeakyRelu | PRelu | SwiGlu | HardSigmoid | Softplus | Elu | Celu
                             | ThresholdedRelu | HardShrink | SoftShrink | Shrink)


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

    def init(self, device: Device) -> Activation:
        """The activation layer (``device`` holds PRelu's and SwiGlu's parameters)."""
        # a configured kind's config is its layer's config (Config itself declares no init: the
        # signatures differ), set by the class method that made self
        if self.kind in ("prelu", "swiglu"):
            return self.config.init(device)  # type: ignore[union-attr, return-value]
        if self.config is not None:
            return self.config.init()  # type: ignore[call-arg, return-value]
        return _STATELESS[self.kind]()


_CONFIGS = {"hard_sigmoid": HardSigmoidConfig, "softplus": SoftplusConfig,
            "elu": EluConfig, "celu": CeluConfig,
            "thresholded_relu": ThresholdedReluConfig,
            "hard_shrink": HardShrinkConfig, "soft_shrink": SoftShrinkConfig,
            "shrink": ShrinkConfig}


_STATELESS: dict[str, Callable[[], Activation]] = {"identity": Identity, "gelu": Gelu, "gelu_approximate": Gelu.new_approximate,
              "relu": Relu, "sigmoid": Sigmoid, "tanh": Tanh, "selu": Selu,
              "hard_swish": HardSwish, "softsign": Softsign}
