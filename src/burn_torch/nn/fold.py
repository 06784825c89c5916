"""Burn's ``Fold4d``: the adjoint of ``Unfold4d``."""
from __future__ import annotations

from typing import Sequence

from .. import validate
from ..functional.module_ops.unfold import fold4d, UnfoldOptions
from ..module import Config, Module, module_fields
from ..tensor import Tensor


class Fold4dConfig(Config):
    """Configuration of [`Fold4d`][burn_torch.nn.fold.Fold4d] (Burn's fields and defaults)."""

    output_size: Sequence[int]
    kernel_size: Sequence[int]
    stride: Sequence[int] = (1, 1)
    dilation: Sequence[int] = (1, 1)
    padding: Sequence[int] = (0, 0)

    def init(self) -> "Fold4d":
        validate.config_sizes(self, "output_size", "kernel_size", "stride", "dilation")
        return Fold4d(list(self.output_size), list(self.kernel_size), list(self.stride),
                      list(self.dilation), list(self.padding))


@module_fields
class Fold4d(Module):
    """Columns ``[batch, channels * k_h * k_w, blocks]`` summed back into ``[batch, channels,
    *output_size]`` (the adjoint of ``Unfold4d``; fields ``output_size``, ``kernel_size``,
    ``stride``, ``dilation``, ``padding``)."""

    output_size: list[int]
    kernel_size: list[int]
    stride: list[int]
    dilation: list[int]
    padding: list[int]

    def forward(self, input: Tensor) -> Tensor:
        return fold4d(input, self.output_size, self.kernel_size, UnfoldOptions(
            stride=self.stride, padding=self.padding, dilation=self.dilation))
