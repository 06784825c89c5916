"""Burn's convolution layers (``burn::nn::conv``): ``Conv1d``, ``Conv2d``, ``Conv3d``,
``ConvTranspose1d``, ``ConvTranspose2d``, ``ConvTranspose3d`` and ``DeformConv2d``.

Weights keep Burn's (and PyTorch's) layouts: ``[channels_out, channels_in / groups, *kernel]``
for a convolution, ``[channels_in, channels_out / groups, *kernel]`` for a transposed one. The
default initializer is Burn's Kaiming-uniform with gain ``1/sqrt(3)``, with the fans Burn uses.
"""
from .conv1d import Conv1d, Conv1dConfig
from .conv2d import Conv2d, Conv2dConfig
from .conv3d import Conv3d, Conv3dConfig
from .conv_transpose1d import ConvTranspose1d, ConvTranspose1dConfig
from .conv_transpose2d import ConvTranspose2d, ConvTranspose2dConfig
from .conv_transpose3d import ConvTranspose3d, ConvTranspose3dConfig
from .deform_conv2d import DeformConv2d, DeformConv2dConfig

__all__ = [
    "Conv1d", "Conv1dConfig", "Conv2d", "Conv2dConfig", "Conv3d", "Conv3dConfig",
    "ConvTranspose1d", "ConvTranspose1dConfig", "ConvTranspose2d", "ConvTranspose2dConfig",
    "ConvTranspose3d", "ConvTranspose3dConfig", "DeformConv2d", "DeformConv2dConfig",
]
