"""Burn's ``module::unfold4d`` (sliding blocks as columns, with
[`UnfoldOptions`][burn_torch.functional.module_ops.UnfoldOptions]) and its adjoint ``fold4d``.
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Sequence

from ...autodiff.recorder import apply1
from ...ops import nn as nn_ops
from ...tensor import Tensor
from .checks import _float, _freeze, _shape, _sizes, _SPATIAL
from .conv import _conv_out


@dataclass(frozen=True, kw_only=True)
class UnfoldOptions:
    """Burn's ``UnfoldOptions``: ``stride`` (non-zero), ``padding``, ``dilation`` (non-zero), each
    two ints."""

    stride: Sequence[int]
    padding: Sequence[int]
    dilation: Sequence[int]

    def __post_init__(self) -> None:
        _freeze(self, "UnfoldOptions", {"stride": 1, "padding": 0, "dilation": 1})
        if len(self.stride) != 2:
            raise ValueError(f"UnfoldOptions: fields must have 2 entries, got {self}")


def unfold4d(x: Tensor, kernel_size: Sequence[int], options: UnfoldOptions) -> Tensor:
    """Sliding blocks of x ``[batch, channels, height, width]`` as columns: returns ``[batch,
    channels * k_h * k_w, blocks]`` (channel-major, then kernel row, then kernel column)."""
    _float("unfold4d", "x", x, 4, _SPATIAL[2])
    if not isinstance(options, UnfoldOptions):
        raise TypeError(f"unfold4d: options must be UnfoldOptions, got {options!r}")
    k = _sizes("unfold4d", "kernel_size", kernel_size, 2, 1)
    return apply1(nn_ops.UNFOLD4D, x, (k, list(options.dilation), list(options.padding),
                                  list(options.stride)))


def fold4d(x: Tensor, output_size: Sequence[int], kernel_size: Sequence[int],
           options: UnfoldOptions) -> Tensor:
    """The adjoint of [`unfold4d`][burn_torch.functional.module_ops.unfold4d] (torch's ``nn.Fold``):
    columns x ``[batch, channels * k_h * k_w, blocks]`` summed into ``[batch, channels,
    *output_size]`` where blocks overlap. ValueError when the column count does not divide by the
    kernel or ``blocks`` differs from the number of sliding blocks of ``output_size``."""
    _float("fold4d", "x", x, 3, " [batch, channels * k_h * k_w, blocks]")
    if not isinstance(options, UnfoldOptions):
        raise TypeError(f"fold4d: options must be UnfoldOptions, got {options!r}")
    size = _sizes("fold4d", "output_size", output_size, 2, 1)
    k = _sizes("fold4d", "kernel_size", kernel_size, 2, 1)
    blocks = math.prod(_conv_out(n, kk, s, p, d) for n, kk, s, p, d in zip(
        size, k, options.stride, options.padding, options.dilation))
    xs = _shape(x)
    if xs[1] % (k[0] * k[1]) or xs[2] != blocks or blocks <= 0:
        raise ValueError(f"fold4d: x {xs} must be [batch, channels * {k[0] * k[1]}, {blocks}] for "
                         f"output_size {size} and kernel_size {k}")
    return apply1(nn_ops.FOLD4D, x, (size, k, list(options.dilation), list(options.padding),
                                     list(options.stride)))
