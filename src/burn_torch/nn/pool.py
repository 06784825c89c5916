"""Burn's pooling layers: ``MaxPool1d``, ``MaxPool2d``, ``AvgPool1d``, ``AvgPool2d``,
``AdaptiveAvgPool1d``, ``AdaptiveAvgPool2d`` and ``AdaptiveAvgPool3d``.

They have no parameters; their configs' ``init()`` takes no device, as Burn's. The stride
(``stride`` in the 1-D configs, ``strides`` in the 2-D ones, as Burn names them) defaults to
``kernel_size``. Asymmetric padding (explicit, or ``same`` with an even kernel) pads
the input first, with -inf for max pooling and zeros for average pooling (as Burn, the padded
zeros then count as values even without ``count_include_pad``).
"""
from __future__ import annotations

from typing import Sequence

from .. import validate
from ..module import Config, Module
from ..functional.module_ops import (adaptive_avg_pool1d, adaptive_avg_pool2d,
                                    adaptive_avg_pool3d, avg_pool1d, avg_pool2d, max_pool1d,
                                    max_pool2d)
from ..tensor import Tensor
from .padding import PaddingConfig1d, PaddingConfig2d


def pad_2d(input: Tensor, pairs: Sequence[tuple[int, int]], value: float) -> Tensor:
    """``input [..., h, w]`` with ``pairs = [(top, bottom), (left, right)]`` rows and columns of
    ``value`` added around it (differentiable: the gradient of the padding is dropped). With
    one pair, only the last dim is padded."""
    x = input
    for dim, (start, end) in zip((-2, -1)[-len(pairs):], pairs):
        pieces = [_block(x, dim, start, value), x, _block(x, dim, end, value)]
        pieces = [p for p in pieces if p is not None]
        if len(pieces) > 1:
            x = Tensor.cat(pieces, dim)
    return x


def _block(x: Tensor, dim: int, count: int, value: float) -> Tensor | None:
    if not count:
        return None
    dims = x.dims()
    dims[dim] = count
    return Tensor.full(dims, value, x.device(), dtype=x.dtype())


def _split(pairs) -> tuple[list[int], bool]:
    starts = [p[0] for p in pairs]
    return starts, starts == [p[1] for p in pairs]


class _PoolConfig(Config):
    def __post_init__(self) -> None:
        if self.strides is None:
            object.__setattr__(self, "strides", self.kernel_size)


class MaxPool2dConfig(_PoolConfig):
    """Configuration of :class:`MaxPool2d` (Burn's fields; ``strides=None`` means
    ``kernel_size``)."""

    kernel_size: Sequence[int]
    strides: Sequence[int] | None = None
    padding: PaddingConfig2d = PaddingConfig2d.valid()
    dilation: Sequence[int] = (1, 1)
    ceil_mode: bool = False

    def init(self) -> "MaxPool2d":
        validate.config_sizes(self, "kernel_size", "strides", "dilation")
        return MaxPool2d(list(self.strides), list(self.kernel_size), self.padding,
                         list(self.dilation), self.ceil_mode)


class MaxPool2d(Module):
    """2-D max pooling of ``[batch, channels, h, w]`` (fields ``stride``, ``kernel_size``,
    ``padding``, ``dilation``, ``ceil_mode``)."""

    def __init__(self, stride: list[int], kernel_size: list[int], padding: PaddingConfig2d,
                 dilation: list[int], ceil_mode: bool) -> None:
        super().__init__()
        self.stride = stride
        self.kernel_size = kernel_size
        self.padding = padding
        self.dilation = dilation
        self.ceil_mode = ceil_mode

    def forward(self, input: Tensor) -> Tensor:
        """The pooled input; the gradient goes to each window's maximum."""
        pairs = self.padding.pairs(input.dims()[2:], self.kernel_size, self.stride)
        starts, symmetric = _split(pairs)
        if not symmetric:
            input, starts = pad_2d(input, pairs, float("-inf")), [0, 0]
        return max_pool2d(input, self.kernel_size, self.stride, starts, self.dilation,
                          self.ceil_mode)


