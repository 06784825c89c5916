"""Burn's ``Unfold4d``: sliding blocks of a 4-D input as columns."""
from __future__ import annotations

from typing import Sequence

from .. import validate
from ..functional.module_ops.unfold import unfold4d, UnfoldOptions
from ..module import Config, Module, module_fields
from ..tensor import Tensor


class Unfold4dConfig(Config):
    """Configuration of [`Unfold4d`][burn_torch.nn.unfold.Unfold4d] (Burn's fields and defaults)."""

    kernel_size: Sequence[int]
    stride: Sequence[int] = (1, 1)
    dilation: Sequence[int] = (1, 1)
    padding: Sequence[int] = (0, 0)

    def init(self) -> "Unfold4d":
        validate.config_sizes(self, "kernel_size", "stride", "dilation")
        return Unfold4d(list(self.kernel_size), list(self.stride), list(self.dilation),
                        list(self.padding))


@module_fields
class Unfold4d(Module):
    """Sliding blocks of ``[batch, channels, h, w]`` as columns ``[batch, channels * k_h * k_w,
    blocks]`` (fields ``kernel_size``, ``stride``, ``dilation``, ``padding``)."""

    kernel_size: list[int]
    stride: list[int]
    dilation: list[int]
    padding: list[int]

    def forward(self, input: Tensor) -> Tensor:
        return unfold4d(input, self.kernel_size, UnfoldOptions(
            stride=self.stride, padding=self.padding, dilation=self.dilation))
