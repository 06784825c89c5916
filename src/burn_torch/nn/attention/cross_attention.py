"""Burn's ``CrossAttention``: queries from one sequence attend over a context sequence of
another width (``d_context``), with grouped-query attention (``n_heads_kv`` key/value heads
shared by ``n_heads / n_heads_kv`` query heads each), and its ``CrossAttentionCache``.

Semantics kept from Burn (unlike its ``MultiHeadAttention``, and unlike torch's): dropout applies
to the attention *probabilities*; a masked key's score is ``min_float`` (default -1e4), not
-inf; the mask is a ``[batch, seq_k]`` padding mask, True where a key is masked out.
"""
from __future__ import annotations

import math

from ... import validate
from ...device import Device
from ...functional.activation import quiet_softmax, softmax
from ...module import Config, Module
from ...tensor import Tensor
from ..cache import TensorCache
from ..dropout import Dropout, DropoutConfig
from ..initializer import Initializer
from ..linear import Linear, LinearConfig


class CrossAttentionConfig(Config):
    """Configuration of [`CrossAttention`][burn_torch.nn.attention.CrossAttention] (Burn's fields
    and defaults)."""

    d_model: int
    d_context: int
    n_heads: int
    n_heads_kv: int
    d_head: int
    dropout: float = 0.1
    min_float: float = -1.0e4
    quiet_softmax: bool = False

    def init(self, device: Device) -> "CrossAttention":
        """Linear layers ``query`` ``[d_model, n_heads * d_head]``, ``key`` and ``value``
        ``[d_context, n_heads_kv * d_head]``, ``output`` ``[n_heads * d_head, d_model]``,
        Kaiming-uniform with gain ``1 / sqrt(d_head)`` (as Burn). ValueError unless
        ``n_heads_kv`` divides ``n_heads``."""
        validate.config_sizes(self, "d_model", "d_context", "n_heads", "n_heads_kv", "d_head")
        if self.n_heads % self.n_heads_kv:
            raise ValueError("Query heads must be divisible by KV heads")
        init = Initializer.kaiming_uniform(1.0 / math.sqrt(self.d_head), False)

        def linear(d_in: int, d_out: int) -> Linear:
            return LinearConfig(d_in, d_out).with_initializer(init).init(device)

        inner, inner_kv = self.n_heads * self.d_head, self.n_heads_kv * self.d_head
        return CrossAttention(linear(self.d_model, inner), linear(self.d_context, inner_kv),
                              linear(self.d_context, inner_kv), linear(inner, self.d_model),
                              DropoutConfig(self.dropout).init(), self.n_heads, self.n_heads_kv,
                              self.d_head, self.min_float, self.quiet_softmax)


class CrossAttentionCache:
    """Burn's ``CrossAttentionCache``: the context's key and value heads (``k``, ``v``),
    computed at the first call and reused (the context is fixed while decoding)."""

    def __init__(self) -> None:
        self.k = TensorCache.empty()
        self.v = TensorCache.empty()


class CrossAttention(Module):
    """Cross-attention (fields ``query``, ``key``, ``value``, ``output``, ``dropout``,
    ``n_heads``, ``n_heads_kv``, ``d_head``, ``scale``, ``min_float``, ``quiet_softmax``)."""

    def __init__(self, query: Linear, key: Linear, value: Linear, output: Linear,
                 dropout: Dropout, n_heads: int, n_heads_kv: int, d_head: int, min_float: float,
                 quiet_softmax: bool) -> None:
        super().__init__()
        self.query = query
        self.key = key
        self.value = value
        self.output = output
        self.dropout = dropout
        self.n_heads = n_heads
        self.n_heads_kv = n_heads_kv
        self.d_head = d_head
        self.scale = 1.0 / math.sqrt(d_head)
        self.min_float = min_float
        self.quiet_softmax = quiet_softmax

    def forward(self, query: Tensor, context: Tensor, mask: Tensor | None = None) -> Tensor:
        """query ``[batch, seq_q, d_model]``, context ``[batch, seq_k, d_context]``, mask
        ``[batch, seq_k]`` (True: masked) or None; returns ``[batch, seq_q, d_model]``."""
        return self._attend(query, self._kv(self.key, context), self._kv(self.value, context),
                            mask)

    def forward_cache(self, query: Tensor, context: Tensor, mask: Tensor | None,
                      cache: CrossAttentionCache) -> Tensor:
        """[`forward`][burn_torch.nn.attention.CrossAttention.forward] with the context's key and
        value heads from ``cache`` after the first call."""
        k = cache.k.forward_full(context, lambda c: self._kv(self.key, c))
        v = cache.v.forward_full(context, lambda c: self._kv(self.value, c))
        return self._attend(query, k, v, mask)

    def _kv(self, linear: Linear, context: Tensor) -> Tensor:
        validate.rank("CrossAttention.forward", "context", context, 3,
                      " [batch, seq_k, d_context]")
        batch, seq_k, _ = context.dims()
        return linear.forward(context).reshape(
            [batch, seq_k, self.n_heads_kv, self.d_head]).swap_dims(1, 2)

    def _attend(self, query: Tensor, k: Tensor, v: Tensor, mask: Tensor | None) -> Tensor:
        validate.rank("CrossAttention.forward", "query", query, 3, " [batch, seq_q, d_model]")
        batch, seq_q, _ = query.dims()
        seq_k = k.dims()[2]
        q = self.query.forward(query).reshape([batch, seq_q, self.n_heads, self.d_head])
        q = q.swap_dims(1, 2)
        if self.n_heads != self.n_heads_kv:
            k, v = self._repeat_kv(k), self._repeat_kv(v)
        scores = q.matmul(k.transpose()) * self.scale
        if mask is not None:
            if mask.dims() != [batch, seq_k]:
                raise ValueError(f"CrossAttention: mask must be [{batch}, {seq_k}], got "
                                 f"{mask.dims()}")
            scores = scores.mask_fill(mask.reshape([batch, 1, 1, seq_k]), self.min_float)
        weights = quiet_softmax(scores, 3) if self.quiet_softmax else softmax(scores, 3)
        out = self.dropout.forward(weights).matmul(v).swap_dims(1, 2)
        return self.output.forward(out.reshape([batch, seq_q, self.n_heads * self.d_head]))

    def _repeat_kv(self, x: Tensor) -> Tensor:
        """``[b, h_kv, l, d] -> [b, h_kv * n_rep, l, d]``, each kv head repeated in place."""
        b, h, length, d = x.dims()
        n_rep = self.n_heads // self.n_heads_kv
        return x.reshape([b, h, 1, length, d]).expand([b, h, n_rep, length, d]).reshape(
            [b, h * n_rep, length, d])
