"""Burn's ``ConvTranspose3d`` and its config."""
from __future__ import annotations

from typing import Sequence

from ...device import Device
from ...functional.module_ops.conv import conv_transpose3d
from ..initializer import Initializer
from .base import _ConvTranspose, _ConvTransposeConfig, _DEFAULT_INIT


class ConvTranspose3dConfig(_ConvTransposeConfig):
    """Configuration of [`ConvTranspose3d`][burn_torch.nn.conv.ConvTranspose3d] (Burn's fields and
    defaults, three ints each)."""

    channels: Sequence[int]
    kernel_size: Sequence[int]
    stride: Sequence[int] = (1, 1, 1)
    dilation: Sequence[int] = (1, 1, 1)
    groups: int = 1
    padding: Sequence[int] = (0, 0, 0)
    padding_out: Sequence[int] = (0, 0, 0)
    bias: bool = True
    initializer: Initializer = _DEFAULT_INIT

    def init(self, device: Device) -> "ConvTranspose3d":
        return super().init(device)

    _layer = property(lambda self: ConvTranspose3d)


class ConvTranspose3d(_ConvTranspose):
    """3-D transposed convolution: ``[batch, channels_in, d, h, w] -> [batch, channels_out,
    d_out, h_out, w_out]``; ``weight`` ``[channels_in, channels_out / groups, k_d, k_h, k_w]``."""

    _op = staticmethod(conv_transpose3d)
