"""Burn's inference caches (``burn::nn::cache``): a [`TensorCache`][burn_torch.nn.cache.TensorCache]
keeps the value a layer computed at the previous decoding step, so that autoregressive decoding
computes only the newest position.

``forward_autoregressive(tensor, dim_cat, func)``: the first call computes ``func(tensor)``;
later calls compute ``func`` on the last position of ``tensor`` (``[batch, seq, d]``) only and
concatenate it to the cached value along ``dim_cat``. ``forward_full(tensor, func)``: the first
call computes ``func(tensor)``, later calls return the cached value (a fixed memory, as the
keys and values of cross-attention).
"""
from __future__ import annotations

from typing import Callable

from ..tensor import Tensor


class TensorCache:
    """One cached tensor (empty until its first use)."""

    def __init__(self) -> None:
        self.value: Tensor | None = None

    @classmethod
    def empty(cls) -> "TensorCache":
        return cls()

    def forward_autoregressive(self, tensor: Tensor, dim_cat: int,
                               func: Callable[[Tensor], Tensor]) -> Tensor:
        """See the module docstring; ``tensor`` is ``[batch, seq, d]``."""
        if self.value is None:
            out = func(tensor)
        else:
            batch, seq, d = tensor.dims()
            newest = func(tensor.slice([(0, batch), (seq - 1, seq), (0, d)]))
            out = Tensor.cat([self.value, newest], dim_cat)
        self.value = out
        return out

    def forward_full(self, tensor: Tensor, func: Callable[[Tensor], Tensor]) -> Tensor:
        """See the module docstring."""
        if self.value is None:
            self.value = func(tensor)
        return self.value
