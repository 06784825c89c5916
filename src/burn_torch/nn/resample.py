"""Burn's resampling layers: ``Interpolate1d``, ``Interpolate2d`` (with the layer-level
``InterpolateMode``), ``Unfold4d``, ``Fold4d``, ``PixelShuffle`` and ``PixelUnshuffle``.

None has parameters; their configs' ``init()`` takes no device, as Burn's. The interpolation
layers resize to ``output_size`` or to ``floor(size * scale_factor)`` (exactly one of the two);
``Interpolate1d`` runs the 2-D op on a height-1 view, as Burn does.
"""
from __future__ import annotations

import enum
from typing import Sequence

from .. import validate
from ..functional.module_ops import (InterpolateMode as OpsInterpolateMode, InterpolateOptions,
                                     UnfoldOptions, fold4d, interpolate, pixel_shuffle,
                                     pixel_unshuffle, unfold4d)
from ..module import Config, Module
from ..tensor import Tensor


class InterpolateMode(enum.Enum):
    """Burn's ``nn::interpolate::InterpolateMode``. ``LINEAR`` and ``CUBIC`` run the bilinear
    and bicubic kernels; ``LANCZOS`` (Burn's Lanczos3) has no torch kernel: a layer using it
    raises ValueError when it runs."""

    NEAREST = "nearest"
    LINEAR = "linear"
    CUBIC = "cubic"
    LANCZOS = "lanczos"


_OPS_MODE = {InterpolateMode.NEAREST: OpsInterpolateMode.NEAREST,
             InterpolateMode.LINEAR: OpsInterpolateMode.BILINEAR,
             InterpolateMode.CUBIC: OpsInterpolateMode.BICUBIC}


def _options(layer: str, mode: InterpolateMode, align_corners: bool) -> InterpolateOptions:
    if not isinstance(mode, InterpolateMode):
        raise TypeError(f"{layer}: mode must be an nn.InterpolateMode, got {mode!r}")
    if mode not in _OPS_MODE:
        raise ValueError(f"{layer}: InterpolateMode.LANCZOS (Burn's Lanczos3) is not supported: "
                         f"torch has no Lanczos kernel")
    return InterpolateOptions(mode=_OPS_MODE[mode], align_corners=align_corners)


def _output_size(layer: str, sizes: list[int], output_size, scale_factor) -> list[int]:
    """``output_size``, or each size times its scale factor, truncated (as Burn); ValueError
    unless exactly one is given."""
    if (output_size is None) == (scale_factor is None):
        raise ValueError(f"{layer}: either output_size or scale_factor must be provided "
                         f"(exactly one)")
    if output_size is not None:
        return list(output_size)
    return [int(n * float(f)) for n, f in zip(sizes, scale_factor)]


class Interpolate1dConfig(Config):
    """Configuration of :class:`Interpolate1d` (Burn's fields and defaults)."""

    output_size: int | None = None
    scale_factor: float | None = None
    mode: InterpolateMode = InterpolateMode.NEAREST
    align_corners: bool = True

    def init(self) -> "Interpolate1d":
        return Interpolate1d(self.output_size, self.scale_factor, self.mode, self.align_corners)


class Interpolate1d(Module):
    """Resizes ``[batch, channels, length]`` to ``[batch, channels, length_out]`` (fields
    ``output_size``, ``scale_factor``, ``mode``, ``align_corners``)."""

    def __init__(self, output_size: int | None, scale_factor: float | None,
                 mode: InterpolateMode, align_corners: bool) -> None:
        super().__init__()
        self.output_size = output_size
        self.scale_factor = scale_factor
        self.mode = mode
        self.align_corners = align_corners

    def forward(self, input: Tensor) -> Tensor:
        """The resized input (ValueError for a bad rank, a missing size or LANCZOS)."""
        _rank("Interpolate1d.forward", input, 3, " [batch, channels, length]")
        options = _options("Interpolate1d", self.mode, self.align_corners)
        size, = _output_size("Interpolate1d", input.dims()[2:],
                             None if self.output_size is None else [self.output_size],
                             None if self.scale_factor is None else [self.scale_factor])
        return interpolate(input.unsqueeze_dim(2), [1, size], options).squeeze_dim(2)


