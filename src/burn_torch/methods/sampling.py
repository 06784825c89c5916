"""Grid sampling (Burn's ``Tensor::grid_sample_2d``) and the options it shares with
``module_ops.interpolate``: ``InterpolateMode``, ``GridSamplePaddingMode``, ``GridSampleOptions``."""
from __future__ import annotations

import enum
from dataclasses import dataclass
from typing import TYPE_CHECKING

from ..autodiff.recorder import apply2
from ..ops import nn as nn_ops
from .base import TensorBase, require_float_pair

if TYPE_CHECKING:
    from ..tensor import Tensor


class InterpolateMode(enum.Enum):
    """Burn's ``InterpolateMode``. ``NEAREST`` takes input index ``floor(i * in / out)``."""

    NEAREST = "nearest"
    BILINEAR = "bilinear"
    BICUBIC = "bicubic"


class GridSamplePaddingMode(enum.Enum):
    """Burn's ``GridSamplePaddingMode``: what out-of-range locations read (``ZEROS``, the
    nearest ``BORDER`` value, or the value at the location ``REFLECTION``-ed into range)."""

    ZEROS = "zeros"
    BORDER = "border"
    REFLECTION = "reflection"


_MODE_CODE = {InterpolateMode.BILINEAR: 0, InterpolateMode.NEAREST: 1, InterpolateMode.BICUBIC: 2}
_PADDING_CODE = {GridSamplePaddingMode.ZEROS: 0, GridSamplePaddingMode.BORDER: 1,
                 GridSamplePaddingMode.REFLECTION: 2}


@dataclass(frozen=True)
class GridSampleOptions:
    """Burn's ``GridSampleOptions``; the defaults are Burn's (bilinear, zeros, corners not
    aligned: -1 and 1 are the outer edges of the corner pixels)."""

    mode: InterpolateMode = InterpolateMode.BILINEAR
    padding_mode: GridSamplePaddingMode = GridSamplePaddingMode.ZEROS
    align_corners: bool = False

    def __post_init__(self) -> None:
        if not isinstance(self.mode, InterpolateMode):
            raise TypeError(f"GridSampleOptions: mode must be an InterpolateMode, got {self.mode!r}")
        if not isinstance(self.padding_mode, GridSamplePaddingMode):
            raise TypeError(f"GridSampleOptions: padding_mode must be a GridSamplePaddingMode, "
                            f"got {self.padding_mode!r}")
        if not isinstance(self.align_corners, bool):
            raise TypeError(f"GridSampleOptions: align_corners must be a bool, got {self.align_corners!r}")


class SamplingMethods(TensorBase):
    __slots__ = ()

    def grid_sample_2d(self, grid: "Tensor", options: "GridSampleOptions | InterpolateMode | None" = None) -> "Tensor":
        """Samples this ``[N, C, H_in, W_in]`` Float tensor at the ``[N, H_out, W_out, 2]``
        locations of ``grid`` (``(x, y)`` in ``[-1, 1]``, ``(-1, -1)`` the top-left), giving
        ``[N, C, H_out, W_out]``. ``options``: GridSampleOptions, or just its mode (None: the
        defaults). Differentiable in both the tensor and the grid (torch's kernels).
        TypeError for non-Float operands, ValueError for mismatched shapes."""
        require_float_pair("grid_sample_2d", self, grid)
        if options is None or isinstance(options, InterpolateMode):
            options = GridSampleOptions() if options is None else GridSampleOptions(options)
        if not isinstance(options, GridSampleOptions):
            raise TypeError(f"grid_sample_2d: options must be GridSampleOptions, got {options!r}")
        xs, gs = self.dims(), grid.dims()
        if len(xs) != 4 or len(gs) != 4 or gs[3] != 2 or gs[0] != xs[0]:
            raise ValueError(f"grid_sample_2d needs a [N, C, H, W] tensor and a [N, H_out, W_out, 2] "
                             f"grid, got shapes {xs} and {gs}")
        return apply2(nn_ops.GRID_SAMPLE_2D, self, grid,
                      (_MODE_CODE[options.mode], _PADDING_CODE[options.padding_mode],
                       options.align_corners))
