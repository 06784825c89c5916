"""Burn's ``PositionalEncoding``: fixed sinusoids added to the input (computed in float32, as Burn
computes them whatever the backend's float type; a constant, neither parameter nor recorded).
"""
from __future__ import annotations

import math

import torch

from .. import validate
from ..device import Device
from ..module import Config, Module, module_fields
from ..tensor import Tensor
from .checks import expect_input


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
    """Configuration of [`PositionalEncoding`][burn_torch.nn.pos_encoding.PositionalEncoding]
    (Burn's fields and defaults; ``d_model`` is the only required one, so it comes first
    positionally as in Burn's ``new(d_model)``)."""

    d_model: int
    max_sequence_size: int = 5000
    max_timescale: int = 10000

    def init(self, device: Device) -> "PositionalEncoding":
        validate.config_sizes(self, "d_model", "max_sequence_size", "max_timescale")
        table = generate_sinusoids(self.max_sequence_size, self.d_model, self.max_timescale,
                                   device)
        return PositionalEncoding(table.unsqueeze(3), self.max_sequence_size, self.max_timescale)


@module_fields
class PositionalEncoding(Module):
    """Adds the sinusoids to ``[batch, seq, d_model]`` (fields ``sinusoids`` ``[1,
    max_sequence_size, d_model]``, ``max_sequence_size``, ``max_timescale``)."""

    sinusoids: Tensor
    max_sequence_size: int
    max_timescale: int

    def forward(self, input: Tensor) -> Tensor:
        """``input + sinusoids[:, :seq]``; ValueError when the sequence is longer than
        ``max_sequence_size`` or ``d_model`` differs."""
        _, max_seq, d = self.sinusoids.dims()
        expect_input("PositionalEncoding", input, f"[batch, seq, {d}] (d_model {d})", 3, {2: d})
        seq = input._data.shape[1]
        if seq > max_seq:
            raise ValueError(f"max_sequence_size({max_seq}) must be greater or equal than "
                             f"length({seq})")
        table = self.sinusoids.slice([(0, 1), (0, seq)]).cast(input.dtype())
        return input + table
