"""Burn's ``module::interpolate`` and its
[`InterpolateOptions`][burn_torch.functional.module_ops.InterpolateOptions]."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Sequence

from ...autodiff.recorder import apply1
from ...methods.sampling import InterpolateMode
from ...ops import nn as nn_ops
from ...tensor import Tensor
from .checks import _float, _sizes, _SPATIAL


@dataclass(frozen=True, kw_only=True)
class InterpolateOptions:
    """Burn's ``InterpolateOptions``: ``mode`` and ``align_corners`` (default True, as Burn; it
    affects BILINEAR and BICUBIC, NEAREST always uses ``floor(i * in / out)``)."""

    mode: InterpolateMode
    align_corners: bool = True

    def __post_init__(self) -> None:
        if not isinstance(self.mode, InterpolateMode):
            raise TypeError(f"InterpolateOptions: mode must be an InterpolateMode, "
                            f"got {self.mode!r}")
        if not isinstance(self.align_corners, bool):
            raise TypeError(f"InterpolateOptions: align_corners must be a bool, "
                            f"got {self.align_corners!r}")


# ===================================================================== resampling, unfold ====
def interpolate(x: Tensor, output_size: Sequence[int], options: InterpolateOptions) -> Tensor:
    """Resamples x ``[batch, channels, height, width]`` to ``output_size`` ``[h, w]``."""
    _float("interpolate", "x", x, 4, _SPATIAL[2])
    if not isinstance(options, InterpolateOptions):
        raise TypeError(f"interpolate: options must be InterpolateOptions, got {options!r}")
    size = _sizes("interpolate", "output_size", output_size, 2, 1)
    return apply1(nn_ops.INTERPOLATE, x, (size, options.mode.value, options.align_corners))
