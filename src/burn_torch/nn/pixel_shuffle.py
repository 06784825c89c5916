"""Burn's ``PixelShuffle`` and ``PixelUnshuffle`` layers and their configs."""
from __future__ import annotations

from .. import validate
from ..functional.module_ops.pixel_shuffle import pixel_shuffle, pixel_unshuffle
from ..module import Config, Module, module_fields
from ..tensor import Tensor


class PixelShuffleConfig(Config):
    """Configuration of [`PixelShuffle`][burn_torch.nn.pixel_shuffle.PixelShuffle]: the
    ``upscale_factor``."""

    upscale_factor: int

    def init(self) -> "PixelShuffle":
        validate.config_sizes(self, "upscale_factor")
        return PixelShuffle(self.upscale_factor)


@module_fields
class PixelShuffle(Module):
    """``[batch, c * r², h, w] -> [batch, c, h * r, w * r]`` (field ``upscale_factor``)."""

    upscale_factor: int

    def forward(self, input: Tensor) -> Tensor:
        return pixel_shuffle(input, self.upscale_factor)


class PixelUnshuffleConfig(Config):
    """Configuration of [`PixelUnshuffle`][burn_torch.nn.pixel_shuffle.PixelUnshuffle]: the
    ``downscale_factor``."""

    downscale_factor: int

    def init(self) -> "PixelUnshuffle":
        validate.config_sizes(self, "downscale_factor")
        return PixelUnshuffle(self.downscale_factor)


@module_fields
class PixelUnshuffle(Module):
    """``[batch, c, h * r, w * r] -> [batch, c * r², h, w]`` (field ``downscale_factor``)."""

    downscale_factor: int

    def forward(self, input: Tensor) -> Tensor:
        return pixel_unshuffle(input, self.downscale_factor)
