"""Burn's ``AdaptiveAvgPool3d`` and its config."""
from __future__ import annotations

from typing import Sequence

from ... import validate
from ...functional.module_ops.pool import adaptive_avg_pool3d
from ...module import Config
from .base import _AdaptiveAvgPool


class AdaptiveAvgPool3dConfig(Config):
    """Configuration of [`AdaptiveAvgPool3d`][burn_torch.nn.pool.AdaptiveAvgPool3d]: the
    ``output_size`` ``[d, h, w]``."""

    output_size: Sequence[int]

    def init(self) -> "AdaptiveAvgPool3d":
        validate.config_sizes(self, "output_size")
        return AdaptiveAvgPool3d(list(self.output_size))


class AdaptiveAvgPool3d(_AdaptiveAvgPool):
    """Averages ``[batch, channels, d, h, w]`` over adaptive windows to ``[batch, channels,
    *output_size]``."""

    _pool = staticmethod(adaptive_avg_pool3d)
