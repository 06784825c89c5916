"""Burn's ``tensor::module`` functions, one file per family as Burn's backend splits them
(``linear``, ``embedding``, ``conv``, ``pool``, ``interpolate``, ``unfold``, ``pixel_shuffle``,
``attention``, ``norm``, ``ctc``): positional in Rust order, with Burn's layouts (``linear``'s
weight is ``[d_input, d_output]``; a transposed convolution's weight is ``[channels_in,
channels_out / groups, *kernel]``). Public as ``burn_torch.module_ops``.

Options are small immutable keyword classes named after Burn's struct fields
([`ConvOptions`][burn_torch.functional.module_ops.ConvOptions],
[`PaddedConvOptions`][burn_torch.functional.module_ops.PaddedConvOptions],
[`ConvTransposeOptions`][burn_torch.functional.module_ops.ConvTransposeOptions],
[`UnfoldOptions`][burn_torch.functional.module_ops.UnfoldOptions],
[`InterpolateOptions`][burn_torch.functional.module_ops.InterpolateOptions]). Every function checks
its inputs (TypeError for a wrong kind or type, ValueError naming the shapes) before anything is
recorded; each is one op-table entry (``burn_torch.ops.nn``, ``ops.conv``, ``ops.pool``,
``ops.norm``, ``ops.loss``).
"""
from ...methods.sampling import GridSampleOptions, GridSamplePaddingMode, InterpolateMode
from .attention import attention, AttentionModuleOptions
from .conv import (conv1d, conv2d, conv3d, conv_transpose1d, conv_transpose2d, conv_transpose3d,
                   ConvOptions, ConvTransposeOptions, deform_conv2d, DeformConvOptions,
                   PaddedConvOptions)
from .ctc import ctc_loss
from .embedding import embedding
from .interpolate import interpolate, InterpolateOptions
from .linear import linear
from .norm import batch_norm, group_norm, layer_norm, rms_norm
from .pixel_shuffle import pixel_shuffle, pixel_unshuffle
from .pool import (adaptive_avg_pool1d, adaptive_avg_pool2d, adaptive_avg_pool3d, avg_pool1d,
                   avg_pool2d, max_pool1d, max_pool1d_with_indices, max_pool2d,
                   max_pool2d_with_indices)
from .unfold import fold4d, unfold4d, UnfoldOptions

__all__ = [
    "GridSampleOptions", "GridSamplePaddingMode", "InterpolateMode", "attention",
    "AttentionModuleOptions", "conv1d", "conv2d", "conv3d", "conv_transpose1d", "conv_transpose2d",
    "conv_transpose3d", "ConvOptions", "ConvTransposeOptions", "deform_conv2d",
    "DeformConvOptions", "PaddedConvOptions", "ctc_loss", "embedding", "interpolate",
    "InterpolateOptions", "linear", "batch_norm", "group_norm", "layer_norm", "rms_norm",
    "pixel_shuffle", "pixel_unshuffle", "adaptive_avg_pool1d", "adaptive_avg_pool2d", "adaptive_avg_pool3d",
    "avg_pool1d", "avg_pool2d", "max_pool1d", "max_pool1d_with_indices", "max_pool2d",
    "max_pool2d_with_indices", "fold4d", "unfold4d", "UnfoldOptions",
]
