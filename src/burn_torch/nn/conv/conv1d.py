"""Burn's ``Conv1d`` and its config."""
from __future__ import annotations

from ... import validate
from ...device import Device
from ...functional.module_ops.conv import conv1d
from ...module import Config
from ...tensor import Tensor
from ..initializer import Initializer
from ..padding import PaddingConfig1d
from .base import (_bias, _check_groups, _check_same, _Convolution, _DEFAULT_INIT, _check_input,
                   _options)


class Conv1dConfig(Config):
    """Configuration of [`Conv1d`][burn_torch.nn.conv.Conv1d] (Burn's fields and defaults)."""

    channels_in: int
    channels_out: int
    kernel_size: int
    stride: int = 1
    dilation: int = 1
    groups: int = 1
    padding: PaddingConfig1d = PaddingConfig1d.valid()
    bias: bool = True
    initializer: Initializer = _DEFAULT_INIT

    def init(self, device: Device) -> "Conv1d":
        """A new Conv1d on ``device``; ValueError when a channel count is not divisible by
        ``groups`` or for ``same`` padding with an even kernel."""
        validate.config_sizes(self, "channels_in", "channels_out", "kernel_size", "stride", "dilation", "groups")
        _check_groups(self.channels_in, self.channels_out, self.groups)
        _check_same(self.padding, [self.kernel_size])
        fan_in = self.channels_in // self.groups * self.kernel_size
        shape = [self.channels_out, self.channels_in // self.groups, self.kernel_size]
        weight = self.initializer.init_with(shape, fan_in, None, device)
        bias = (self.initializer.init_with([self.channels_out], fan_in, None, device)
                if self.bias else None)
        return Conv1d(weight, bias, self.stride, self.kernel_size, self.dilation, self.groups,
                      self.padding)


class Conv1d(_Convolution):
    """1-D convolution: ``[batch, channels_in, length] -> [batch, channels_out, length_out]``.

    Fields as Burn's: ``weight`` ``[channels_out, channels_in / groups, kernel_size]``, ``bias``
    ``[channels_out]`` or None, and the constants ``stride``, ``kernel_size``, ``dilation``,
    ``groups``, ``padding``.
    """


    def forward(self, input: Tensor) -> Tensor:
        """The convolution of ``input`` (ValueError naming the shapes when they disagree)."""
        _check_input("Conv1d", input, 3, self.weight.val()._data.shape[1] * self.groups,
                     "length")
        options = _options(self.padding, input.dims()[2:], [self.kernel_size], [self.stride],
                           [self.dilation], self.groups)
        return conv1d(input, self.weight.val(), _bias(self.bias), options)
