"""Burn's ``ConvTranspose2d`` and its config."""
from __future__ import annotations

from typing import Sequence

from ...device import Device
from ...functional.module_ops.conv import conv_transpose2d
from ..initializer import Initializer
from .base import _ConvTranspose, _ConvTransposeConfig, _DEFAULT_INIT


class ConvTranspose2dConfig(_ConvTransposeConfig):
    """Configuration of [`ConvTranspose2d`][burn_torch.nn.conv.ConvTranspose2d] (Burn's fields and
    defaults; ``padding`` and ``padding_out`` are per-dim ints)."""

    channels: Sequence[int]
    kernel_size: Sequence[int]
    stride: Sequence[int] = (1, 1)
    dilation: Sequence[int] = (1, 1)
    groups: int = 1
    padding: Sequence[int] = (0, 0)
    padding_out: Sequence[int] = (0, 0)
    bias: bool = True
    initializer: Initializer = _DEFAULT_INIT

    def init(self, device: Device) -> "ConvTranspose2d":
        return super().init(device)

    _layer = property(lambda self: ConvTranspose2d)


class ConvTranspose2d(_ConvTranspose):
    """2-D transposed convolution: ``[batch, channels_in, h, w] -> [batch, channels_out, h_out,
    w_out]``.

    Fields as Burn's: ``weight`` ``[channels_in, channels_out / groups, k_h, k_w]``, ``bias``
    ``[channels_out]`` or None, and the constants ``stride``, ``kernel_size``, ``dilation``,
    ``groups``, ``padding``, ``padding_out``, ``channels``.
    """

    _op = staticmethod(conv_transpose2d)
