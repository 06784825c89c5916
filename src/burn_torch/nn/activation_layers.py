"""Burn's remaining activation layers (``burn::nn::activation``): the configured ones
(``Celu``, ``Elu``, ``HardShrink``, ``HardSigmoid``, ``Hardtanh``, ``RRelu``, ``Shrink``,
``SoftShrink``, ``Softplus``, ``Threshold``, ``ThresholdedRelu``, each built by its
``XxxConfig(...).init()``), the stateless ones (``GLU(dim)``, ``HardSwish``, ``LogSigmoid``,
``Mish``, ``Relu6``, ``Selu``, ``SiLU``, ``Softsign``, ``Tanhshrink``) and ``SwiGlu``, the gated
feed-forward unit with two ``Linear`` layers. Each ``forward`` is the ``burn_torch.activation``
function of the same name; fields and defaults are Burn's (Burn's ``lambda`` is ``lambda_``).
"""
from __future__ import annotations

import math

from .. import validate
from ..device import Device
from ..distribution import Distribution
from ..functional import activation as act
from ..module import Config, Module
from ..tensor import Tensor
from .initializer import Initializer
from .linear import Linear, LinearConfig


def _fields(module: Module, *names: str) -> str:
    return ", ".join(f"{n}: {getattr(module, n)}" for n in names)


class _Stateless(Module):
    """An activation without fields: ``forward`` applies ``_fn``."""

    _fn = None

    def forward(self, input: Tensor) -> Tensor:
        return type(self)._fn(input)

    def __repr__(self) -> str:
        return type(self).__name__


class HardSwish(_Stateless):
    """``x * hard_sigmoid(x, 1/6, 0.5)``."""
    _fn = staticmethod(act.hard_swish)


class LogSigmoid(_Stateless):
    """``log(sigmoid(x))``."""
    _fn = staticmethod(act.log_sigmoid)


class Mish(_Stateless):
    """``x * tanh(softplus(x, 1))``."""
    _fn = staticmethod(act.mish)


class Relu6(_Stateless):
    """``clamp(x, 0, 6)``."""
    _fn = staticmethod(act.relu6)


class Selu(_Stateless):
    """SELU with the paper's constants."""
    _fn = staticmethod(act.selu)


class SiLU(_Stateless):
    """``x * sigmoid(x)``."""
    _fn = staticmethod(act.silu)


class Softsign(_Stateless):
    """``x / (1 + |x|)``."""
    _fn = staticmethod(act.softsign)


class Tanhshrink(_Stateless):
    """``x - tanh(x)``."""
    _fn = staticmethod(act.tanhshrink)


class GLU(Module):
    """Gated linear unit along ``dim`` (Burn's ``GLU::new(dim)``): the first half of the input
    times the sigmoid of the second half; ``dim``'s size is halved."""

    def __init__(self, dim: int) -> None:
        super().__init__()
        self.dim = dim

    def forward(self, input: Tensor) -> Tensor:
        return act.glu(input, self.dim)

    def __repr__(self) -> str:
        return f"GLU {{dim: {self.dim}}}"


# -- configured activations: Config (Burn's fields and defaults) -> layer ------------------------
class _Configured(Module):
    """An activation whose fields are its config's: ``forward`` applies ``_fn(input, *fields)``."""

    _fn = None
    _names: tuple = ()

    def __init__(self, *values: float) -> None:
        super().__init__()
        for name, value in zip(self._names, values):
            setattr(self, name, value)

    def forward(self, input: Tensor) -> Tensor:
        return type(self)._fn(input, *(getattr(self, n) for n in self._names))

    def __repr__(self) -> str:
        return f"{type(self).__name__} {{{_fields(self, *self._names)}}}"


def _layer(cls: type, config: Config) -> Module:
    return cls(*(getattr(config, n) for n in cls._names))


class Celu(_Configured):
    """``alpha * (exp(x / alpha) - 1)`` where ``x <= 0``, ``x`` above."""
    _fn, _names = staticmethod(act.celu), ("alpha",)


class CeluConfig(Config):
    alpha: float = 1.0

    def init(self) -> Celu:
        """The layer; ValueError for ``alpha == 0``."""
        if self.alpha == 0:
            raise ValueError("CeluConfig: alpha must not be 0")
        return _layer(Celu, self)