class AvgPool2dConfig(_PoolConfig):
    """Configuration of :class:`AvgPool2d` (Burn's fields; ``strides=None`` means
    ``kernel_size``; padding counts in the average by default, as Burn)."""

    kernel_size: Sequence[int]
    strides: Sequence[int] | None = None
    padding: PaddingConfig2d = PaddingConfig2d.valid()
    count_include_pad: bool = True
    ceil_mode: bool = False

    def init(self) -> "AvgPool2d":
        validate.config_sizes(self, "kernel_size", "strides")
        return AvgPool2d(list(self.strides), list(self.kernel_size), self.padding,
                         self.count_include_pad, self.ceil_mode)


class AvgPool2d(Module):
    """2-D average pooling of ``[batch, channels, h, w]`` (fields ``stride``, ``kernel_size``,
    ``padding``, ``count_include_pad``, ``ceil_mode``)."""

    def __init__(self, stride: list[int], kernel_size: list[int], padding: PaddingConfig2d,
                 count_include_pad: bool, ceil_mode: bool) -> None:
        super().__init__()
        self.stride = stride
        self.kernel_size = kernel_size
        self.padding = padding
        self.count_include_pad = count_include_pad
        self.ceil_mode = ceil_mode

    def forward(self, input: Tensor) -> Tensor:
        """The pooled input."""
        pairs = self.padding.pairs(input.dims()[2:], self.kernel_size, self.stride)
        starts, symmetric = _split(pairs)
        if not symmetric:
            input, starts = pad_2d(input, pairs, 0.0), [0, 0]
        return avg_pool2d(input, self.kernel_size, self.stride, starts, self.count_include_pad,
                          self.ceil_mode)


class _AdaptiveAvgPool(Module):
    """What the adaptive average pools share: the field ``output_size`` and a forward through
    the class's functional form (``_pool``)."""

    def __init__(self, output_size) -> None:
        super().__init__()
        self.output_size = output_size

    def forward(self, input: Tensor) -> Tensor:
        return self._pool(input, self.output_size)


class AdaptiveAvgPool2dConfig(Config):
    """Configuration of :class:`AdaptiveAvgPool2d`: the ``output_size`` ``[h, w]``."""

    output_size: Sequence[int]

    def init(self) -> "AdaptiveAvgPool2d":
        validate.config_sizes(self, "output_size")
        return AdaptiveAvgPool2d(list(self.output_size))


class AdaptiveAvgPool2d(_AdaptiveAvgPool):
    """Averages ``[batch, channels, h, w]`` over adaptive windows to ``[batch, channels,
    *output_size]``."""

    _pool = staticmethod(adaptive_avg_pool2d)


class _Pool1dConfig(Config):
    def __post_init__(self) -> None:
        if self.stride is None:
            object.__setattr__(self, "stride", self.kernel_size)


def _padded_1d(input: Tensor, padding: PaddingConfig1d, kernel_size: int, stride: int,
               value: float) -> tuple[Tensor, int]:
    """The input and the symmetric padding to pool it with: asymmetric padding pads the input
    with ``value`` first (as Burn: -inf for max pooling, zeros for average pooling)."""
    _rank3(input)
    (left, right), = padding.pairs(input.dims()[2:], [kernel_size], [stride])
    if left != right:
        return pad_2d(input, [(left, right)], value), 0
    return input, left


def _rank3(input) -> None:
    if not isinstance(input, Tensor):
        raise TypeError(f"pool1d: input must be a Tensor, got {type(input).__name__}")
    validate.rank("pool1d", "input", input, 3, " [batch, channels, length]")


