"""Burn's ``MultiHeadAttention`` with its ``MhaInput`` / ``MhaOutput`` conventions.

Semantics kept from Burn (they differ from ``torch.nn.MultiheadAttention``): dropout applies to
the scaled scores *before* masking and softmax; masked scores are filled with ``min_float``
(default -1e4) rather than -inf; the output holds the per-head attention ``weights``
``[batch, n_heads, seq_q, seq_k]`` as well as the ``context``. Masks are Bool tensors, True
where a position must not be attended to.
"""
from __future__ import annotations

import math
from dataclasses import dataclass, replace
from typing import NamedTuple

import torch

from ... import validate
from ...autodiff.recorder import apply2
from ...device import Device
from ...functional.activation import quiet_softmax, softmax
from ...methods.index import as_mask
from ...module import Config, Module
from ...ops import nn as nn_ops
from ...tensor import Tensor
from ..cache import TensorCache
from ..dropout import Dropout, DropoutConfig
from ..initializer import Initializer
from ..linear import Linear, LinearConfig


class MultiHeadAttentionConfig(Config):
    """Configuration of [`MultiHeadAttention`][burn_torch.nn.attention.MultiHeadAttention] (Burn's
    fields and defaults)."""

    d_model: int
    n_heads: int
    dropout: float = 0.1
    min_float: float = -1.0e4
    quiet_softmax: bool = False
    initializer: Initializer = Initializer.kaiming_uniform(1.0 / math.sqrt(3.0), False)
    enable_key_bias: bool = True
    enable_value_bias: bool = True
    enable_query_bias: bool = True
    enable_output_bias: bool = True

    def init(self, device: Device) -> "MultiHeadAttention":
        """Four ``[d_model, d_model]`` Linear layers; ValueError unless ``n_heads`` divides
        ``d_model``."""
        validate.config_sizes(self, "d_model", "n_heads")
        if self.d_model % self.n_heads:
            raise ValueError(f"MultiHeadAttention: d_model ({self.d_model}) must be divisible "
                             f"by n_heads ({self.n_heads})")
        linear = LinearConfig(self.d_model, self.d_model).with_initializer(self.initializer)
        return MultiHeadAttention(
            query=linear.with_bias(self.enable_query_bias).init(device),
            key=linear.with_bias(self.enable_key_bias).init(device),
            value=linear.with_bias(self.enable_value_bias).init(device),
            output=linear.with_bias(self.enable_output_bias).init(device),
            dropout=DropoutConfig(self.dropout).init(),
            n_heads=self.n_heads, min_float=self.min_float, quiet_softmax=self.quiet_softmax)


@dataclass(frozen=True)
class MhaInput:
    """The input of
    [`MultiHeadAttention.forward`][burn_torch.nn.attention.MultiHeadAttention.forward]: ``query``
    ``[batch, seq_q, d_model]``, ``key`` and ``value`` ``[batch, seq_k, d_model]``, optional Bool
    masks ``mask_pad`` ``[batch, seq_k]`` and ``mask_attn`` ``[batch, seq_q, seq_k]``."""

    query: Tensor
    key: Tensor
    value: Tensor
    mask_pad_tensor: Tensor | None = None
    mask_attn_tensor: Tensor | None = None

    @classmethod
    def self_attn(cls, tensor: Tensor) -> "MhaInput":
        """Query, key and value all ``tensor``."""
        return cls(tensor, tensor, tensor)

    def mask_pad(self, mask_pad: Tensor) -> "MhaInput":
        """This input with the padding mask ``[batch, seq_k]`` (True: a padded key)."""
        return replace(self, mask_pad_tensor=mask_pad)

    def mask_attn(self, mask_attn: Tensor) -> "MhaInput":
        """This input with the attention mask ``[batch, seq_q, seq_k]`` (True: masked)."""
        return replace(self, mask_attn_tensor=mask_attn)


class MhaOutput(NamedTuple):
    """``weights`` ``[batch, n_heads, seq_q, seq_k]`` and ``context`` ``[batch, seq_q, d_model]``."""

    weights: Tensor
    context: Tensor


