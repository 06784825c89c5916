"""Burn's position encodings: ``PositionalEncoding`` (fixed sinusoids added to the input) and
``RotaryEncoding`` (RoPE: each pair ``(x[2i], x[2i+1])`` of the last dim rotated by the angle
``position * theta_i``, ``theta_i = base^(-2i / d_model)``).

Their tables are constants (bare Tensor fields, as Burn's ``Tensor`` fields: neither parameters
nor recorded). ``PositionalEncoding``'s sinusoids are computed in float32, as Burn computes them
whatever the backend's float type; ``RotaryEncoding``'s frequencies in float64. Both are cast to
the input's float dtype when applied.
"""
from __future__ import annotations

import math
from typing import Callable

import torch

from .. import validate
from ..autodiff.recorder import apply1
from ..ops import nn as nn_ops
from ..device import Device
from ..module import Config, Module
from ..tensor import Tensor


def generate_sinusoids(length: int, d_model: int, max_timescale: int, device: Device) -> Tensor:
    """Burn's ``generate_sinusoids``: ``[length, d_model]`` with ``sin(i * f_k)`` at ``2k`` and
    ``cos(i * f_k)`` at ``2k + 1``, ``f_k = exp(-2k * ln(max_timescale) / d_model)`` (float32
    arithmetic, as Burn). ValueError for an odd ``d_model`` or ``max_timescale < length``."""
    if d_model % 2:
        raise ValueError(f"generate_sinusoids: d_model must be even, got {d_model}")
    if max_timescale < length:
        raise ValueError(f"generate_sinusoids: max_timescale ({max_timescale}) must be greater "
                         f"than length ({length})")
    increment = torch.tensor(-math.log(max_timescale) / d_model, dtype=torch.float32)
    k = torch.arange(0, d_model, 2, dtype=torch.float32)
    div = torch.exp(k * increment)                      # [d_model / 2]
    angles = div * torch.arange(length, dtype=torch.float32).view(-1, 1)
    table = torch.stack((angles.sin(), angles.cos()), -1).reshape(length, d_model)
    return Tensor.from_data(table, device)


class PositionalEncodingConfig(Config):
    """Configuration of :class:`PositionalEncoding` (Burn's fields and defaults; ``d_model`` is
    the only required one, so it comes first positionally as in Burn's ``new(d_model)``)."""

    d_model: int
    max_sequence_size: int = 5000
    max_timescale: int = 10000

    def init(self, device: Device) -> "PositionalEncoding":
        validate.config_sizes(self, "d_model", "max_sequence_size", "max_timescale")
        table = generate_sinusoids(self.max_sequence_size, self.d_model, self.max_timescale,
                                   device)
        return PositionalEncoding(table.unsqueeze(3), self.max_sequence_size, self.max_timescale)


class PositionalEncoding(Module):
    """Adds the sinusoids to ``[batch, seq, d_model]`` (fields ``sinusoids`` ``[1,
    max_sequence_size, d_model]``, ``max_sequence_size``, ``max_timescale``)."""

    def __init__(self, sinusoids: Tensor, max_sequence_size: int, max_timescale: int) -> None:
        super().__init__()
        self.sinusoids = sinusoids
        self.max_sequence_size = max_sequence_size
        self.max_timescale = max_timescale

    def forward(self, input: Tensor) -> Tensor:
        """``input + sinusoids[:, :seq]``; ValueError when the sequence is longer than
        ``max_sequence_size`` or ``d_model`` differs."""
        validate.rank("PositionalEncoding.forward", "input", input, 3, " [batch, seq, d_model]")
        _, seq, d_model = input.dims()
        _, max_seq, d = self.sinusoids.dims()
        if seq > max_seq:
            raise ValueError(f"max_sequence_size({max_seq}) must be greater or equal than "
                             f"length({seq})")
        if d_model != d:
            raise ValueError(f"d_model({d_model}) of the input must be equal to d_model of "
                             f"encoding({d})")
        table = self.sinusoids.slice([(0, 1), (0, seq)]).cast(input.dtype())
        return input + table


class RotaryEncodingConfig(Config):
    """Configuration of :class:`RotaryEncoding` (Burn's fields and defaults)."""

    max_sequence_length: int
    d_model: int
    theta: float = 10000.0

    def init(self, device: Device) -> "RotaryEncoding":
        """Frequencies for positions ``0..max_sequence_length``; ValueError for an odd
        ``d_model`` or a non-positive ``theta``."""
        return self.init_with_frequency_scaling(lambda t: t, device)

    def init_with_frequency_scaling(self, scaling: Callable[[Tensor], Tensor],
                                    device: Device) -> "RotaryEncoding":
        """As :meth:`init`, with ``scaling`` applied to the ``[d_model / 2]`` frequencies first
        (e.g. Llama 3's long-context scaling)."""
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


class RotaryEncoding(Module):
    """Rotary positional encoding (fields ``freq_complex`` ``[max_sequence_length, d_model,
    2]``, ``theta`` ``[d_model / 2]``, ``start_offset``)."""

    def __init__(self, freq_complex: Tensor, theta: Tensor, start_offset: int) -> None:
        super().__init__()
        self.freq_complex = freq_complex
        self.theta = theta
        self.start_offset = start_offset

    def forward(self, x: Tensor) -> Tensor:
        """:meth:`apply` from position 0."""
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
