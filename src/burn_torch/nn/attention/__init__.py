"""Burn's attention (``burn::nn::attention``): ``MultiHeadAttention`` (``mha``),
``CrossAttention`` and the mask helpers (``mask``).
"""
from .cross_attention import CrossAttention, CrossAttentionCache, CrossAttentionConfig
from .mask import (generate_autoregressive_mask, generate_padding_mask, GeneratePaddingMask,
                   SeqLengthOption)
from .mha import MhaCache, MhaInput, MhaOutput, MultiHeadAttention, MultiHeadAttentionConfig

__all__ = [
    "CrossAttention", "CrossAttentionCache", "CrossAttentionConfig",
    "generate_autoregressive_mask", "generate_padding_mask", "GeneratePaddingMask",
    "SeqLengthOption", "MhaCache", "MhaInput", "MhaOutput", "MultiHeadAttention",
    "MultiHeadAttentionConfig",
]
