"""Burn's ``DeformConv2d`` (deformable 2-D convolution) and its config."""
from __future__ import annotations

import math
from typing import Sequence

from ... import validate
from ...device import Device
from ...functional.module_ops.conv import deform_conv2d, DeformConvOptions
from ...module import Config, Module, Param, module_fields
from ...tensor import Tensor
from ..initializer import Initializer
from ..padding import PaddingConfig2d
from .base import _bias, _check_groups, _check_same, _DEFAULT_INIT, _check_input


class DeformConv2dConfig(Config):
    """Configuration of [`DeformConv2d`][burn_torch.nn.conv.DeformConv2d] (Burn's fields and
    defaults). ``offset_groups`` is honoured (Burn 0.21's ``init`` copied ``weight_groups`` into it,
    a bug later Burn fixes)."""

    channels: Sequence[int]
    kernel_size: Sequence[int]
    stride: Sequence[int] = (1, 1)
    dilation: Sequence[int] = (1, 1)
    weight_groups: int = 1
    offset_groups: int = 1
    padding: PaddingConfig2d = PaddingConfig2d.valid()
    bias: bool = True
    initializer: Initializer = _DEFAULT_INIT

    def init(self, device: Device) -> "DeformConv2d":
        """A new DeformConv2d on ``device``; ValueError when ``channels_in`` is not divisible by
        both group counts (or ``channels_out`` by ``weight_groups``), or for ``same`` padding
        with an even kernel."""
        validate.config_sizes(self, "channels", "kernel_size", "stride", "dilation",
                              "weight_groups", "offset_groups")
        c_in, c_out = self.channels
        _check_groups(c_in, c_out, self.weight_groups)
        if c_in % self.offset_groups:
            raise ValueError(f"channels_in ({c_in}) must be divisible by offset_groups "
                             f"({self.offset_groups})")
        _check_same(self.padding, self.kernel_size)
        k = math.prod(self.kernel_size)
        fan_in, fan_out = c_in // self.weight_groups * k, c_out // self.weight_groups * k
        shape = [c_out, c_in // self.weight_groups, *self.kernel_size]
        weight = self.initializer.init_with(shape, fan_in, fan_out, device)
        bias = self.initializer.init_with([c_out], fan_in, fan_out, device) if self.bias else None
        return DeformConv2d(weight, bias, list(self.stride), list(self.kernel_size),
                            list(self.dilation), self.weight_groups, self.offset_groups,
                            self.padding)


@module_fields
class DeformConv2d(Module):
    """Deformable 2-D convolution (Burn's fields: ``weight`` ``[channels_out, channels_in /
    weight_groups, k_h, k_w]``, ``bias``, ``stride``, ``kernel_size``, ``dilation``,
    ``weight_groups``, ``offset_groups``, ``padding``)."""

    weight: Param
    bias: Param | None
    stride: list[int]
    kernel_size: list[int]
    dilation: list[int]
    weight_groups: int
    offset_groups: int
    padding: PaddingConfig2d

    def forward(self, input: Tensor, offset: Tensor, mask: Tensor | None = None) -> Tensor:
        """input ``[batch, channels_in, h, w]``, offset ``[batch, 2 * offset_groups * k_h * k_w,
        out_h, out_w]``, mask ``[batch, offset_groups * k_h * k_w, out_h, out_w]`` or None;
        returns ``[batch, channels_out, out_h, out_w]``. Padding must be symmetric (ValueError
        otherwise, as Burn)."""
        _check_input("DeformConv2d", input, 4, self.weight.val()._data.shape[1] * self.weight_groups,
                     "height, width")
        pairs = self.padding.pairs(input.dims()[2:], self.kernel_size, self.stride)
        if any(a != b for a, b in pairs):
            raise ValueError(f"DeformConv2d: asymmetric padding {pairs} is not supported")
        options = DeformConvOptions(stride=self.stride, padding=[p[0] for p in pairs],
                                    dilation=self.dilation, weight_groups=self.weight_groups,
                                    offset_groups=self.offset_groups)
        return deform_conv2d(input, offset, self.weight.val(), mask, _bias(self.bias), options)
