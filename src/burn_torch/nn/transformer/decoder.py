"""Burn's ``TransformerDecoder`` (a stack of ``TransformerDecoderLayer``), its input and its
autoregressive cache.

Layer order as Burn's. Without ``norm_first``: ``x = norm_1(x + self_attn(x))``, ``x = norm_2(x
+ cross_attn(x, memory))``, ``x = norm_3(x + pwff(x))``. With ``norm_first``: ``x = x +
self_attn(norm_3(x))``, ``x = x + cross_attn(norm_1(x), memory)``, ``x = x + pwff(norm_2(x))``
(torch's ``norm1``/``norm2``/``norm3`` are, in both modes, the norms of the self-attention,
cross-attention and feed-forward blocks: the state-dict adapter maps them). One ``dropout``
module applies to the three residual branches.

[`TransformerDecoder.forward_autoregressive_inference`][burn_torch.nn.transformer.TransformerDecoder.forward_autoregressive_inference]
takes the whole target sequence decoded so far and a cache
([`TransformerDecoder.new_autoregressive_cache`][burn_torch.nn.transformer.TransformerDecoder.new_autoregressive_cache])
holding what earlier calls computed: each call computes the newest position only, and returns the
whole sequence's output, equal to
[`TransformerDecoder.forward`][burn_torch.nn.transformer.TransformerDecoder.forward] with a causal
mask.
"""
from __future__ import annotations

import math
from dataclasses import dataclass, replace

from ... import validate
from ...device import Device
from ...module import Config, Module, module_fields
from ...tensor import Tensor
from ..activation.activation_wrapper import ActivationConfig
from ..attention.mha import MhaCache, MhaInput, MultiHeadAttention, MultiHeadAttentionConfig
from ..cache import TensorCache
from ..dropout import Dropout, DropoutConfig
from ..initializer import Initializer
from ..norm.layer import LayerNorm, LayerNormConfig
from .encoder import TransformerStack
from .pwff import PositionWiseFeedForward, PositionWiseFeedForwardConfig


_DEFAULT_INIT = Initializer.kaiming_uniform(1.0 / math.sqrt(3.0), False)


class TransformerDecoderConfig(Config):
    """Configuration of [`TransformerDecoder`][burn_torch.nn.transformer.TransformerDecoder] (Burn's
    fields and defaults)."""

    d_model: int
    d_ff: int
    n_heads: int
    n_layers: int
    dropout: float = 0.1
    norm_first: bool = False
    quiet_softmax: bool = False
    initializer: Initializer = _DEFAULT_INIT
    activation: ActivationConfig = ActivationConfig.gelu()
    layer_norm_eps: float = 1e-5

    def init(self, device: Device) -> "TransformerDecoder":
        """``n_layers`` fresh layers on ``device``; ValueError unless ``n_heads`` divides
        ``d_model``."""
        validate.config_sizes(self, "d_model", "d_ff", "n_heads", "n_layers")
        return TransformerDecoder([TransformerDecoderLayer.new(self, device)
                                   for _ in range(self.n_layers)], self)


@dataclass(frozen=True)
class TransformerDecoderInput:
    """The input of
    [`TransformerDecoder.forward`][burn_torch.nn.transformer.TransformerDecoder.forward]: ``target``
    ``[batch, seq_t, d_model]``, ``memory`` ``[batch, seq_m, d_model]`` and optional Bool masks
    (True: masked out)."""

    target: Tensor
    memory: Tensor
    target_mask_pad_tensor: Tensor | None = None
    target_mask_attn_tensor: Tensor | None = None
    memory_mask_pad_tensor: Tensor | None = None
    memory_mask_attn_tensor: Tensor | None = None

    def target_mask_pad(self, mask_pad: Tensor) -> "TransformerDecoderInput":
        """With the target padding mask ``[batch, seq_t]``."""
        return replace(self, target_mask_pad_tensor=mask_pad)

    def target_mask_attn(self, mask_attn: Tensor) -> "TransformerDecoderInput":
        """With the target attention mask ``[batch, seq_t, seq_t]`` (e.g. causal)."""
        return replace(self, target_mask_attn_tensor=mask_attn)

    def memory_mask_pad(self, mask_pad: Tensor) -> "TransformerDecoderInput":
        """With the memory padding mask ``[batch, seq_m]``."""
        return replace(self, memory_mask_pad_tensor=mask_pad)

    def memory_mask_attn(self, mask_attn: Tensor) -> "TransformerDecoderInput":
        """With the memory attention mask ``[batch, seq_t, seq_m]``."""
        return replace(self, memory_mask_attn_tensor=mask_attn)


class TransformerDecoderLayerAutoregressiveCache:
    """One layer's cache: ``cross_attn``, ``self_attn``
    ([`MhaCache`][burn_torch.nn.attention.MhaCache]), ``pwff``, ``norm_1``, ``norm_2``, ``norm_3``
    ([`TensorCache`][burn_torch.nn.cache.TensorCache])."""

    def __init__(self) -> None:
        self.cross_attn = MhaCache.autoregressive_cross_attention()
        self.self_attn = MhaCache.autoregressive()
        self.pwff = TensorCache.empty()
        self.norm_1 = TensorCache.empty()
        self.norm_2 = TensorCache.empty()
        self.norm_3 = TensorCache.empty()

    @classmethod
    def empty(cls) -> "TransformerDecoderLayerAutoregressiveCache":
        return cls()


class TransformerDecoderAutoregressiveCache:
    """One
    [`TransformerDecoderLayerAutoregressiveCache`][burn_torch.nn.transformer.TransformerDecoderLayerAutoregressiveCache]
    per layer (field ``layers``)."""

    def __init__(self, num_layers: int) -> None:
        self.layers = [TransformerDecoderLayerAutoregressiveCache.empty()
                       for _ in range(num_layers)]


