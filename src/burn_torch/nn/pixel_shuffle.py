"""Burn's ``PixelShuffle`` and ``PixelUnshuffle`` layers and their configs."""
from __future__ import annotations

from .. import validate
from ..functional.module_ops.pixel_shuffle import pixel_shuffle, pixel_unshuffle
from ..module import Config, Module
from ..tensor import Tensor


class PixelShuffleConfig(Config):
    """Configuration of :class:`PixelShuffle`: the ``upscale_factor``."""

    upscale_factor: int

    def init(self) -> "PixelShuffle":
        validate.config_sizes(self, "upscale_factor")
        return PixelShuffle(self.upscale_factor)


class PixelShuffle(Module):
    """``[batch, c * r², h, w] -> [batch, c, h * r, w * r]`` (field ``upscale_factor``)."""

    def __init__(self, upscale_factor: int) -> None:
        super().__init__()
        self.upscale_factor = upscale_factor

    def forward(self, input: Tensor) -> Tensor:
        return pixel_shuffle(input, self.upscale_factor)


class PixelUnshuffleConfig(Config):
    """Configuration of :class:`PixelUnshuffle`: the ``downscale_factor``."""

    downscale_factor: int

    def init(self) -> "PixelUnshuffle":
        validate.config_sizes(self, "downscale_factor")
        return PixelUnshuffle(self.downscale_factor)


class PixelUnshuffle(Module):
    """``[batch, c, h * r, w * r] -> [batch, c * r², h, w]`` (field ``downscale_factor``)."""

    def __init__(self, downscale_factor: int) -> None:
        super().__init__()
        self.downscale_factor = downscale_factor

    def forward(self, input: Tensor) -> Tensor:
        return pixel_unshuffle(input, self.downscale_factor)
