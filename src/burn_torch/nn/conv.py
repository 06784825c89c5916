"""Burn's convolution layers: ``Conv1d``, ``Conv2d`` and ``ConvTranspose2d``.

Weights keep Burn's (and PyTorch's) layouts: ``[channels_out, channels_in / groups, *kernel]``
for a convolution, ``[channels_in, channels_out / groups, *kernel]`` for a transposed one. The
default initializer is Burn's Kaiming-uniform with gain ``1/sqrt(3)``, with the fans Burn uses.
"""
from __future__ import annotations

import math
from typing import Sequence

from .. import validate
from ..device import Device
from ..module import Config, Module, Param
from ..functional.module_ops import (ConvOptions, ConvTransposeOptions, PaddedConvOptions, conv1d, conv2d,
                          conv_transpose2d)
from ..tensor import Tensor
from .initializer import Initializer
from .padding import PaddingConfig1d, PaddingConfig2d

_DEFAULT_INIT = Initializer.kaiming_uniform(1.0 / math.sqrt(3.0), False)


def _input_rank(op: str, input, rank: int, layout: str) -> None:
    """TypeError unless ``input`` is a Tensor, ValueError unless it has ``rank``."""
    if not isinstance(input, Tensor):
        raise TypeError(f"{op}: input must be a Tensor, got {type(input).__name__}")
    validate.rank(op, "input", input, rank, layout)


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


class _Convolution(Module):
    """The fields every convolution layer has, in Burn's order: ``weight``, ``bias`` (None
    without one), ``stride``, ``kernel_size``, ``dilation``, ``groups`` and ``padding``."""

    def __init__(self, weight: Param, bias: Param | None, stride, kernel_size, dilation,
                 groups: int, padding) -> None:
        super().__init__()
        self.weight = weight
        self.bias = bias
        self.stride = stride
        self.kernel_size = kernel_size
        self.dilation = dilation
        self.groups = groups
        self.padding = padding


class Conv1dConfig(Config):
    """Configuration of :class:`Conv1d` (Burn's fields and defaults)."""

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

    def __init__(self, weight: Param, bias: Param | None, stride: int, kernel_size: int,
                 dilation: int, groups: int, padding: PaddingConfig1d) -> None:
        super().__init__(weight, bias, stride, kernel_size, dilation, groups, padding)

    def forward(self, input: Tensor) -> Tensor:
        """The convolution of ``input`` (ValueError naming the shapes when they disagree)."""
        _input_rank("Conv1d.forward", input, 3, " [batch, channels, length]")
        options = _options(self.padding, input.dims()[2:], [self.kernel_size], [self.stride],
                           [self.dilation], self.groups)
        return conv1d(input, self.weight.val(), _bias(self.bias), options)


class Conv2dConfig(Config):
    """Configuration of :class:`Conv2d`: ``channels`` is ``[in, out]``, ``kernel_size``
    ``[k_h, k_w]`` (Burn's fields and defaults)."""

    channels: Sequence[int]
    kernel_size: Sequence[int]
    stride: Sequence[int] = (1, 1)
    dilation: Sequence[int] = (1, 1)
    groups: int = 1
    padding: PaddingConfig2d = PaddingConfig2d.valid()
    bias: bool = True
    initializer: Initializer = _DEFAULT_INIT

    def init(self, device: Device) -> "Conv2d":
        """A new Conv2d on ``device``; ValueError as :meth:`Conv1dConfig.init`."""
        validate.config_sizes(self, "channels", "kernel_size", "stride", "dilation", "groups")
        c_in, c_out = self.channels
        _check_groups(c_in, c_out, self.groups)
        _check_same(self.padding, self.kernel_size)
        k = math.prod(self.kernel_size)
        fan_in, fan_out = c_in // self.groups * k, c_out // self.groups * k
        shape = [c_out, c_in // self.groups, *self.kernel_size]
        weight = self.initializer.init_with(shape, fan_in, fan_out, device)
        bias = self.initializer.init_with([c_out], fan_in, fan_out, device) if self.bias else None
        return Conv2d(weight, bias, list(self.stride), list(self.kernel_size),
                      list(self.dilation), self.groups, self.padding)


class Conv2d(_Convolution):
    """2-D convolution: ``[batch, channels_in, h, w] -> [batch, channels_out, h_out, w_out]``.

    Fields as Burn's: ``weight`` ``[channels_out, channels_in / groups, k_h, k_w]``, ``bias``
    ``[channels_out]`` or None, and the constants ``stride``, ``kernel_size``, ``dilation``,
    ``groups``, ``padding``.
    """

    def __init__(self, weight: Param, bias: Param | None, stride: list[int],
                 kernel_size: list[int], dilation: list[int], groups: int,
                 padding: PaddingConfig2d) -> None:
        super().__init__(weight, bias, stride, kernel_size, dilation, groups, padding)

    def forward(self, input: Tensor) -> Tensor:
        """The convolution of ``input`` (ValueError naming the shapes when they disagree)."""
        _input_rank("Conv2d.forward", input, 4, " [batch, channels, height, width]")
        options = _options(self.padding, input.dims()[2:], self.kernel_size, self.stride,
                           self.dilation, self.groups)
        return conv2d(input, self.weight.val(), _bias(self.bias), options)


class ConvTranspose2dConfig(Config):
    """Configuration of :class:`ConvTranspose2d` (Burn's fields and defaults; ``padding`` and
    ``padding_out`` are per-dim ints)."""

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
        """A new ConvTranspose2d on ``device``; ValueError when a channel count is not divisible
        by ``groups``. As Burn, the fan-in is ``channels_out / groups * k_h * k_w``."""
        validate.config_sizes(self, "channels", "kernel_size", "stride", "dilation", "groups")
        c_in, c_out = self.channels
        _check_groups(c_in, c_out, self.groups)
        fan_in = c_out // self.groups * math.prod(self.kernel_size)
        shape = [c_in, c_out // self.groups, *self.kernel_size]
        weight = self.initializer.init_with(shape, fan_in, None, device)
        bias = self.initializer.init_with([c_out], fan_in, None, device) if self.bias else None
        return ConvTranspose2d(weight, bias, list(self.stride), list(self.kernel_size),
                               list(self.dilation), self.groups, list(self.padding),
                               list(self.padding_out), [c_in, c_out])


class ConvTranspose2d(_Convolution):
    """2-D transposed convolution: ``[batch, channels_in, h, w] -> [batch, channels_out, h_out,
    w_out]``.

    Fields as Burn's: ``weight`` ``[channels_in, channels_out / groups, k_h, k_w]``, ``bias``
    ``[channels_out]`` or None, and the constants ``stride``, ``kernel_size``, ``dilation``,
    ``groups``, ``padding``, ``padding_out``, ``channels``.
    """

    def __init__(self, weight: Param, bias: Param | None, stride: list[int],
                 kernel_size: list[int], dilation: list[int], groups: int, padding: list[int],
                 padding_out: list[int], channels: list[int]) -> None:
        super().__init__(weight, bias, stride, kernel_size, dilation, groups, padding)
        self.padding_out = padding_out
        self.channels = channels

    def forward(self, input: Tensor) -> Tensor:
        """The transposed convolution of ``input``."""
        options = ConvTransposeOptions(stride=self.stride, padding=self.padding,
                                       padding_out=self.padding_out, dilation=self.dilation,
                                       groups=self.groups)
        return conv_transpose2d(input, self.weight.val(), _bias(self.bias), options)
