"""Burn's interpolation layers (``burn::nn::interpolate``): ``Interpolate1d`` and
``Interpolate2d`` with the layer-level ``InterpolateMode``. They have no parameters; their configs'
``init()`` takes no device, as Burn's. They resize to ``output_size`` or to ``floor(size *
scale_factor)`` (exactly one of the two); ``Interpolate1d`` runs the 2-D op on a height-1 view, as
Burn does.
"""
from .base import InterpolateMode
from .interpolate1d import Interpolate1d, Interpolate1dConfig
from .interpolate2d import Interpolate2d, Interpolate2dConfig

__all__ = [
    "InterpolateMode", "Interpolate1d", "Interpolate1dConfig", "Interpolate2d",
    "Interpolate2dConfig",
]
