"""Burn's transformer (``burn::nn::transformer``): ``TransformerEncoder``
(``encoder``), ``TransformerDecoder`` (``decoder``) and their ``PositionWiseFeedForward`` block
(``pwff``).
"""
from .decoder import (TransformerDecoder, TransformerDecoderAutoregressiveCache,
                      TransformerDecoderConfig, TransformerDecoderInput, TransformerDecoderLayer,
                      TransformerDecoderLayerAutoregressiveCache)
from .encoder import (TransformerEncoder, TransformerEncoderConfig, TransformerEncoderInput,
                      TransformerEncoderLayer)
from .pwff import PositionWiseFeedForward, PositionWiseFeedForwardConfig

__all__ = [
    "TransformerDecoder", "TransformerDecoderAutoregressiveCache", "TransformerDecoderConfig",
    "TransformerDecoderInput", "TransformerDecoderLayer",
    "TransformerDecoderLayerAutoregressiveCache", "TransformerEncoder", "TransformerEncoderConfig",
    "TransformerEncoderInput", "TransformerEncoderLayer", "PositionWiseFeedForward",
    "PositionWiseFeedForwardConfig",
]
