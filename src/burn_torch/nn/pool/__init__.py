"""Burn's pooling layers (``burn::nn::pool``): ``MaxPool1d``, ``MaxPool2d``, ``AvgPool1d``,
``AvgPool2d``, ``AdaptiveAvgPool1d``, ``AdaptiveAvgPool2d`` and ``AdaptiveAvgPool3d``.

They have no parameters; their configs' ``init()`` takes no device, as Burn's. The stride
(``stride`` in the 1-D configs, ``strides`` in the 2-D ones, as Burn names them) defaults to
``kernel_size``. Asymmetric padding (explicit, or ``same`` with an even kernel) pads
the input first, with -inf for max pooling and zeros for average pooling (as Burn, the padded
zeros then count as values even without ``count_include_pad``).
"""
from .adaptive_avg_pool1d import AdaptiveAvgPool1d, AdaptiveAvgPool1dConfig
from .adaptive_avg_pool2d import AdaptiveAvgPool2d, AdaptiveAvgPool2dConfig
from .adaptive_avg_pool3d import AdaptiveAvgPool3d, AdaptiveAvgPool3dConfig
from .avg_pool1d import AvgPool1d, AvgPool1dConfig
from .avg_pool2d import AvgPool2d, AvgPool2dConfig
from .max_pool1d import MaxPool1d, MaxPool1dConfig
from .max_pool2d import MaxPool2d, MaxPool2dConfig

__all__ = [
    "AdaptiveAvgPool1d", "AdaptiveAvgPool1dConfig", "AdaptiveAvgPool2d", "AdaptiveAvgPool2dConfig",
    "AdaptiveAvgPool3d", "AdaptiveAvgPool3dConfig", "AvgPool1d", "AvgPool1dConfig", "AvgPool2d",
    "AvgPool2dConfig", "MaxPool1d", "MaxPool1dConfig", "MaxPool2d", "MaxPool2dConfig",
]