class Interpolate2dConfig(Config):
    """Configuration of :class:`Interpolate2d` (Burn's fields and defaults)."""

    output_size: Sequence[int] | None = None
    scale_factor: Sequence[float] | None = None
    mode: InterpolateMode = InterpolateMode.NEAREST
    align_corners: bool = True

    def init(self) -> "Interpolate2d":
        return Interpolate2d(None if self.output_size is None else list(self.output_size),
                             None if self.scale_factor is None else list(self.scale_factor),
                             self.mode, self.align_corners)


class Interpolate2d(Module):
    """Resizes ``[batch, channels, h, w]`` to ``[batch, channels, h_out, w_out]`` (fields
    ``output_size``, ``scale_factor``, ``mode``, ``align_corners``)."""

    def __init__(self, output_size: list[int] | None, scale_factor: list[float] | None,
                 mode: InterpolateMode, align_corners: bool) -> None:
        super().__init__()
        self.output_size = output_size
        self.scale_factor = scale_factor
        self.mode = mode
        self.align_corners = align_corners

    def forward(self, input: Tensor) -> Tensor:
        """The resized input (ValueError for a bad rank, a missing size or LANCZOS)."""
        _rank("Interpolate2d.forward", input, 4, " [batch, channels, height, width]")
        options = _options("Interpolate2d", self.mode, self.align_corners)
        size = _output_size("Interpolate2d", input.dims()[2:], self.output_size,
                            self.scale_factor)
        return interpolate(input, size, options)


def _rank(op: str, input, rank: int, layout: str) -> None:
    if not isinstance(input, Tensor):
        raise TypeError(f"{op}: input must be a Tensor, got {type(input).__name__}")
    validate.rank(op, "input", input, rank, layout)


class Unfold4dConfig(Config):
    """Configuration of :class:`Unfold4d` (Burn's fields and defaults)."""

    kernel_size: Sequence[int]
    stride: Sequence[int] = (1, 1)
    dilation: Sequence[int] = (1, 1)
    padding: Sequence[int] = (0, 0)

    def init(self) -> "Unfold4d":
        validate.config_sizes(self, "kernel_size", "stride", "dilation")
        return Unfold4d(list(self.kernel_size), list(self.stride), list(self.dilation),
                        list(self.padding))


class Unfold4d(Module):
    """Sliding blocks of ``[batch, channels, h, w]`` as columns ``[batch, channels * k_h * k_w,
    blocks]`` (fields ``kernel_size``, ``stride``, ``dilation``, ``padding``)."""

    def __init__(self, kernel_size: list[int], stride: list[int], dilation: list[int],
                 padding: list[int]) -> None:
        super().__init__()
        self.kernel_size = kernel_size
        self.stride = stride
        self.dilation = dilation
        self.padding = padding

    def forward(self, input: Tensor) -> Tensor:
        return unfold4d(input, self.kernel_size, UnfoldOptions(
            stride=self.stride, padding=self.padding, dilation=self.dilation))


class Fold4dConfig(Config):
    """Configuration of :class:`Fold4d` (Burn's fields and defaults)."""

    output_size: Sequence[int]
    kernel_size: Sequence[int]
    stride: Sequence[int] = (1, 1)
    dilation: Sequence[int] = (1, 1)
    padding: Sequence[int] = (0, 0)

    def init(self) -> "Fold4d":
        validate.config_sizes(self, "output_size", "kernel_size", "stride", "dilation")
        return Fold4d(list(self.output_size), list(self.kernel_size), list(self.stride),
                      list(self.dilation), list(self.padding))


class Fold4d(Module):
    """Columns ``[batch, channels * k_h * k_w, blocks]`` summed back into ``[batch, channels,
    *output_size]`` (the adjoint of :class:`Unfold4d`; fields ``output_size``, ``kernel_size``,
    ``stride``, ``dilation``, ``padding``)."""

    def __init__(self, output_size: list[int], kernel_size: list[int], stride: list[int],
                 dilation: list[int], padding: list[int]) -> None:
        super().__init__()
        self.output_size = output_size
        self.kernel_size = kernel_size
        self.stride = stride
        self.dilation = dilation
        self.padding = padding

    def forward(self, input: Tensor) -> Tensor:
        return fold4d(input, self.output_size, self.kernel_size, UnfoldOptions(
            stride=self.stride, padding=self.padding, dilation=self.dilation))


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
