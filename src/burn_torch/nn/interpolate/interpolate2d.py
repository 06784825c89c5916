"""Burn's ``Interpolate2d`` and its config."""
from __future__ import annotations

from typing import Sequence

from ...functional.module_ops.interpolate import interpolate
from ...module import Config, Module, module_fields
from ...tensor import Tensor
from .base import _options, _output_size, _rank, InterpolateMode


class Interpolate2dConfig(Config):
    """Configuration of [`Interpolate2d`][burn_torch.nn.interpolate.Interpolate2d] (Burn's fields
    and defaults)."""

    output_size: Sequence[int] | None = None
    scale_factor: Sequence[float] | None = None
    mode: InterpolateMode = InterpolateMode.NEAREST
    align_corners: bool = True

    def init(self) -> "Interpolate2d":
        return Interpolate2d(None if self.output_size is None else list(self.output_size),
                             None if self.scale_factor is None else list(self.scale_factor),
                             self.mode, self.align_corners)


@module_fields
class Interpolate2d(Module):
    """Resizes ``[batch, channels, h, w]`` to ``[batch, channels, h_out, w_out]`` (fields
    ``output_size``, ``scale_factor``, ``mode``, ``align_corners``)."""

    output_size: list[int] | None
    scale_factor: list[float] | None
    mode: InterpolateMode
    align_corners: bool

    def forward(self, input: Tensor) -> Tensor:
        """The resized input (ValueError for a bad rank, a missing size or LANCZOS)."""
        _rank("Interpolate2d.forward", input, 4, " [batch, channels, height, width]")
        options = _options("Interpolate2d", self.mode, self.align_corners)
        size = _output_size("Interpolate2d", input.dims()[2:], self.output_size,
                            self.scale_factor)
        return interpolate(input, size, options)
