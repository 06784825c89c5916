"""Burn's normalization layers (``burn::nn::norm``): ``BatchNorm``, ``GroupNorm``,
``InstanceNorm``, ``LayerNorm``, ``LocalResponseNorm``, ``RmsNorm``, and ``NormalizationConfig``
(``normalization_wrapper``), the choice of one.

As in Burn the learned scale and shift are called ``gamma`` and ``beta`` (PyTorch's ``weight``
and ``bias``; ``burn_torch.interop`` maps the names). Variances are population (biased)
variances, as Burn's and PyTorch's normalizations use.
"""
from .batch import BatchNorm, BatchNormConfig
from .group import GroupNorm, GroupNormConfig
from .instance import InstanceNorm, InstanceNormConfig
from .layer import LayerNorm, LayerNormConfig
from .local_response import LocalResponseNorm, LocalResponseNormConfig
from .normalization_wrapper import NormalizationConfig
from .rms import RmsNorm, RmsNormConfig

__all__ = [
    "BatchNorm", "BatchNormConfig", "GroupNorm", "GroupNormConfig", "InstanceNorm",
    "InstanceNormConfig", "LayerNorm", "LayerNormConfig", "LocalResponseNorm",
    "LocalResponseNormConfig", "NormalizationConfig", "RmsNorm", "RmsNormConfig",
]
