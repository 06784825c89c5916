"""What Burn's interpolation layers share: the layer-level ``InterpolateMode`` and the output
size (``output_size``, or ``floor(size * scale_factor)``: exactly one of the two).
"""
from __future__ import annotations

import enum

from ... import validate
from ...functional.module_ops import InterpolateMode as OpsInterpolateMode
from ...functional.module_ops.interpolate import InterpolateOptions
from ...tensor import Tensor


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


def _rank(op: str, input, rank: int, layout: str) -> None:
    if not isinstance(input, Tensor):
        raise TypeError(f"{op}: input must be a Tensor, got {type(input).__name__}")
    validate.rank(op, "input", input, rank, layout)