class _Direct:
    """The no-cache stand-in: every block computed on the whole sequence."""

    @staticmethod
    def norm(cache, norm: LayerNorm, x: Tensor) -> Tensor:
        return norm.forward(x)

    @staticmethod
    def attn(mha: MultiHeadAttention, cache, input: MhaInput) -> Tensor:
        return mha.forward(input).context


class _Cached:
    """Every block through its cache (Burn's ``forward_autoregressive_inference``)."""

    @staticmethod
    def norm(cache: TensorCache, norm: LayerNorm, x: Tensor) -> Tensor:
        return cache.forward_autoregressive(x, 1, norm.forward)

    @staticmethod
    def attn(mha: MultiHeadAttention, cache: MhaCache, input: MhaInput) -> Tensor:
        return mha.forward_cache(input, cache).context


@module_fields
class TransformerDecoderLayer(Module):
    """One decoder layer: fields ``cross_attn``, ``self_attn``, ``pwff``, ``norm_1``,
    ``norm_2``, ``norm_3``, ``dropout``, ``norm_first`` (order: module docstring)."""

    cross_attn: MultiHeadAttention
    self_attn: MultiHeadAttention
    pwff: PositionWiseFeedForward
    norm_1: LayerNorm
    norm_2: LayerNorm
    norm_3: LayerNorm
    dropout: Dropout
    norm_first: bool

    @classmethod
    def new(cls, config: TransformerDecoderConfig, device: Device) -> "TransformerDecoderLayer":
        """A layer configured by ``config``, with fresh parameters on ``device``."""
        mha = (MultiHeadAttentionConfig(config.d_model, config.n_heads)
               .with_initializer(config.initializer).with_dropout(config.dropout)
               .with_quiet_softmax(config.quiet_softmax))
        norm = LayerNormConfig(config.d_model).with_epsilon(config.layer_norm_eps)
        pwff = (PositionWiseFeedForwardConfig(config.d_model, config.d_ff)
                .with_initializer(config.initializer).with_dropout(config.dropout)
                .with_activation(config.activation))
        return cls(mha.init(device), mha.init(device), pwff.init(device), norm.init(device),
                   norm.init(device), norm.init(device), DropoutConfig(config.dropout).init(),
                   config.norm_first)

    def forward(self, input: TransformerDecoderInput) -> TransformerDecoderInput:
        """The input with ``target`` replaced by this layer's output."""
        return self._run(input, _Direct, TransformerDecoderLayerAutoregressiveCache.empty())

    def forward_autoregressive_inference(
            self, input: TransformerDecoderInput,
            cache: TransformerDecoderLayerAutoregressiveCache) -> TransformerDecoderInput:
        """[`forward`][burn_torch.nn.transformer.TransformerDecoderLayer.forward] computing only the
        newest target position (``cache`` updated)."""
        return self._run(input, _Cached, cache)

    def _run(self, input: TransformerDecoderInput, how, cache) -> TransformerDecoderInput:
        x = input.target
        residual = how.norm(cache.norm_3, self.norm_3, x) if self.norm_first else x
        self_input = MhaInput(residual, residual, residual, input.target_mask_pad_tensor,
                              input.target_mask_attn_tensor)
        x = x + self.dropout.forward(how.attn(self.self_attn, cache.self_attn, self_input))
        if self.norm_first:
            residual = how.norm(cache.norm_1, self.norm_1, x)
        else:
            x = residual = how.norm(cache.norm_1, self.norm_1, x)
        cross_input = MhaInput(residual, input.memory, input.memory,
                               input.memory_mask_pad_tensor, input.memory_mask_attn_tensor)
        x = x + self.dropout.forward(how.attn(self.cross_attn, cache.cross_attn, cross_input))
        if self.norm_first:
            residual = how.norm(cache.norm_2, self.norm_2, x)
        else:
            x = residual = how.norm(cache.norm_2, self.norm_2, x)
        if how is _Cached:
            residual = cache.pwff.forward_autoregressive(residual, 1, self.pwff.forward)
        else:
            residual = self.pwff.forward(residual)
        x = x + self.dropout.forward(residual)
        if not self.norm_first:
            x = how.norm(cache.norm_3, self.norm_3, x)
        return replace(input, target=x)


class TransformerDecoder(TransformerStack):
    """A stack of [`TransformerDecoderLayer`][burn_torch.nn.transformer.TransformerDecoderLayer]
    (fields as ``TransformerStack``)."""

    def __init__(self, layers: list[TransformerDecoderLayer],
                 config: TransformerDecoderConfig) -> None:
        super().__init__(layers, config)

    def forward(self, input: TransformerDecoderInput) -> Tensor:
        """``[batch, seq_t, d_model] -> [batch, seq_t, d_model]``."""
        for layer in self.layers:
            input = layer.forward(input)
        return input.target

    def forward_autoregressive_inference(self, input: TransformerDecoderInput,
                                         cache: TransformerDecoderAutoregressiveCache) -> Tensor:
        """The output for the whole target so far, computing its newest position only."""
        if len(cache.layers) != len(self.layers):
            raise ValueError(f"TransformerDecoder: the cache has {len(cache.layers)} layers, "
                             f"the decoder {len(self.layers)}")
        for layer, layer_cache in zip(self.layers, cache.layers):
            input = layer.forward_autoregressive_inference(input, layer_cache)
        return input.target

    def new_autoregressive_cache(self) -> TransformerDecoderAutoregressiveCache:
        """An empty cache for
        [`forward_autoregressive_inference`][burn_torch.nn.transformer.TransformerDecoder.forward_autoregressive_inference]."""
        return TransformerDecoderAutoregressiveCache(len(self.layers))
