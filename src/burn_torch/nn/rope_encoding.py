"""Burn's ``RotaryEncoding`` (RoPE): each pair ``(x[2i], x[2i+1])`` of the last dim rotated by the
angle ``position * theta_i``, ``theta_i = base^(-2i / d_model)`` (frequencies in float64, a
constant table cast to the input's float dtype when applied).
"""
from __future__ import annotations

import math
from typing import Callable

import torch

from .. import validate
from ..autodiff.recorder import apply1
from ..device import Device
from ..module import Config, Module, module_fields
from ..ops import nn as nn_ops
from ..tensor import Tensor


class RotaryEncodingConfig(Config):
    """Configuration of [`RotaryEncoding`][burn_torch.nn.rope_encoding.RotaryEncoding] (Burn's
    fields and defaults)."""

    max_sequence_length: int
    d_model: int
    theta: float = 10000.0

    def init(self, device: Device) -> "RotaryEncoding":
        """Frequencies for positions ``0..max_sequence_length``; ValueError for an odd
        ``d_model`` or a non-positive ``theta``."""
        return self.init_with_frequency_scaling(lambda t: t, device)

    def init_with_frequency_scaling(self, scaling: Callable[[Tensor], Tensor],
                                    device: Device) -> "RotaryEncoding":
        """As [`init`][burn_torch.nn.rope_encoding.RotaryEncodingConfig.init], with ``scaling``
        applied to the ``[d_model / 2]`` frequencies first (e.g. Llama 3's long-context scaling)."""
        validate.config_sizes(self, "max_sequence_length", "d_model")
        if self.d_model % 2:
            raise ValueError("The input embedding dimension must be even")
        if not self.theta > 0.0:
            raise ValueError("Theta parameter must be positive (default: 10000).")
        exponent = torch.arange(0, self.d_model, 2, dtype=torch.float64) / self.d_model
        theta = Tensor.from_data((exponent * math.log(self.theta)).exp().reciprocal(), device)
        theta = scaling(theta)
        return RotaryEncoding(_frequencies(0, self.max_sequence_length, theta), theta, 0)


def _frequencies(start: int, end: int, theta: Tensor) -> Tensor:
    """``[end - start, d_model, 2]``: ``(cos, sin)`` of ``position * theta_{j // 2}``."""
    t = theta.to_torch().double()
    angles = torch.arange(start, end, dtype=torch.float64).view(-1, 1) * t  # [n, d / 2]
    table = torch.stack((angles.cos(), angles.sin()), -1).repeat_interleave(2, 1)
    return Tensor.from_data(table, theta.device())


@module_fields
class RotaryEncoding(Module):
    """Rotary positional encoding (fields ``freq_complex`` ``[max_sequence_length, d_model,
    2]``, ``theta`` ``[d_model / 2]``, ``start_offset``)."""

    freq_complex: Tensor
    theta: Tensor
    start_offset: int

    def forward(self, x: Tensor) -> Tensor:
        """[`apply`][burn_torch.nn.rope_encoding.RotaryEncoding.apply] from position 0."""
        return self.apply(x, 0)

    def apply(self, x: Tensor, start: int) -> Tensor:
        """``x [..., seq, d_model]`` rotated with the frequencies of rows ``start .. start +
        seq``; ValueError for rank < 2, a ``d_model`` other than the encoding's or rows past the
        table."""
        if not isinstance(x, Tensor):
            raise TypeError(f"RotaryEncoding.apply: x must be a Tensor, got {type(x).__name__}")
        dims = x.dims()
        if len(dims) < 2:
            raise ValueError("Input tensor must have at least 2 dimensions for sequence length "
                             "and hidden dimension")
        seq, d_model = dims[-2], dims[-1]
        rows, d, _ = self.freq_complex.dims()
        if d_model != d or start + seq > rows:
            raise ValueError(f"RotaryEncoding.apply: x {dims} from position {start} does not fit "
                             f"the table of {rows} positions and d_model {d}")
        table = self.freq_complex.slice([(start, start + seq)]).cast(x.dtype())
        cos = table.narrow(2, 0, 1).reshape([seq, d_model])
        sin = table.narrow(2, 1, 1).reshape([seq, d_model])
        if table._node is None and x._data.is_floating_point():  # one step, the same kernels
            return apply1(nn_ops.ROTARY, x, (cos._data, sin._data))
        pairs = x.reshape([-1, seq, d_model // 2, 2])
        rotated = Tensor.cat([pairs.narrow(3, 1, 1).neg(), pairs.narrow(3, 0, 1)], 3)
        return x * cos + rotated.reshape(dims) * sin

    def shift(self, start: int) -> None:
        """Moves the table's window to positions ``start .. start + max_sequence_length``
        (``start`` must grow: ValueError otherwise). Mutates the layer, as Burn's ``&mut``."""
        if start <= self.start_offset:
            raise ValueError("Shift start position must be monotonically increasing")
        rows = self.freq_complex.dims()[0]
        table = _frequencies(start, start + rows, self.theta)
        self.freq_complex = table.cast(self.freq_complex.dtype())
        self.start_offset = start
