"""Burn's ``MaxPool1d`` and its config."""
from __future__ import annotations

from ... import validate
from ...functional.module_ops.pool import max_pool1d
from ...module import Module, module_fields
from ...tensor import Tensor
from ..padding import PaddingConfig1d
from .base import _padded_1d, _Pool1dConfig


class MaxPool1dConfig(_Pool1dConfig):
    """Configuration of [`MaxPool1d`][burn_torch.nn.pool.MaxPool1d] (Burn's fields; ``stride=None``
    means ``kernel_size``)."""

    kernel_size: int
    stride: int | None = None
    padding: PaddingConfig1d = PaddingConfig1d.valid()
    dilation: int = 1
    ceil_mode: bool = False

    def init(self) -> "MaxPool1d":
        validate.config_sizes(self, "kernel_size", "stride", "dilation")
        # stride is never None here: __post_init__ replaced None with kernel_size
        return MaxPool1d(self.stride, self.kernel_size, self.padding, self.dilation,  # type: ignore[arg-type]
                         self.ceil_mode)


@module_fields
class MaxPool1d(Module):
    """1-D max pooling of ``[batch, channels, length]`` (fields ``stride``, ``kernel_size``,
    ``padding``, ``dilation``, ``ceil_mode``)."""

    stride: int
    kernel_size: int
    padding: PaddingConfig1d
    dilation: int
    ceil_mode: bool

    def forward(self, input: Tensor) -> Tensor:
        """The pooled input; the gradient goes to each window's maximum."""
        x, pad = _padded_1d(input, self.padding, self.kernel_size, self.stride, float("-inf"))
        return max_pool1d(x, self.kernel_size, self.stride, pad, self.dilation, self.ceil_mode)