class Elu(_Configured):
    """``alpha * (exp(x) - 1)`` where ``x <= 0``, ``x`` above."""
    _fn, _names = staticmethod(act.elu), ("alpha",)


class EluConfig(Config):
    alpha: float = 1.0

    def init(self) -> Elu:
        return _layer(Elu, self)


class HardShrink(_Configured):
    """``x`` where ``|x| > lambda_``, 0 elsewhere."""
    _fn, _names = staticmethod(act.hard_shrink), ("lambda_",)


class HardShrinkConfig(Config):
    lambda_: float = 0.5

    def init(self) -> HardShrink:
        return _layer(HardShrink, self)


class SoftShrink(_Configured):
    """``x - sign(x) * lambda_`` where ``|x| > lambda_``, 0 elsewhere."""
    _fn, _names = staticmethod(act.soft_shrink), ("lambda_",)


class SoftShrinkConfig(Config):
    lambda_: float = 0.5

    def init(self) -> SoftShrink:
        return _layer(SoftShrink, self)


class Shrink(_Configured):
    """``x - sign(x) * bias`` where ``|x| > lambda_``, 0 elsewhere."""
    _fn, _names = staticmethod(act.shrink), ("lambda_", "bias")


class ShrinkConfig(Config):
    lambda_: float = 0.5
    bias: float = 0.5

    def init(self) -> Shrink:
        return _layer(Shrink, self)


class HardSigmoid(_Configured):
    """``clamp(alpha * x + beta, 0, 1)``."""
    _fn, _names = staticmethod(act.hard_sigmoid), ("alpha", "beta")


class HardSigmoidConfig(Config):
    alpha: float = 0.2
    beta: float = 0.5

    def init(self) -> HardSigmoid:
        return _layer(HardSigmoid, self)


class Hardtanh(_Configured):
    """``clamp(x, min_val, max_val)``."""
    _fn, _names = staticmethod(act.hardtanh), ("min_val", "max_val")


class HardtanhConfig(Config):
    min_val: float = -1.0
    max_val: float = 1.0

    def init(self) -> Hardtanh:
        return _layer(Hardtanh, self)


class Softplus(_Configured):
    """``log(1 + exp(beta * x)) / beta``."""
    _fn, _names = staticmethod(act.softplus), ("beta",)


class SoftplusConfig(Config):
    beta: float = 1.0

    def init(self) -> Softplus:
        return _layer(Softplus, self)


class Threshold(_Configured):
    """``x`` where ``x > threshold``, ``value`` elsewhere."""
    _fn, _names = staticmethod(act.threshold), ("threshold", "value")


class ThresholdConfig(Config):
    """Both fields are required, as Burn's: ``ThresholdConfig(threshold, value)``."""

    threshold: float
    value: float

    def init(self) -> Threshold:
        return _layer(Threshold, self)


class ThresholdedRelu(_Configured):
    """``x`` where ``x > alpha``, 0 elsewhere."""
    _fn, _names = staticmethod(act.thresholded_relu), ("alpha",)


class ThresholdedReluConfig(Config):
    alpha: float = 1.0

    def init(self) -> ThresholdedRelu:
        return _layer(ThresholdedRelu, self)


class RRelu(Module):
    """Randomized leaky ReLU. On an autodiff device (Burn's test of training) every negative
    element gets its own slope drawn from ``U(lower, upper)`` (with the device's generator: see
    ``Device.seed``), and the gradient there is that slope; elsewhere it is
    ``leaky_relu(x, (lower + upper) / 2)``."""

    def __init__(self, lower: float, upper: float) -> None:
        super().__init__()
        self.lower = lower
        self.upper = upper

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


__all__ = [
    "Celu", "CeluConfig", "Elu", "EluConfig", "GLU", "HardShrink", "HardShrinkConfig",
    "HardSigmoid", "HardSigmoidConfig", "HardSwish", "Hardtanh", "HardtanhConfig", "LogSigmoid",
    "Mish", "RRelu", "RReluConfig", "Relu6", "Selu", "Shrink", "ShrinkConfig", "SiLU",
    "SoftShrink", "SoftShrinkConfig", "Softplus", "SoftplusConfig", "Softsign", "SwiGlu",
    "SwiGluConfig", "Tanhshrink", "Threshold", "ThresholdConfig", "ThresholdedRelu",
    "ThresholdedReluConfig",
]
