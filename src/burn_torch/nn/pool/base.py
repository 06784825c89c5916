"""What Burn's pooling layers share: stride defaults, padding (asymmetric padding pads the input
first, with -inf for max pooling and zeros for average pooling) and input checks.
"""
from __future__ import annotations

from typing import TYPE_CHECKING, Callable, ClassVar, Sequence

from ... import validate
from ...module import Config, Module, module_fields
from ...tensor import Tensor
from ..padding import PaddingConfig1d


def pad_2d(input: Tensor, pairs: Sequence[tuple[int, int]], value: float) -> Tensor:
    """``input [..., h, w]`` with ``pairs = [(top, bottom), (left, right)]`` rows and columns of
    ``value`` added around it (differentiable: the gradient of the padding is dropped). With
    one pair, only the last dim is padded."""
    x = input
    for dim, (start, end) in zip((-2, -1)[-len(pairs):], pairs):
        pieces = [_block(x, dim, start, value), x, _block(x, dim, end, value)]
        present = [p for p in pieces if p is not None]
        if len(present) > 1:
            x = Tensor.cat(present, dim)
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


@module_fields
class _AdaptiveAvgPool(Module):
    """What the adaptive average pools share: the field ``output_size`` (an int for the 1-d
    pool, a list of ints otherwise) and a forward through the class's functional form
    (``_pool``)."""

    output_size: int | list[int]
    if TYPE_CHECKING:
        _pool: ClassVar[Callable[..., Tensor]]  # the functional form, a staticmethod per class

    def forward(self, input: Tensor) -> Tensor:
        return self._pool(input, self.output_size)


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
