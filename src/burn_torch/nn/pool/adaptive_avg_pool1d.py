"""Burn's ``AdaptiveAvgPool1d`` and its config."""
from __future__ import annotations

from ... import validate
from ...functional.module_ops.pool import adaptive_avg_pool1d
from ...module import Config
from .base import _AdaptiveAvgPool


class AdaptiveAvgPool1dConfig(Config):
    """Configuration of [`AdaptiveAvgPool1d`][burn_torch.nn.pool.AdaptiveAvgPool1d]: the
    ``output_size`` (an int)."""

    output_size: int

    def init(self) -> "AdaptiveAvgPool1d":
        validate.config_sizes(self, "output_size")
        return AdaptiveAvgPool1d(self.output_size)


class AdaptiveAvgPool1d(_AdaptiveAvgPool):
    """Averages ``[batch, channels, length]`` over adaptive windows to ``[batch, channels,
    output_size]``."""

    _pool = staticmethod(adaptive_avg_pool1d)
