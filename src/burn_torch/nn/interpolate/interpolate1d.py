"""Burn's ``Interpolate1d`` (the 2-D op on a height-1 view, as Burn) and its config."""
from __future__ import annotations

from ...functional.module_ops.interpolate import interpolate
from ...module import Config, Module, module_fields
from ...tensor import Tensor
from .base import _options, _output_size, _rank, InterpolateMode


class Interpolate1dConfig(Config):
    """Configuration of [`Interpolate1d`][burn_torch.nn.interpolate.Interpolate1d] (Burn's fields
    and defaults)."""

    output_size: int | None = None
    scale_factor: float | None = None
    mode: InterpolateMode = InterpolateMode.NEAREST
    align_corners: bool = True

    def init(self) -> "Interpolate1d":
        return Interpolate1d(self.output_size, self.scale_factor, self.mode, self.align_corners)


@module_fields
class Interpolate1d(Module):
    """Resizes ``[batch, channels, length]`` to ``[batch, channels, length_out]`` (fields
    ``output_size``, ``scale_factor``, ``mode``, ``align_corners``)."""

    output_size: int | None
    scale_factor: float | None
    mode: InterpolateMode
    align_corners: bool

    def forward(self, input: Tensor) -> Tensor:
        """The resized input (ValueError for a bad rank, a missing size or LANCZOS)."""
        _rank("Interpolate1d.forward", input, 3, " [batch, channels, length]")
        options = _options("Interpolate1d", self.mode, self.align_corners)
        size, = _output_size("Interpolate1d", input.dims()[2:],
                             None if self.output_size is None else [self.output_size],
                             None if self.scale_factor is None else [self.scale_factor])
        return interpolate(input.unsqueeze_dim(2), [1, size], options).squeeze_dim(2)
