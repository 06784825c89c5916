"""Burn's ``AvgPool2d`` and its config."""
from __future__ import annotations

from typing import Sequence

from ... import validate
from ...functional.module_ops.pool import avg_pool2d
from ...module import Module, module_fields
from ...tensor import Tensor
from ..padding import PaddingConfig2d
from .base import _PoolConfig, _split, pad_2d


class AvgPool2dConfig(_PoolConfig):
    """Configuration of [`AvgPool2d`][burn_torch.nn.pool.AvgPool2d] (Burn's fields; ``strides=None``
    means ``kernel_size``; padding counts in the average by default, as Burn)."""

    kernel_size: Sequence[int]
    strides: Sequence[int] | None = None
    padding: PaddingConfig2d = PaddingConfig2d.valid()
    count_include_pad: bool = True
    ceil_mode: bool = False

    def init(self) -> "AvgPool2d":
        validate.config_sizes(self, "kernel_size", "strides")
        # strides is never None here: __post_init__ replaced None with kernel_size
        return AvgPool2d(list(self.strides), list(self.kernel_size), self.padding,  # type: ignore[arg-type]
                         self.count_include_pad, self.ceil_mode)


@module_fields
class AvgPool2d(Module):
    """2-D average pooling of ``[batch, channels, h, w]`` (fields ``stride``, ``kernel_size``,
    ``padding``, ``count_include_pad``, ``ceil_mode``)."""

    stride: list[int]
    kernel_size: list[int]
    padding: PaddingConfig2d
    count_include_pad: bool
    ceil_mode: bool

    def forward(self, input: Tensor) -> Tensor:
        """The pooled input."""
        pairs = self.padding.pairs(input.dims()[2:], self.kernel_size, self.stride)
        starts, symmetric = _split(pairs)
        if not symmetric:
            input, starts = pad_2d(input, pairs, 0.0), [0, 0]
        return avg_pool2d(input, self.kernel_size, self.stride, starts, self.count_include_pad,
                          self.ceil_mode)
