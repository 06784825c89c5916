"""What Burn's convolution layers share: argument checks, the options a config builds, the bias
and the default initializer (Burn's Kaiming-uniform with gain ``1/sqrt(3)``).
"""
from __future__ import annotations

import math
from typing import TYPE_CHECKING, ClassVar, Sequence

from ... import validate
from ..checks import expect_input
from ...device import Device
from ...functional.module_ops.conv import (conv_transpose2d, ConvOptions, ConvTransposeOptions,
                                           PaddedConvOptions)
from ...module import Config, Module, Param, module_fields
from ...tensor import Tensor
from ..initializer import Initializer
from ..padding import PaddingConfig1d, PaddingConfig2d, PaddingConfig3d


_DEFAULT_INIT = Initializer.kaiming_uniform(1.0 / math.sqrt(3.0), False)


def _check_input(layer: str, input, rank: int, channels_in: int, dims: str) -> None:
    """The layer's input check (``expect_input``): rank ``rank``,
    ``channels_in`` channels at dim 1; ``dims`` names the spatial dims."""
    expect_input(layer, input, f"[batch, {channels_in}, {dims}] (channels_in {channels_in})", rank,
                 {1: channels_in})


def _check_groups(channels_in: int, channels_out: int, groups: int) -> None:
    if channels_in % groups or channels_out % groups:
        raise ValueError(f"Both channels must be divisible by the number of groups. Got "
                         f"channels [{channels_in}, {channels_out}] and groups={groups}")


def _check_same(padding, kernel_size: Sequence[int]) -> None:
    if padding.kind == "same" and any(k % 2 == 0 for k in kernel_size):
        raise ValueError(f"Same padding with an even kernel size is not supported, got kernel "
                         f"{list(kernel_size)}")


def _options(padding, sizes, kernel_size, stride, dilation, groups):
    """ConvOptions for symmetric padding, PaddedConvOptions otherwise."""
    pairs = padding.pairs(sizes, kernel_size, stride)
    starts = [p[0] for p in pairs]
    ends = [p[1] for p in pairs]
    if starts == ends:
        return ConvOptions(stride=stride, padding=starts, dilation=dilation, groups=groups)
    return PaddedConvOptions.asymmetric(stride=stride, padding_start=starts, padding_end=ends,
                                        dilation=dilation, groups=groups)


def _bias(param: Param | None) -> Tensor | None:
    return None if param is None else param.val()


@module_fields
class _Convolution(Module):
    """The fields every convolution layer has, in Burn's order: ``weight``, ``bias`` (None
    without one), ``stride``, ``kernel_size``, ``dilation``, ``groups`` and ``padding`` (ints
    for a 1-d layer, lists of ints otherwise)."""

    weight: Param
    bias: Param | None
    stride: int | list[int]
    kernel_size: int | list[int]
    dilation: int | list[int]
    groups: int
    padding: PaddingConfig1d | PaddingConfig2d | PaddingConfig3d


class _ConvConfig(Config):
    """What the 2-d and 3-d convolution configs share: ``init`` (``channels`` ``[in, out]``,
    Burn's fan-in and fan-out ``channels / groups * prod(kernel)``)."""

    if TYPE_CHECKING:  # what init reads of each subclass: its fields (Burn's order) and layer
        channels: Sequence[int]
        kernel_size: Sequence[int]
        stride: Sequence[int]
        dilation: Sequence[int]
        groups: int
        padding: PaddingConfig2d | PaddingConfig3d
        bias: bool
        initializer: Initializer
        _layer: ClassVar[type[_Convolution]]

    def init(self, device: Device):
        """A new layer on ``device``; ValueError when a channel count is not divisible by
        ``groups`` or for ``same`` padding with an even kernel."""
        validate.config_sizes(self, "channels", "kernel_size", "stride", "dilation", "groups")
        c_in, c_out = self.channels
        _check_groups(c_in, c_out, self.groups)
        _check_same(self.padding, self.kernel_size)
        k = math.prod(self.kernel_size)
        fan_in, fan_out = c_in // self.groups * k, c_out // self.groups * k
        shape = [c_out, c_in // self.groups, *self.kernel_size]
        weight = self.initializer.init_with(shape, fan_in, fan_out, device)
        bias = self.initializer.init_with([c_out], fan_in, fan_out, device) if self.bias else None
        return self._layer(weight, bias, list(self.stride), list(self.kernel_size),
                           list(self.dilation), self.groups, self.padding)


class _ConvTransposeConfig(Config):
    """What the transposed convolution configs share: ``init`` (Burn's fan-in is ``channels_out
    / groups * prod(kernel)``)."""

    if TYPE_CHECKING:  # what init reads of each subclass: its fields (Burn's order) and layer
        channels: Sequence[int]
        kernel_size: int | Sequence[int]
        stride: int | Sequence[int]
        dilation: int | Sequence[int]
        groups: int
        padding: int | Sequence[int]
        padding_out: int | Sequence[int]
        bias: bool
        initializer: Initializer
        _layer: ClassVar[type[_ConvTranspose]]

    def init(self, device: Device):
        """A new layer on ``device``; ValueError when a channel count is not divisible by
        ``groups``."""
        validate.config_sizes(self, "channels", "kernel_size", "stride", "dilation", "groups")
        c_in, c_out = self.channels
        _check_groups(c_in, c_out, self.groups)
        kernel = _as_list(self.kernel_size)
        fan_in = c_out // self.groups * math.prod(kernel)
        shape = [c_in, c_out // self.groups, *kernel]
        weight = self.initializer.init_with(shape, fan_in, None, device)
        bias = self.initializer.init_with([c_out], fan_in, None, device) if self.bias else None
        return self._layer(weight, bias, _copy(self.stride), _copy(self.kernel_size),
                           _copy(self.dilation), self.groups, _copy(self.padding),
                           _copy(self.padding_out), [c_in, c_out])


def _as_list(value) -> list[int]:
    return [value] if isinstance(value, int) else list(value)


def _copy(value):
    """An int as is, a sequence as a list (the layers keep Burn's field types)."""
    return value if isinstance(value, int) else list(value)


@module_fields
class _ConvTranspose(_Convolution):
    """The fields of a transposed convolution: ``_Convolution``'s, ``padding_out`` and
    ``channels``; ``_op`` and ``_rank`` name its functional form and input rank."""

    _op = staticmethod(conv_transpose2d)
    _layout = ""

    padding_out: int | list[int]
    channels: list[int]

    def forward(self, input: Tensor) -> Tensor:
        """The transposed convolution of ``input``; ValueError for another rank or channel
        count."""
        _check_input(type(self).__name__, input, self.weight.val()._data.dim(), self.channels[0],
                     "...")
        options = ConvTransposeOptions(stride=_as_list(self.stride),
                                       padding=_as_list(self.padding),
                                       padding_out=_as_list(self.padding_out),
                                       dilation=_as_list(self.dilation), groups=self.groups)
        return type(self)._op(input, self.weight.val(), _bias(self.bias), options)
