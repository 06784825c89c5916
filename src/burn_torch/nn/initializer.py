"""Burn's ``Initializer``: how a layer's parameters are filled at ``Config.init(device)``."""
from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Sequence

from ..device import Device
from ..distribution import Distribution
from ..dtype import DType
from ..module import Param
from ..tensor import Tensor


@dataclass(frozen=True)
class Initializer:
    """One of Burn's initializers; build it with the class methods (``Initializer.zeros()``...).

    Kaiming: ``std = gain / sqrt(fan)`` with ``fan = fan_out if fan_out_only else fan_in``
    (uniform bound ``sqrt(3) * std``). Xavier: ``std = gain * sqrt(2 / (fan_in + fan_out))``
    (uniform bound ``sqrt(3) * std``). Draws use the device's generator (``Device.seed``).
    """

    kind: str
    a: float = 0.0
    b: float = 0.0
    fan_out_only: bool = False

    @classmethod
    def constant(cls, value: float) -> "Initializer":
        return cls("constant", float(value))

    @classmethod
    def ones(cls) -> "Initializer":
        return cls("constant", 1.0)

    @classmethod
    def zeros(cls) -> "Initializer":
        return cls("constant", 0.0)

    @classmethod
    def uniform(cls, min: float, max: float) -> "Initializer":
        return cls("uniform", float(min), float(max))

    @classmethod
    def normal(cls, mean: float, std: float) -> "Initializer":
        return cls("normal", float(mean), float(std))

    @classmethod
    def kaiming_uniform(cls, gain: float, fan_out_only: bool = False) -> "Initializer":
        return cls("kaiming_uniform", float(gain), fan_out_only=bool(fan_out_only))

    @classmethod
    def kaiming_normal(cls, gain: float, fan_out_only: bool = False) -> "Initializer":
        return cls("kaiming_normal", float(gain), fan_out_only=bool(fan_out_only))

    @classmethod
    def xavier_uniform(cls, gain: float) -> "Initializer":
        return cls("xavier_uniform", float(gain))

    @classmethod
    def xavier_normal(cls, gain: float) -> "Initializer":
        return cls("xavier_normal", float(gain))

    def init(self, shape: Sequence[int], device: Device, dtype: DType | None = None) -> Param:
        """A new trainable Param of ``shape``; Kaiming/Xavier need fans: use
        [`init_with`][burn_torch.nn.initializer.Initializer.init_with]."""
        return self.init_with(shape, None, None, device, dtype)

    def init_with(self, shape: Sequence[int], fan_in: int | None, fan_out: int | None,
                  device: Device, dtype: DType | None = None) -> Param:
        """A new trainable Param of ``shape`` filled by this initializer.

        Raises ValueError when a Kaiming or Xavier initializer lacks the fan it needs.
        """
        return Param(self._tensor(list(shape), fan_in, fan_out, device, dtype))

    def _tensor(self, shape, fan_in, fan_out, device, dtype) -> Tensor:
        kind = self.kind
        if kind == "constant":
            return Tensor.full(shape, self.a, device, dtype=dtype)
        if kind == "uniform":
            return _uniform(shape, self.a, self.b, device, dtype)
        if kind == "normal":
            return Tensor.random(shape, Distribution.normal(self.a, self.b), device, dtype)
        if kind.startswith("kaiming"):
            fan = fan_out if self.fan_out_only else fan_in
            if fan is None:
                raise ValueError("Kaiming initialization needs the fan "
                                 f"({'fan_out' if self.fan_out_only else 'fan_in'}); use init_with")
            std = self.a / math.sqrt(fan)
        else:
            if fan_in is None or fan_out is None:
                raise ValueError("Xavier initialization needs fan_in and fan_out; use init_with")
            std = self.a * math.sqrt(2.0 / (fan_in + fan_out))
        if kind.endswith("uniform"):
            bound = math.sqrt(3.0) * std
            return _uniform(shape, -bound, bound, device, dtype)
        return Tensor.random(shape, Distribution.normal(0.0, std), device, dtype)


def _uniform(shape, low: float, high: float, device: Device, dtype) -> Tensor:
    if low == high:
        return Tensor.full(shape, low, device, dtype=dtype)
    return Tensor.random(shape, Distribution.uniform(low, high), device, dtype)
