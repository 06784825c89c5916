"""Burn's ``AvgPool1d`` and its config."""
from __future__ import annotations

from ... import validate
from ...functional.module_ops.pool import avg_pool1d
from ...module import Module, module_fields
from ...tensor import Tensor
from ..padding import PaddingConfig1d
from .base import _padded_1d, _Pool1dConfig


class AvgPool1dConfig(_Pool1dConfig):
    """Configuration of [`AvgPool1d`][burn_torch.nn.pool.AvgPool1d] (Burn's fields; ``stride=None``
    means ``kernel_size``; padding counts in the average by default, as Burn)."""

    kernel_size: int
    stride: int | None = None
    padding: PaddingConfig1d = PaddingConfig1d.valid()
    count_include_pad: bool = True
    ceil_mode: bool = False

    def init(self) -> "AvgPool1d":
        validate.config_sizes(self, "kernel_size", "stride")
        # stride is never None here: __post_init__ replaced None with kernel_size
        return AvgPool1d(self.stride, self.kernel_size, self.padding, self.count_include_pad,  # type: ignore[arg-type]
                         self.ceil_mode)


@module_fields
class AvgPool1d(Module):
    """1-D average pooling of ``[batch, channels, length]`` (fields ``stride``, ``kernel_size``,
    ``padding``, ``count_include_pad``, ``ceil_mode``)."""

    stride: int
    kernel_size: int
    padding: PaddingConfig1d
    count_include_pad: bool
    ceil_mode: bool

    def forward(self, input: Tensor) -> Tensor:
        """The pooled input."""
        x, pad = _padded_1d(input, self.padding, self.kernel_size, self.stride, 0.0)
        return avg_pool1d(x, self.kernel_size, self.stride, pad, self.count_include_pad,
                          self.ceil_mode)
