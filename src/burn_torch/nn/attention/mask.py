"""Burn's attention-mask helpers (``burn::nn::attention``):
[`generate_padding_mask`][burn_torch.nn.attention.generate_padding_mask] (pads token lists to one
length and marks the padding) and
[`generate_autoregressive_mask`][burn_torch.nn.attention.generate_autoregressive_mask] (the causal
mask). Masks are Bool tensors, True where a position is masked out.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import NamedTuple, Sequence

import torch

from ...device import Device
from ...tensor import Tensor


def generate_autoregressive_mask(batch_size: int, seq_length: int, device: Device) -> Tensor:
    """Burn's causal mask ``[batch, seq, seq]``: True above the diagonal (future positions,
    masked out)."""
    mask = torch.ones(seq_length, seq_length, dtype=torch.bool).triu(1)
    return Tensor.from_data(mask.expand(batch_size, seq_length, seq_length).contiguous(), device)


@dataclass(frozen=True)
class SeqLengthOption:
    """Burn's ``SeqLengthOption``: ``no_max()`` (the longest list's length), ``max(n)`` (that,
    at most ``n``) or ``fixed(n)`` (exactly ``n``). ``None`` and an int convert as Burn's
    ``From<Option<usize>>``: ``no_max()`` and ``max(n)``."""

    kind: str
    value: int = 0

    @classmethod
    def no_max(cls) -> "SeqLengthOption":
        return cls("no_max")

    @classmethod
    def max(cls, n: int) -> "SeqLengthOption":
        return cls("max", n)

    @classmethod
    def fixed(cls, n: int) -> "SeqLengthOption":
        return cls("fixed", n)


class GeneratePaddingMask(NamedTuple):
    """``tensor``: the Int tokens ``[batch, seq]`` padded with the pad token; ``mask``: Bool
    ``[batch, seq]``, True where ``tensor`` holds the pad token."""

    tensor: Tensor
    mask: Tensor


def generate_padding_mask(pad_token: int, tokens_list: Sequence[Sequence[int]],
                          seq_length: "SeqLengthOption | int | None",
                          device: Device) -> GeneratePaddingMask:
    """Burn's ``generate_padding_mask``: each list truncated or padded with ``pad_token`` to the
    length ``seq_length`` gives; the mask is True wherever the result equals ``pad_token`` (a
    real token equal to it is masked too, as in Burn). TypeError for another ``seq_length``."""
    if seq_length is None:
        seq_length = SeqLengthOption.no_max()
    elif isinstance(seq_length, int) and not isinstance(seq_length, bool):
        seq_length = SeqLengthOption.max(seq_length)
    elif not isinstance(seq_length, SeqLengthOption):
        raise TypeError(f"generate_padding_mask: seq_length must be a SeqLengthOption, an int or "
                        f"None, got {seq_length!r}")
    longest = max((len(t) for t in tokens_list), default=1)
    size = {"no_max": longest, "max": min(longest, seq_length.value),
            "fixed": seq_length.value}[seq_length.kind]
    data = torch.full((len(tokens_list), size), pad_token, dtype=torch.int64)
    for row, tokens in enumerate(tokens_list):
        n = min(len(tokens), size)
        data[row, :n] = torch.tensor(list(tokens)[:n], dtype=torch.int64)
    return GeneratePaddingMask(Tensor.from_data(data, device),
                               Tensor.from_data(data == pad_token, device))
