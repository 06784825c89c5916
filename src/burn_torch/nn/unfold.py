"""Burn's ``Unfold4d``: sliding blocks of a 4-D input as columns."""
from __future__ import annotations

from typing import Sequence

from .. import validate
from ..functional.module_ops.unfold import unfold4d, UnfoldOptions
from ..module import Config, Module
from ..tensor import Tensor


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
