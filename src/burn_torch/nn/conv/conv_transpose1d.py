"""Burn's ``ConvTranspose1d`` and its config."""
from __future__ import annotations

from typing import Sequence

from ...device import Device
from ...functional.module_ops.conv import conv_transpose1d
from ..initializer import Initializer
from .base import _ConvTranspose, _ConvTransposeConfig, _DEFAULT_INIT


class ConvTranspose1dConfig(_ConvTransposeConfig):
    """Configuration of [`ConvTranspose1d`][burn_torch.nn.conv.ConvTranspose1d] (Burn's fields and
    defaults; ints per field)."""

    channels: Sequence[int]
    kernel_size: int
    stride: int = 1
    dilation: int = 1
    groups: int = 1
    padding: int = 0
    padding_out: int = 0
    bias: bool = True
    initializer: Initializer = _DEFAULT_INIT

    def init(self, device: Device) -> "ConvTranspose1d":
        return super().init(device)

    _layer = property(lambda self: ConvTranspose1d)


class ConvTranspose1d(_ConvTranspose):
    """1-D transposed convolution: ``[batch, channels_in, length] -> [batch, channels_out,
    length_out]``; ``weight`` ``[channels_in, channels_out / groups, kernel_size]``. A
    ``padding_out`` not smaller than the stride is computed, as Burn (torch rejects it)."""

    _op = staticmethod(conv_transpose1d)
