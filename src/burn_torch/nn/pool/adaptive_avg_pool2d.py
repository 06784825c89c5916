"""Burn's ``AdaptiveAvgPool2d`` and its config."""
from __future__ import annotations

from typing import Sequence

from ... import validate
from ...functional.module_ops.pool import adaptive_avg_pool2d
from ...module import Config
from .base import _AdaptiveAvgPool


class AdaptiveAvgPool2dConfig(Config):
    """Configuration of [`AdaptiveAvgPool2d`][burn_torch.nn.pool.AdaptiveAvgPool2d]: the
    ``output_size`` ``[h, w]``."""

    output_size: Sequence[int]

    def init(self) -> "AdaptiveAvgPool2d":
        validate.config_sizes(self, "output_size")
        return AdaptiveAvgPool2d(list(self.output_size))


class AdaptiveAvgPool2d(_AdaptiveAvgPool):
    """Averages ``[batch, channels, h, w]`` over adaptive windows to ``[batch, channels,
    *output_size]``."""

    _pool = staticmethod(adaptive_avg_pool2d)
