"""Burn's ``PixelShuffle`` / ``PixelUnshuffle`` rearrangements as functions."""
from __future__ import annotations

from ...autodiff.recorder import apply1
from ...ops import nn as nn_ops
from ...tensor import Tensor
from .checks import _count, _float, _shape, _SPATIAL


def pixel_shuffle(x: Tensor, upscale_factor: int) -> Tensor:
    """``[batch, c * r * r, h, w] -> [batch, c, h * r, w * r]`` (Burn's ``PixelShuffle``;
    ValueError unless the channels divide by ``r * r``)."""
    _float("pixel_shuffle", "x", x, 4, _SPATIAL[2])
    r = _count("pixel_shuffle", "upscale_factor", upscale_factor)
    if _shape(x)[1] % (r * r):
        raise ValueError(f"pixel_shuffle: input channels ({_shape(x)[1]}) must be divisible by "
                         f"upscale_factor^2 ({r * r})")
    return apply1(nn_ops.PIXEL_SHUFFLE, x, (r,))


def pixel_unshuffle(x: Tensor, downscale_factor: int) -> Tensor:
    """``[batch, c, h * r, w * r] -> [batch, c * r * r, h, w]`` (Burn's ``PixelUnshuffle``;
    ValueError unless height and width divide by ``r``)."""
    _float("pixel_unshuffle", "x", x, 4, _SPATIAL[2])
    r = _count("pixel_unshuffle", "downscale_factor", downscale_factor)
    h, w = _shape(x)[2:]
    if h % r or w % r:
        raise ValueError(f"pixel_unshuffle: input height ({h}) and width ({w}) must be divisible "
                         f"by downscale_factor ({r})")
    return apply1(nn_ops.PIXEL_UNSHUFFLE, x, (r,))
