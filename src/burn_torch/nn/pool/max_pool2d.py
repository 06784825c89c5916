"""Burn's ``MaxPool2d`` and its config."""
from __future__ import annotations

from typing import Sequence

from ... import validate
from ...functional.module_ops.pool import max_pool2d
from ...module import Module, module_fields
from ...tensor import Tensor
from ..padding import PaddingConfig2d
from .base import _PoolConfig, _split, pad_2d


class MaxPool2dConfig(_PoolConfig):
    """Configuration of [`MaxPool2d`][burn_torch.nn.pool.MaxPool2d] (Burn's fields; ``strides=None``
    means ``kernel_size``)."""

    kernel_size: Sequence[int]
    strides: Sequence[int] | None = None
    padding: PaddingConfig2d = PaddingConfig2d.valid()
    dilation: Sequence[int] = (1, 1)
    ceil_mode: bool = False

    def init(self) -> "MaxPool2d":
        validate.config_sizes(self, "kernel_size", "strides", "dilation")
        # strides is never None here: __post_init__ replaced None with kernel_size
        return MaxPool2d(list(self.strides), list(self.kernel_size), self.padding,  # type: ignore[arg-type]
                         list(self.dilation), self.ceil_mode)


@module_fields
class MaxPool2d(Module):
    """2-D max pooling of ``[batch, channels, h, w]`` (fields ``stride``, ``kernel_size``,
    ``padding``, ``dilation``, ``ceil_mode``)."""

    stride: list[int]
    kernel_size: list[int]
    padding: PaddingConfig2d
    dilation: list[int]
    ceil_mode: bool

    def forward(self, input: Tensor) -> Tensor:
        """The pooled input; the gradient goes to each window's maximum."""
        pairs = self.padding.pairs(input.dims()[2:], self.kernel_size, self.stride)
        starts, symmetric = _split(pairs)
        if not symmetric:
            input, starts = pad_2d(input, pairs, float("-inf")), [0, 0]
        return max_pool2d(input, self.kernel_size, self.stride, starts, self.dilation,
                          self.ceil_mode)
