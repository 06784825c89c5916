"""Neural-network layers and losses (Burn's ``burn::nn``), built on ``burn_torch.module``.

How a layer is written (every layer here follows it; new layers must too):

1. A ``XxxConfig(Config)`` declares the hyperparameters as annotated fields with Burn's names
   and defaults (``LinearConfig(d_input, d_output).with_bias(False)``); ``Config`` makes it a
   frozen value with ``with_<field>`` builders.
2. ``XxxConfig.init(device) -> Xxx`` creates the parameters, each a :class:`~burn_torch.module.Param`
   (usually through an :class:`Initializer`: ``init_with(shape, fan_in, fan_out, device)``),
   with Burn's shapes and layouts (``Linear.weight`` is ``[d_input, d_output]``). Configs of
   layers without parameters (pools, ``Dropout``, ``LeakyRelu``) take no device, as Burn's:
   ``DropoutConfig(0.1).init()``; parameterless activations are built directly (``Relu()``).
3. ``Xxx(Module)`` stores Params, sub-modules, containers of them, plain constants and
   ``TrainingFlag``s (for layers without parameters that behave differently in training, read
   through ``flag.is_training()``) as attributes, and computes in ``forward`` with burn_torch
   tensor ops only, so autodiff follows Burn's rules. Non-trainable state that must be saved
   (e.g. running statistics) is a Param set to ``set_require_grad(False)``.
4. If the PyTorch equivalent names or lays out its tensors differently, register an adapter in
   ``burn_torch.compat.state_dict`` so state dicts convert both ways.

Activations (``relu``, ``gelu``, ...) are re-exported from ``burn_torch.activation``.
"""
from ..functional.activation import *  # noqa: F401,F403  (re-exports burn_torch.activation.__all__)
from ..functional.activation import __all__ as _activations
from .activation_modules import (ActivationConfig, Gelu, LeakyRelu, LeakyReluConfig, PRelu,
                                 PReluConfig, Relu, Sigmoid, Tanh)
from .activation_layers import *  # noqa: F401,F403  (Celu, Elu, ..., SwiGlu and their configs)
from .activation_layers import __all__ as _activation_layers
from .identity import Identity
from .attention import (MhaCache, MhaInput, MhaOutput, MultiHeadAttention,
                        MultiHeadAttentionConfig)
from .cache import TensorCache
from .cross_attention import CrossAttention, CrossAttentionCache, CrossAttentionConfig
from .conv import (Conv1d, Conv1dConfig, Conv2d, Conv2dConfig, Conv3d, Conv3dConfig,
                   ConvTranspose1d, ConvTranspose1dConfig, ConvTranspose2d, ConvTranspose2dConfig,
                   ConvTranspose3d, ConvTranspose3dConfig, DeformConv2d, DeformConv2dConfig)
from .dropout import Dropout, DropoutConfig
from .embedding import Embedding, EmbeddingConfig
from .initializer import Initializer
from .linear import Linear, LinearConfig
from .loss import (BinaryCrossEntropyLoss, BinaryCrossEntropyLossConfig, CrossEntropyLoss,
                   CrossEntropyLossConfig, HuberLoss, HuberLossConfig, MseLoss, Reduction)
from .losses import *  # noqa: F401,F403  (CTCLoss, CosineEmbeddingLoss, ..., TripletMarginLoss)
from .losses import __all__ as _losses
from .distance import (CosineSimilarity, CosineSimilarityConfig, PairwiseDistance,
                       PairwiseDistanceConfig)
from .noise import GaussianNoise, GaussianNoiseConfig
from .gru import BiGru, BiGruConfig, Gru, GruConfig
from .lstm import BiLstm, BiLstmConfig, GateController, Lstm, LstmConfig, LstmState
from .rnn import BiRnn, BiRnnConfig, Rnn, RnnConfig, RnnState
from .norm import BatchNorm, BatchNormConfig, GroupNorm, GroupNormConfig, LayerNorm, LayerNormConfig
from .norm_layers import (InstanceNorm, InstanceNormConfig, LocalResponseNorm,
                          LocalResponseNormConfig, RmsNorm, RmsNormConfig)
from .normalization import NormalizationConfig
from .padding import PaddingConfig1d, PaddingConfig2d, PaddingConfig3d
from .pos_encoding import (PositionalEncoding, PositionalEncodingConfig, RotaryEncoding,
                           RotaryEncodingConfig, generate_sinusoids)
from .pool import (AdaptiveAvgPool1d, AdaptiveAvgPool1dConfig, AdaptiveAvgPool2d,
                   AdaptiveAvgPool2dConfig, AdaptiveAvgPool3d, AdaptiveAvgPool3dConfig, AvgPool1d,
                   AvgPool1dConfig, AvgPool2d, AvgPool2dConfig, MaxPool1d, MaxPool1dConfig,
                   MaxPool2d, MaxPool2dConfig)
