"""Burn's ``Conv2d`` and its config."""
from __future__ import annotations

from typing import Sequence

from ...device import Device
from ...functional.module_ops.conv import conv2d
from ...tensor import Tensor
from ..initializer import Initializer
from ..padding import PaddingConfig2d
from .base import _bias, _ConvConfig, _Convolution, _DEFAULT_INIT, _check_input, _options


class Conv2dConfig(_ConvConfig):
    """Configuration of [`Conv2d`][burn_torch.nn.conv.Conv2d]: ``channels`` is ``[in, out]``,
    ``kernel_size`` ``[k_h, k_w]`` (Burn's fields and defaults)."""

    channels: Sequence[int]
    kernel_size: Sequence[int]
    stride: Sequence[int] = (1, 1)
    dilation: Sequence[int] = (1, 1)
    groups: int = 1
    padding: PaddingConfig2d = PaddingConfig2d.valid()
    bias: bool = True
    initializer: Initializer = _DEFAULT_INIT

    def init(self, device: Device) -> "Conv2d":
        """A new Conv2d on ``device``; ValueError as ``Conv1dConfig.init``."""
        return super().init(device)

    _layer = property(lambda self: Conv2d)


class Conv2d(_Convolution):
    """2-D convolution: ``[batch, channels_in, h, w] -> [batch, channels_out, h_out, w_out]``.

    Fields as Burn's: ``weight`` ``[channels_out, channels_in / groups, k_h, k_w]``, ``bias``
    ``[channels_out]`` or None, and the constants ``stride``, ``kernel_size``, ``dilation``,
    ``groups``, ``padding``.
    """


    def forward(self, input: Tensor) -> Tensor:
        """The convolution of ``input`` (ValueError naming the shapes when they disagree)."""
        _check_input("Conv2d", input, 4, self.weight.val()._data.shape[1] * self.groups,
                     "height, width")
        options = _options(self.padding, input.dims()[2:], self.kernel_size, self.stride,
                           self.dilation, self.groups)
        return conv2d(input, self.weight.val(), _bias(self.bias), options)
