"""Burn's activation layers (``burn::nn::activation``), one file per layer as Burn's, and
``ActivationConfig`` (``activation_wrapper``), the choice of activation other layers are configured
with. Each ``forward`` is the ``burn_torch.activation`` function of the same name; configured
layers are built by ``XxxConfig(...).init()`` with Burn's fields and defaults (Burn's ``lambda`` is
``lambda_``), parameterless ones directly (``Relu()``).
"""
from .activation_wrapper import ActivationConfig
from .celu import Celu, CeluConfig
from .elu import Elu, EluConfig
from .gelu import Gelu
from .glu import GLU
from .hard_shrink import HardShrink, HardShrinkConfig
from .hard_sigmoid import HardSigmoid, HardSigmoidConfig
from .hard_swish import HardSwish
from .hardtanh import Hardtanh, HardtanhConfig
from .leaky_relu import LeakyRelu, LeakyReluConfig
from .log_sigmoid import LogSigmoid
from .mish import Mish
from .prelu import PRelu, PReluConfig
from .relu import Relu
from .relu6 import Relu6
from .rrelu import RRelu, RReluConfig
from .selu import Selu
from .shrink import Shrink, ShrinkConfig
from .sigmoid import Sigmoid
from .silu import SiLU
from .soft_shrink import SoftShrink, SoftShrinkConfig
from .softplus import Softplus, SoftplusConfig
from .softsign import Softsign
from .swiglu import SwiGlu, SwiGluConfig
from .tanh import Tanh
from .tanhshrink import Tanhshrink
from .threshold import Threshold, ThresholdConfig
from .thresholded_relu import ThresholdedRelu, ThresholdedReluConfig

__all__ = [
    "ActivationConfig", "Celu", "CeluConfig", "Elu", "EluConfig", "Gelu", "GLU", "HardShrink",
    "HardShrinkConfig", "HardSigmoid", "HardSigmoidConfig", "HardSwish", "Hardtanh",
    "HardtanhConfig", "LeakyRelu", "LeakyReluConfig", "LogSigmoid", "Mish", "PRelu", "PReluConfig",
    "Relu", "Relu6", "RRelu", "RReluConfig", "Selu", "Shrink", "ShrinkConfig", "Sigmoid", "SiLU",
    "SoftShrink", "SoftShrinkConfig", "Softplus", "SoftplusConfig", "Softsign", "SwiGlu",
    "SwiGluConfig", "Tanh", "Tanhshrink", "Threshold", "ThresholdConfig", "ThresholdedRelu",
    "ThresholdedReluConfig",
]