from .resample import (Fold4d, Fold4dConfig, Interpolate1d, Interpolate1dConfig, Interpolate2d,
                       Interpolate2dConfig, InterpolateMode, PixelShuffle, PixelShuffleConfig,
                       PixelUnshuffle, PixelUnshuffleConfig, Unfold4d, Unfold4dConfig)
from .transformer import (PositionWiseFeedForward, PositionWiseFeedForwardConfig,
                          TransformerEncoder, TransformerEncoderConfig, TransformerEncoderInput,
                          TransformerEncoderLayer)
from .transformer_decoder import (TransformerDecoder, TransformerDecoderAutoregressiveCache,
                                  TransformerDecoderConfig, TransformerDecoderInput,
                                  TransformerDecoderLayer,
                                  TransformerDecoderLayerAutoregressiveCache)
from .attention_mask import (GeneratePaddingMask, SeqLengthOption, generate_autoregressive_mask,
                             generate_padding_mask)

__all__ = [
    "Initializer", "Linear", "LinearConfig", "Conv1d", "Conv1dConfig", "Conv2d", "Conv2dConfig",
    "ConvTranspose2d", "ConvTranspose2dConfig", "PaddingConfig1d", "PaddingConfig2d",
    "Embedding", "EmbeddingConfig", "LayerNorm", "LayerNormConfig", "BatchNorm",
    "BatchNormConfig", "GroupNorm", "GroupNormConfig", "Dropout", "DropoutConfig", "MaxPool2d",
    "MaxPool2dConfig", "AvgPool2d", "AvgPool2dConfig", "AdaptiveAvgPool2d",
    "AdaptiveAvgPool2dConfig", "Relu", "Gelu", "Sigmoid", "Tanh", "LeakyRelu", "LeakyReluConfig",
    "PRelu", "PReluConfig", "ActivationConfig", "MultiHeadAttention", "MultiHeadAttentionConfig",
    "MhaInput", "MhaOutput", "TransformerEncoder", "TransformerEncoderConfig",
    "TransformerEncoderInput", "TransformerEncoderLayer", "PositionWiseFeedForward",
    "PositionWiseFeedForwardConfig", "Lstm", "LstmConfig", "LstmState", "GateController",
    "BiLstm", "BiLstmConfig", "Gru", "GruConfig", "BiGru", "BiGruConfig", "Rnn", "RnnConfig",
    "RnnState", "BiRnn", "BiRnnConfig",
    "MseLoss", "CrossEntropyLoss", "CrossEntropyLossConfig", "BinaryCrossEntropyLoss",
    "BinaryCrossEntropyLossConfig", "HuberLoss", "HuberLossConfig", "Reduction", "Identity", "InstanceNorm", "InstanceNormConfig",
    "LocalResponseNorm", "LocalResponseNormConfig", "RmsNorm", "RmsNormConfig", "NormalizationConfig",
    "CosineSimilarity", "CosineSimilarityConfig", "PairwiseDistance", "PairwiseDistanceConfig",
    "GaussianNoise", "GaussianNoiseConfig", *_losses, *_activation_layers, 
    # convolution, pooling, resampling
    "Conv3d", "Conv3dConfig", "ConvTranspose1d", "ConvTranspose1dConfig", "ConvTranspose3d",
    "ConvTranspose3dConfig", "DeformConv2d", "DeformConv2dConfig", "PaddingConfig3d",
    "MaxPool1d", "MaxPool1dConfig", "AvgPool1d", "AvgPool1dConfig", "AdaptiveAvgPool1d",
    "AdaptiveAvgPool1dConfig", "AdaptiveAvgPool3d", "AdaptiveAvgPool3dConfig", "Interpolate1d",
    "Interpolate1dConfig", "Interpolate2d", "Interpolate2dConfig", "InterpolateMode", "Unfold4d",
    "Unfold4dConfig", "Fold4d", "Fold4dConfig", "PixelShuffle", "PixelShuffleConfig",
    "PixelUnshuffle", "PixelUnshuffleConfig",
    # attention, transformers, position encodings
    "MhaCache", "TensorCache", "CrossAttention", "CrossAttentionCache", "CrossAttentionConfig",
    "TransformerDecoder", "TransformerDecoderConfig", "TransformerDecoderInput",
    "TransformerDecoderLayer", "TransformerDecoderAutoregressiveCache",
    "TransformerDecoderLayerAutoregressiveCache", "generate_autoregressive_mask",
    "generate_padding_mask", "GeneratePaddingMask", "SeqLengthOption",
    "PositionalEncoding", "PositionalEncodingConfig", "RotaryEncoding", "RotaryEncodingConfig",
    "generate_sinusoids",
    *_activations,
]
