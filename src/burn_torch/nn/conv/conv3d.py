"""Burn's ``Conv3d`` and its config."""
from __future__ import annotations

from typing import TYPE_CHECKING, Sequence

from ...device import Device
from ...functional.module_ops.conv import conv3d, ConvOptions
from ...tensor import Tensor
from ..initializer import Initializer
from ..padding import PaddingConfig3d
from .base import _bias, _ConvConfig, _Convolution, _DEFAULT_INIT, _check_input


class Conv3dConfig(_ConvConfig):
    """Configuration of [`Conv3d`][burn_torch.nn.conv.Conv3d]: ``channels`` is ``[in, out]``,
    ``kernel_size`` ``[k_d, k_h, k_w]`` (Burn's fields and defaults)."""

    channels: Sequence[int]
    kernel_size: Sequence[int]
    stride: Sequence[int] = (1, 1, 1)
    dilation: Sequence[int] = (1, 1, 1)
    groups: int = 1
    padding: PaddingConfig3d = PaddingConfig3d.valid()
    bias: bool = True
    initializer: Initializer = _DEFAULT_INIT

    def init(self, device: Device) -> "Conv3d":
        """A new Conv3d on ``device``; ValueError as ``Conv1dConfig.init``."""
        return super().init(device)

    _layer = property(lambda self: Conv3d)


class Conv3d(_Convolution):
    """3-D convolution: ``[batch, channels_in, d, h, w] -> [batch, channels_out, d_out, h_out,
    w_out]``. Fields as ``Conv2d`` (``weight`` ``[channels_out, channels_in / groups, k_d,
    k_h, k_w]``); padding is symmetric (``same`` with an even kernel raises ValueError, as Burn).
    """

    if TYPE_CHECKING:  # the 3-d field types (see _Convolution)
        stride: list[int]
        kernel_size: list[int]
        dilation: list[int]
        padding: PaddingConfig3d


    def forward(self, input: Tensor) -> Tensor:
        """The convolution of ``input`` (ValueError naming the shapes when they disagree)."""
        _check_input("Conv3d", input, 5, self.weight.val()._data.shape[1] * self.groups,
                     "depth, height, width")
        padding = self.padding.symmetric(input.dims()[2:], self.kernel_size, self.stride)
        options = ConvOptions(stride=self.stride, padding=padding, dilation=self.dilation,
                              groups=self.groups)
        return conv3d(input, self.weight.val(), _bias(self.bias), options)