class MaxPool1dConfig(_Pool1dConfig):
    """Configuration of :class:`MaxPool1d` (Burn's fields; ``stride=None`` means
    ``kernel_size``)."""

    kernel_size: int
    stride: int | None = None
    padding: PaddingConfig1d = PaddingConfig1d.valid()
    dilation: int = 1
    ceil_mode: bool = False

    def init(self) -> "MaxPool1d":
        validate.config_sizes(self, "kernel_size", "stride", "dilation")
        return MaxPool1d(self.stride, self.kernel_size, self.padding, self.dilation,
                         self.ceil_mode)


class MaxPool1d(Module):
    """1-D max pooling of ``[batch, channels, length]`` (fields ``stride``, ``kernel_size``,
    ``padding``, ``dilation``, ``ceil_mode``)."""

    def __init__(self, stride: int, kernel_size: int, padding: PaddingConfig1d, dilation: int,
                 ceil_mode: bool) -> None:
        super().__init__()
        self.stride = stride
        self.kernel_size = kernel_size
        self.padding = padding
        self.dilation = dilation
        self.ceil_mode = ceil_mode

    def forward(self, input: Tensor) -> Tensor:
        """The pooled input; the gradient goes to each window's maximum."""
        x, pad = _padded_1d(input, self.padding, self.kernel_size, self.stride, float("-inf"))
        return max_pool1d(x, self.kernel_size, self.stride, pad, self.dilation, self.ceil_mode)


class AvgPool1dConfig(_Pool1dConfig):
    """Configuration of :class:`AvgPool1d` (Burn's fields; ``stride=None`` means
    ``kernel_size``; padding counts in the average by default, as Burn)."""

    kernel_size: int
    stride: int | None = None
    padding: PaddingConfig1d = PaddingConfig1d.valid()
    count_include_pad: bool = True
    ceil_mode: bool = False

    def init(self) -> "AvgPool1d":
        validate.config_sizes(self, "kernel_size", "stride")
        return AvgPool1d(self.stride, self.kernel_size, self.padding, self.count_include_pad,
                         self.ceil_mode)


class AvgPool1d(Module):
    """1-D average pooling of ``[batch, channels, length]`` (fields ``stride``, ``kernel_size``,
    ``padding``, ``count_include_pad``, ``ceil_mode``)."""

    def __init__(self, stride: int, kernel_size: int, padding: PaddingConfig1d,
                 count_include_pad: bool, ceil_mode: bool) -> None:
        super().__init__()
        self.stride = stride
        self.kernel_size = kernel_size
        self.padding = padding
        self.count_include_pad = count_include_pad
        self.ceil_mode = ceil_mode

    def forward(self, input: Tensor) -> Tensor:
        """The pooled input."""
        x, pad = _padded_1d(input, self.padding, self.kernel_size, self.stride, 0.0)
        return avg_pool1d(x, self.kernel_size, self.stride, pad, self.count_include_pad,
                          self.ceil_mode)


class AdaptiveAvgPool1dConfig(Config):
    """Configuration of :class:`AdaptiveAvgPool1d`: the ``output_size`` (an int)."""

    output_size: int

    def init(self) -> "AdaptiveAvgPool1d":
        validate.config_sizes(self, "output_size")
        return AdaptiveAvgPool1d(self.output_size)


class AdaptiveAvgPool1d(_AdaptiveAvgPool):
    """Averages ``[batch, channels, length]`` over adaptive windows to ``[batch, channels,
    output_size]``."""

    _pool = staticmethod(adaptive_avg_pool1d)


class AdaptiveAvgPool3dConfig(Config):
    """Configuration of :class:`AdaptiveAvgPool3d`: the ``output_size`` ``[d, h, w]``."""

    output_size: Sequence[int]

    def init(self) -> "AdaptiveAvgPool3d":
        validate.config_sizes(self, "output_size")
        return AdaptiveAvgPool3d(list(self.output_size))


class AdaptiveAvgPool3d(_AdaptiveAvgPool):
    """Averages ``[batch, channels, d, h, w]`` over adaptive windows to ``[batch, channels,
    *output_size]``."""

    _pool = staticmethod(adaptive_avg_pool3d)