def mha_weights(query: Tensor, key: Tensor, mask_pad: Tensor | None, mask_attn: Tensor | None,
                divisor: float, fill: float, drop: "torch.Tensor | None" = None) -> Tensor:
    """``softmax(mask_fill(query keyᵀ / divisor * drop), dim=3)`` as one step (the
    ``mha_weights`` op-table entry), the masked scores set to ``fill``: the weights of
    [`MultiHeadAttention`][burn_torch.nn.attention.MultiHeadAttention]. ``query`` ``[batch, heads,
    seq_q, d_k]``, ``key`` ``[batch, heads, seq_k, d_k]``; the Bool masks, True where masked,
    ``mask_pad`` ``[batch, seq_k]`` and ``mask_attn`` ``[batch, seq_q, seq_k]`` (shapes checked by
    the module); ``drop``, when given, the scaled dropout mask of the scores
    (``Dropout.scaled_mask``). TypeError for a mask that is not Bool."""
    batch, _, seq_q, _ = query._data.shape
    seq_k = key._data.shape[2]
    mask = None
    if mask_pad is not None:
        mask = as_mask(mask_pad, "mask_fill").reshape(batch, 1, 1, seq_k)
    if mask_attn is not None:
        attn = as_mask(mask_attn, "mask_fill").reshape(batch, 1, seq_q, seq_k)
        mask = attn if mask is None else mask | attn
    return apply2(nn_ops.MHA_WEIGHTS, query, key, (mask, divisor, fill, drop))


class MultiHeadAttention(Module):
    """Multi-head attention (Attention Is All You Need), Burn's fields: the Linear layers
    ``query``, ``key``, ``value``, ``output`` (weights ``[d_model, d_model]`` in Burn's ``[in,
    out]`` layout), ``dropout``, and the constants ``d_model``, ``n_heads``, ``d_k``,
    ``min_float``, ``quiet_softmax``."""

    def __init__(self, query: Linear, key: Linear, value: Linear, output: Linear,
                 dropout: Dropout, n_heads: int, min_float: float, quiet_softmax: bool) -> None:
        super().__init__()
        self.query = query
        self.key = key
        self.value = value
        self.output = output
        self.dropout = dropout
        self.d_model = query.weight.val().dims()[0]
        self.n_heads = n_heads
        self.d_k = self.d_model // n_heads
        self.min_float = min_float
        self.quiet_softmax = quiet_softmax

    def forward(self, input: MhaInput) -> MhaOutput:
        """Attention of ``input.query`` over ``input.key`` / ``input.value``.

        ValueError when the tensors are not ``[batch, seq, d_model]`` with matching batch (and
        key/value lengths) or a mask's shape does not match.
        """
        batch, seq_q, seq_k = self._check(input)
        query = self._heads(self.query, input.query)
        key = self._heads(self.key, input.key)
        value = self._heads(self.value, input.value)
        weights = self._weights(query, key, input)
        context = weights.matmul(value).swap_dims(1, 2).reshape([batch, seq_q, self.d_model])
        return MhaOutput(weights, self.output.forward(context))

    def forward_cache(self, input: MhaInput, cache: "MhaCache") -> MhaOutput:
        """[`forward`][burn_torch.nn.attention.MultiHeadAttention.forward] for autoregressive
        decoding: the projections of the positions seen at earlier steps come from ``cache``
        (updated in place), only the newest is computed (see
        [`MhaCache`][burn_torch.nn.attention.MhaCache]). ``input`` holds the whole sequence so
        far."""
        batch, seq_q, _ = self._check(input)
        query = cache.query.forward(input.query, lambda t: self._heads(self.query, t))
        key = cache.key.forward(input.key, lambda t: self._heads(self.key, t))
        value = cache.value.forward(input.value, lambda t: self._heads(self.value, t))
        weights = self._weights(query, key, input)
        context = weights.matmul(value).swap_dims(1, 2).reshape([batch, seq_q, self.d_model])
        return MhaOutput(weights, cache.output.forward(context, self.output.forward))

    def _weights(self, query: Tensor, key: Tensor, input: MhaInput) -> Tensor:
        """Burn's order: scaled scores, dropout, masks (``min_float``), softmax over keys. With the
        plain softmax and a query and key of one dtype: one ``mha_weights`` step (the same
        values and dropout draws, fewer kernels and steps)."""
        if not self.quiet_softmax and query._data.dtype is key._data.dtype:
            drop = None
            if self.dropout.is_active(query) or self.dropout.is_active(key):
                qs, ks = query._data.shape, key._data.shape  # the scores' mask, drawn as Burn's
                drop = self.dropout.scaled_mask((qs[0], qs[1], qs[2], ks[2]), query)
            return mha_weights(query, key, input.mask_pad_tensor, input.mask_attn_tensor,
                               math.sqrt(self.d_k), self.min_float, drop)
        batch, _, seq_q, _ = query.dims()
        seq_k = key.dims()[2]
        scores = self.dropout.forward(query.matmul(key.transpose()) / math.sqrt(self.d_k))
        if input.mask_pad_tensor is not None:
            scores = scores.mask_fill(input.mask_pad_tensor.reshape([batch, 1, 1, seq_k]),
                                      self.min_float)
        if input.mask_attn_tensor is not None:
            scores = scores.mask_fill(input.mask_attn_tensor.reshape([batch, 1, seq_q, seq_k]),
                                      self.min_float)
        return quiet_softmax(scores, 3) if self.quiet_softmax else softmax(scores, 3)

    def _heads(self, linear: Linear, x: Tensor) -> Tensor:
        """``[batch, seq, d_model] -> [batch, n_heads, seq, d_k]``."""
        batch, seq, _ = x.dims()
        return linear.forward(x).reshape([batch, seq, self.n_heads, self.d_k]).swap_dims(1, 2)

    def _check(self, input: MhaInput) -> tuple[int, int, int]:
        shapes = [t.dims() for t in (input.query, input.key, input.value)]
        q, k, v = shapes
        if (any(len(s) != 3 or s[2] != self.d_model for s in shapes) or not q[0] == k[0] == v[0]
                or k[1] != v[1]):
            raise ValueError(f"MultiHeadAttention: expected query [batch, seq_q, {self.d_model}] "
                             f"and key/value [batch, seq_k, {self.d_model}], got {q}, {k}, {v}")
        batch, seq_q, seq_k = q[0], q[1], k[1]
        for name, mask, want in (("mask_pad", input.mask_pad_tensor, [batch, seq_k]),
                                 ("mask_attn", input.mask_attn_tensor, [batch, seq_q, seq_k])):
            if mask is not None and mask.dims() != want:
                raise ValueError(f"MultiHeadAttention: {name} must be {want}, got {mask.dims()}")
        return batch, seq_q, seq_k

    def __repr__(self) -> str:
        return (f"MultiHeadAttention {{d_model: {self.d_model}, n_heads: {self.n_heads}, d_k: "
                f"{self.d_k}, dropout: {self.dropout.prob}, min_float: {self.min_float}, "
                f"quiet_softmax: {self.quiet_softmax}, params: {self.num_params()}}}")


