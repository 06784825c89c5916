"""Burn's convolution layers: ``Conv1d``, ``Conv2d``, ``Conv3d``, ``ConvTranspose1d``,
``ConvTranspose2d``, ``ConvTranspose3d`` and ``DeformConv2d``.

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
from ..functional.module_ops import (ConvOptions, ConvTransposeOptions, DeformConvOptions,
                                    PaddedConvOptions, conv1d, conv2d, conv3d, conv_transpose1d,
                                    conv_transpose2d, conv_transpose3d, deform_conv2d)
from ..tensor import Tensor
from .initializer import Initializer
from .padding import PaddingConfig1d, PaddingConfig2d, PaddingConfig3d

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


class _ConvConfig(Config):
    """What the 2-d and 3-d convolution configs share: ``init`` (``channels`` ``[in, out]``,
    Burn's fan-in and fan-out ``channels / groups * prod(kernel)``)."""

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


class Conv2dConfig(_ConvConfig):
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
        return super().init(device)

    _layer = property(lambda self: Conv2d)


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


class Conv3dConfig(_ConvConfig):
    """Configuration of :class:`Conv3d`: ``channels`` is ``[in, out]``, ``kernel_size``
    ``[k_d, k_h, k_w]`` (Burn's fields and defaults)."""

    channels: Sequence[int]
    kernel_size: Sequence[int]
    stride: Sequence[int] = (1, 1, 1)
    dilation: Sequence[int] = (1, 1, 1)
    groups: int = 1
    padding: PaddingConfig3d = PaddingConfig3d.valid()
    bias: bool = True
    initializer: Initializer = _DEFAULT_INIT

    def init(self, device: Device) -> "Conv3d":
        """A new Conv3d on ``device``; ValueError as :meth:`Conv1dConfig.init`."""
        return super().init(device)

    _layer = property(lambda self: Conv3d)


class Conv3d(_Convolution):
    """3-D convolution: ``[batch, channels_in, d, h, w] -> [batch, channels_out, d_out, h_out,
    w_out]``. Fields as :class:`Conv2d` (``weight`` ``[channels_out, channels_in / groups, k_d,
    k_h, k_w]``); padding is symmetric (``same`` with an even kernel raises ValueError, as Burn).
    """

    def __init__(self, weight: Param, bias: Param | None, stride: list[int],
                 kernel_size: list[int], dilation: list[int], groups: int,
                 padding: PaddingConfig3d) -> None:
        super().__init__(weight, bias, stride, kernel_size, dilation, groups, padding)

    def forward(self, input: Tensor) -> Tensor:
        """The convolution of ``input`` (ValueError naming the shapes when they disagree)."""
        _input_rank("Conv3d.forward", input, 5, " [batch, channels, depth, height, width]")
        padding = self.padding.symmetric(input.dims()[2:], self.kernel_size, self.stride)
        options = ConvOptions(stride=self.stride, padding=padding, dilation=self.dilation,
                              groups=self.groups)
        return conv3d(input, self.weight.val(), _bias(self.bias), options)


class _ConvTransposeConfig(Config):
    """What the transposed convolution configs share: ``init`` (Burn's fan-in is ``channels_out
    / groups * prod(kernel)``)."""

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


class _ConvTranspose(_Convolution):
    """The fields of a transposed convolution: :class:`_Convolution`'s, ``padding_out`` and
    ``channels``; ``_op`` and ``_rank`` name its functional form and input rank."""

    _op = staticmethod(conv_transpose2d)
    _layout = ""

    def __init__(self, weight: Param, bias: Param | None, stride, kernel_size, dilation,
                 groups: int, padding, padding_out, channels: list[int]) -> None:
        super().__init__(weight, bias, stride, kernel_size, dilation, groups, padding)
        self.padding_out = padding_out
        self.channels = channels

    def forward(self, input: Tensor) -> Tensor:
        """The transposed convolution of ``input``."""
        options = ConvTransposeOptions(stride=_as_list(self.stride),
                                       padding=_as_list(self.padding),
                                       padding_out=_as_list(self.padding_out),
                                       dilation=_as_list(self.dilation), groups=self.groups)
        return type(self)._op(input, self.weight.val(), _bias(self.bias), options)


class ConvTranspose1dConfig(_ConvTransposeConfig):
    """Configuration of :class:`ConvTranspose1d` (Burn's fields and defaults; ints per field)."""

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


class ConvTranspose2dConfig(_ConvTransposeConfig):
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


class ConvTranspose3dConfig(_ConvTransposeConfig):
    """Configuration of :class:`ConvTranspose3d` (Burn's fields and defaults, three ints each)."""

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


class DeformConv2dConfig(Config):
    """Configuration of :class:`DeformConv2d` (Burn's fields and defaults). ``offset_groups``
    is honoured (Burn 0.21's ``init`` copied ``weight_groups`` into it, a bug later Burn fixes)."""

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


class DeformConv2d(Module):
    """Deformable 2-D convolution (Burn's fields: ``weight`` ``[channels_out, channels_in /
    weight_groups, k_h, k_w]``, ``bias``, ``stride``, ``kernel_size``, ``dilation``,
    ``weight_groups``, ``offset_groups``, ``padding``)."""

    def __init__(self, weight: Param, bias: Param | None, stride: list[int],
                 kernel_size: list[int], dilation: list[int], weight_groups: int,
                 offset_groups: int, padding: PaddingConfig2d) -> None:
        super().__init__()
        self.weight = weight
        self.bias = bias
        self.stride = stride
        self.kernel_size = kernel_size
        self.dilation = dilation
        self.weight_groups = weight_groups
        self.offset_groups = offset_groups
        self.padding = padding

    def forward(self, input: Tensor, offset: Tensor, mask: Tensor | None = None) -> Tensor:
        """input ``[batch, channels_in, h, w]``, offset ``[batch, 2 * offset_groups * k_h * k_w,
        out_h, out_w]``, mask ``[batch, offset_groups * k_h * k_w, out_h, out_w]`` or None;
        returns ``[batch, channels_out, out_h, out_w]``. Padding must be symmetric (ValueError
        otherwise, as Burn)."""
        _input_rank("DeformConv2d.forward", input, 4, " [batch, channels, height, width]")
        pairs = self.padding.pairs(input.dims()[2:], self.kernel_size, self.stride)
        if any(a != b for a, b in pairs):
            raise ValueError(f"DeformConv2d: asymmetric padding {pairs} is not supported")
        options = DeformConvOptions(stride=self.stride, padding=[p[0] for p in pairs],
                                    dilation=self.dilation, weight_groups=self.weight_groups,
                                    offset_groups=self.offset_groups)
        return deform_conv2d(input, offset, self.weight.val(), mask, _bias(self.bias), options)
