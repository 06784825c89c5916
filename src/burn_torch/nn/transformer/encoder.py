"""Burn's ``TransformerEncoder`` (a stack of ``TransformerEncoderLayer``) and its
``PositionWiseFeedForward`` block.

Layer order as Burn's: with ``norm_first`` the layer computes ``x + mha(norm_2(x))`` then
``x + pwff(norm_1(x))``; otherwise ``norm_1(x + mha(x))`` then ``norm_2(x + pwff(x))``. One
``dropout`` module is applied to both residual branches.
"""
from __future__ import annotations

from dataclasses import dataclass, replace

from ... import validate
from ...device import Device
from ...module import Config, Module, module_fields
from ...tensor import Tensor
from ..activation.activation_wrapper import ActivationConfig
from ..attention.mha import MhaInput, MultiHeadAttention, MultiHeadAttentionConfig
from ..dropout import Dropout, DropoutConfig
from ..initializer import Initializer
from ..norm.layer import LayerNorm, LayerNormConfig
from .pwff import _DEFAULT_INIT, PositionWiseFeedForward, PositionWiseFeedForwardConfig


class TransformerEncoderConfig(Config):
    """Configuration of [`TransformerEncoder`][burn_torch.nn.transformer.TransformerEncoder] (Burn's
    fields and defaults; the ``attention_dropout``, ``ffn_dropout`` and ``residual_dropout`` rates
    fall back to ``dropout`` when None)."""

    d_model: int
    d_ff: int
    n_heads: int
    n_layers: int
    dropout: float = 0.1
    attention_dropout: float | None = None
    ffn_dropout: float | None = None
    residual_dropout: float | None = None
    norm_first: bool = False
    quiet_softmax: bool = False
    initializer: Initializer = _DEFAULT_INIT
    activation: ActivationConfig = ActivationConfig.gelu()
    layer_norm_eps: float = 1e-5

    def init(self, device: Device) -> "TransformerEncoder":
        validate.config_sizes(self, "d_model", "d_ff", "n_heads", "n_layers")
        return TransformerEncoder([TransformerEncoderLayer.new(self, device)
                                   for _ in range(self.n_layers)], self)


def _rate(value: float | None, default: float) -> float:
    return default if value is None else value


@module_fields
class TransformerEncoderLayer(Module):
    """One encoder layer: fields ``mha``, ``pwff``, ``norm_1``, ``norm_2``, ``dropout`` and
    ``norm_first`` (see the module docstring for the order they apply in)."""

    mha: MultiHeadAttention
    pwff: PositionWiseFeedForward
    norm_1: LayerNorm
    norm_2: LayerNorm
    dropout: Dropout
    norm_first: bool

    @classmethod
    def new(cls, config: TransformerEncoderConfig, device: Device) -> "TransformerEncoderLayer":
        """A layer configured by ``config``, with fresh parameters on ``device``."""
        mha = (MultiHeadAttentionConfig(config.d_model, config.n_heads)
               .with_initializer(config.initializer)
               .with_dropout(_rate(config.attention_dropout, config.dropout))
               .with_quiet_softmax(config.quiet_softmax).init(device))
        norm = LayerNormConfig(config.d_model).with_epsilon(config.layer_norm_eps)
        pwff = (PositionWiseFeedForwardConfig(config.d_model, config.d_ff)
                .with_initializer(config.initializer)
                .with_dropout(_rate(config.ffn_dropout, config.dropout))
                .with_activation(config.activation).init(device))
        dropout = DropoutConfig(_rate(config.residual_dropout, config.dropout)).init()
        return cls(mha, pwff, norm.init(device), norm.init(device), dropout, config.norm_first)

    def forward(self, input: Tensor, mask_pad: Tensor | None = None,
                mask_attn: Tensor | None = None) -> Tensor:
        """``[batch, seq, d_model] -> [batch, seq, d_model]``."""
        x = input
        residual = self.norm_2.forward(x) if self.norm_first else x
        mha_input = MhaInput(residual, residual, residual, mask_pad, mask_attn)
        x = x + self.dropout.forward(self.mha.forward(mha_input).context)
        if self.norm_first:
            residual = self.norm_1.forward(x)
        else:
            x = residual = self.norm_1.forward(x)
        x = x + self.dropout.forward(self.pwff.forward(residual))
        return x if self.norm_first else self.norm_2.forward(x)


@dataclass(frozen=True)
class TransformerEncoderInput:
    """The input of
    [`TransformerEncoder.forward`][burn_torch.nn.transformer.TransformerEncoder.forward]: ``tensor``
    ``[batch, seq, d_model]`` and optional Bool masks (see
    [`MhaInput`][burn_torch.nn.attention.MhaInput])."""

    tensor: Tensor
    mask_pad_tensor: Tensor | None = None
    mask_attn_tensor: Tensor | None = None

    def mask_pad(self, mask_pad: Tensor) -> "TransformerEncoderInput":
        """This input with the padding mask ``[batch, seq]`` (True: padded)."""
        return replace(self, mask_pad_tensor=mask_pad)

    def mask_attn(self, mask_attn: Tensor) -> "TransformerEncoderInput":
        """This input with the attention mask ``[batch, seq, seq]`` (True: masked)."""
        return replace(self, mask_attn_tensor=mask_attn)


class TransformerStack(Module):
    """What the encoder and decoder stacks share: field ``layers`` and Burn's constants
    ``d_model``, ``d_ff``, ``n_heads``, ``n_layers``, ``dropout``, ``norm_first``,
    ``quiet_softmax``, copied from their config."""

    def __init__(self, layers: list, config) -> None:
        super().__init__()
        self.layers = layers
        self.d_model = config.d_model
        self.d_ff = config.d_ff
        self.n_heads = config.n_heads
        self.n_layers = config.n_layers
        self.dropout = config.dropout
        self.norm_first = config.norm_first
        self.quiet_softmax = config.quiet_softmax


class TransformerEncoder(TransformerStack):
    """A stack of [`TransformerEncoderLayer`][burn_torch.nn.transformer.TransformerEncoderLayer]
    (fields as ``TransformerStack``)."""

    def __init__(self, layers: list[TransformerEncoderLayer],
                 config: TransformerEncoderConfig) -> None:
        super().__init__(layers, config)

    def forward(self, input: TransformerEncoderInput) -> Tensor:
        """``[batch, seq, d_model] -> [batch, seq, d_model]``."""
        x = input.tensor
        for layer in self.layers:
            x = layer.forward(x, input.mask_pad_tensor, input.mask_attn_tensor)
        return x