class _LinearCache:
    """One projection's cache: autoregressive along ``dim`` or, with ``dim`` None, full."""

    def __init__(self, dim: int | None) -> None:
        self.cache = TensorCache.empty()
        self.dim = dim

    def forward(self, tensor: Tensor, func) -> Tensor:
        if self.dim is None:
            return self.cache.forward_full(tensor, func)
        return self.cache.forward_autoregressive(tensor, self.dim, func)


class MhaCache:
    """Burn's ``MhaCache``: the cached query, key, value and output projections of a
    [`MultiHeadAttention`][burn_torch.nn.attention.MultiHeadAttention] during autoregressive
    decoding. [`autoregressive`][burn_torch.nn.attention.MhaCache.autoregressive] appends the newest
    position at each step (self-attention);
    [`autoregressive_cross_attention`][burn_torch.nn.attention.MhaCache.autoregressive_cross_attention]
    computes the key and value projections of the fixed memory once."""

    def __init__(self, query: _LinearCache, key: _LinearCache, value: _LinearCache,
                 output: _LinearCache) -> None:
        self.query = query
        self.key = key
        self.value = value
        self.output = output

    @classmethod
    def autoregressive(cls) -> "MhaCache":
        return cls(_LinearCache(2), _LinearCache(2), _LinearCache(2), _LinearCache(1))

    @classmethod
    def autoregressive_cross_attention(cls) -> "MhaCache":
        return cls(_LinearCache(2), _LinearCache(None), _LinearCache(None), _LinearCache(1))
