"""Neural-network layers and losses (Burn's ``burn::nn``), built on ``burn_torch.module``.

The layout is Burn's ``burn-nn`` file for file: a family Burn keeps in a module is a package here
(``activation``, ``attention``, ``conv``, ``interpolate``, ``loss``, ``norm``, ``pool``, ``rnn``,
``transformer``), each layer in the file named after Burn's source file (``burn::nn::norm::RmsNorm``
is in ``nn/norm/rms.py``); every name is also importable from ``burn_torch.nn``.

How a layer is written (every layer here follows it; new layers must too):

1. A ``XxxConfig(Config)`` declares the hyperparameters as annotated fields with Burn's names
   and defaults (``LinearConfig(d_input, d_output).with_bias(False)``); ``Config`` makes it a
   frozen value with ``with_<field>`` builders, and type checkers see both.
2. ``XxxConfig.init(device) -> Xxx`` creates the parameters, each a
   [`Param`][burn_torch.module.param.Param] (usually through an
   [`Initializer`][burn_torch.nn.initializer.Initializer]: ``init_with(shape, fan_in, fan_out,
   device)``), with Burn's shapes and layouts (``Linear.weight`` is ``[d_input, d_output]``).
   Configs of layers without parameters (pools, ``Dropout``, ``LeakyRelu``) take no device, as
   Burn's: ``DropoutConfig(0.1).init()``; parameterless activations are built directly
   (``Relu()``).
3. ``Xxx(Module)``, decorated with
   [`module_fields`][burn_torch.module.module.module_fields], declares its fields once as
   annotations (Params, sub-modules, containers of them, plain constants and ``TrainingFlag``s,
   read through ``flag.is_training()`` by layers that behave differently in training) and
   computes in ``forward`` with burn_torch tensor ops only, so autodiff follows Burn's rules.
   Non-trainable state that must be saved (e.g. running statistics) is a Param set to
   ``set_require_grad(False)``.
4. If the PyTorch equivalent names or lays out its tensors differently, register an adapter in
   ``burn_torch.compat.state_dict`` so state dicts convert both ways.

Activations (``relu``, ``gelu``, ...) are re-exported from ``burn_torch.activation``.
"""
from ..functional.activation import *  # noqa: F401,F403  (re-exports burn_torch.activation.__all__)
from ..functional.activation import __all__ as _activations
from . import activation, attention, conv, interpolate, loss, norm, pool, rnn, transformer
from .activation import *  # noqa: F401,F403
from .attention import *  # noqa: F401,F403
from .cache import TensorCache
from .conv import *  # noqa: F401,F403
from .cosine_similarity import CosineSimilarity, CosineSimilarityConfig
from .dropout import Dropout, DropoutConfig
from .embedding import Embedding, EmbeddingConfig
from .fold import Fold4d, Fold4dConfig
from .identity import Identity
from .initializer import Initializer
from .interpolate import *  # noqa: F401,F403
from .linear import Linear, LinearConfig
from .loss import *  # noqa: F401,F403
from .noise import GaussianNoise, GaussianNoiseConfig
from .norm import *  # noqa: F401,F403
from .padding import PaddingConfig1d, PaddingConfig2d, PaddingConfig3d
from .pairwise_distance import PairwiseDistance, PairwiseDistanceConfig
from .pixel_shuffle import PixelShuffle, PixelShuffleConfig, PixelUnshuffle, PixelUnshuffleConfig
from .pool import *  # noqa: F401,F403
from .pos_encoding import PositionalEncoding, PositionalEncodingConfig, generate_sinusoids
from .rnn import *  # noqa: F401,F403
from .rope_encoding import RotaryEncoding, RotaryEncodingConfig
from .transformer import *  # noqa: F401,F403
from .unfold import Unfold4d, Unfold4dConfig

__all__ = [
    *activation.__all__, *attention.__all__, *conv.__all__, *interpolate.__all__, *loss.__all__,
    *norm.__all__, *pool.__all__, *rnn.__all__, *transformer.__all__,
    "TensorCache", "CosineSimilarity", "CosineSimilarityConfig", "Dropout", "DropoutConfig",
    "Embedding", "EmbeddingConfig", "Fold4d", "Fold4dConfig", "Identity", "Initializer", "Linear",
    "LinearConfig", "GaussianNoise", "GaussianNoiseConfig", "PaddingConfig1d", "PaddingConfig2d",
    "PaddingConfig3d", "PairwiseDistance", "PairwiseDistanceConfig", "PixelShuffle",
    "PixelShuffleConfig", "PixelUnshuffle", "PixelUnshuffleConfig", "PositionalEncoding",
    "PositionalEncodingConfig", "generate_sinusoids", "RotaryEncoding", "RotaryEncodingConfig",
    "Unfold4d", "Unfold4dConfig",
    *_activations,
]
