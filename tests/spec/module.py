"""Spec rows: Burn's ``tensor::module`` ops (``ops/conv.py``, ``ops/pool.py``, ``ops/nn.py``),
called through ``burn_torch.module_ops`` (and ``nn.CrossEntropyLoss`` for the fused cross
entropy), against torch references written with ``torch.nn.functional`` or plain torch.

Burn's layouts: ``linear``'s weight is ``[d_input, d_output]`` (``x @ w + b``, no transpose); a
transposed convolution's weight is ``[channels_in, channels_out / groups, *kernel]`` (torch's own
layout); attention's Bool mask is True where a position is masked out.

Max pooling: the gradient goes to the selected maximum of each window; the leaves are drawn from a
continuous distribution, so windows are tie-free and the selection is locally constant (the
finite difference holds).
"""
import itertools
import math

import torch
import torch.nn.functional as tf

from burn_torch import Tensor, module_ops as mo, nn
from burn_torch.module_ops import (ConvOptions, ConvTransposeOptions, GridSampleOptions,
                                   GridSamplePaddingMode, InterpolateMode, InterpolateOptions,
                                   PaddedConvOptions, UnfoldOptions)
from spec import F, I, K, Row


# ================================================================================ convolution ====
def conv(n, x, w, b, options, ref_kw, variant, pad=None):
    """Rows of ``conv{n}d`` with and without bias (``pad``: explicit asymmetric padding of the
    reference input, ``tf.pad`` order: last dim first)."""
    fn = getattr(mo, f"conv{n}d")
    tref = getattr(tf, f"conv{n}d")

    def ref(x, w, b=None):
        return tref(x if pad is None else tf.pad(x, pad), w, b, **ref_kw)

    return [
        Row(f"conv{n}d", lambda x, w, b: fn(x, w, b, options), ref, (x, w, b),
            variant=f"{variant}, bias"),
        Row(f"conv{n}d", lambda x, w: fn(x, w, None, options), ref, (x, w),
            variant=f"{variant}, no bias"),
    ]


def conv_t(n, x, w, b, options, ref_kw, variant):
    fn = getattr(mo, f"conv_transpose{n}d")
    tref = getattr(tf, f"conv_transpose{n}d")

    def ref(x, w, b=None):
        return tref(x, w, b, **ref_kw)

    return [
        Row(f"conv_transpose{n}d", lambda x, w, b: fn(x, w, b, options), ref, (x, w, b),
            variant=f"{variant}, bias"),
        Row(f"conv_transpose{n}d", lambda x, w: fn(x, w, None, options), ref, (x, w),
            variant=f"{variant}, no bias"),
    ]


def _co(n, stride=1, padding=0, dilation=1, groups=1):
    return ConvOptions(stride=[stride] * n, padding=[padding] * n, dilation=[dilation] * n,
                       groups=groups)


def _cto(n, stride=1, padding=0, padding_out=0, dilation=1, groups=1):
    return ConvTransposeOptions(stride=[stride] * n, padding=[padding] * n,
                                padding_out=[padding_out] * n, dilation=[dilation] * n,
                                groups=groups)


def burn_conv_transpose(x, w, b, stride, padding, padding_out, dilation, groups):
    """Burn's transposed convolution written from its definition, as a float64 reference that
    also covers ``padding_out >= stride`` (which torch rejects): input entry ``i`` with kernel
    entry ``k`` adds to output entry ``i * stride + k * dilation - padding``, for the outputs in
    ``0..(in - 1) * stride + dilation * (kernel - 1) + 1 - 2 * padding + padding_out``."""
    n = x.dim() - 2
    spatial_in, kernel = x.shape[2:], w.shape[2:]
    full = [(i - 1) * s + d * (k - 1) + 1 for i, s, d, k in zip(spatial_in, stride, dilation, kernel)]
    size = [f - 2 * p + o for f, p, o in zip(full, padding, padding_out)]
    c_in, c_out = x.shape[1] // groups, w.shape[1]
    out = x.new_zeros(x.shape[0], c_out * groups, *[max(f, p + o) for f, p, o in zip(full, padding, size)])
    for g in range(groups):
        xg = x[:, g * c_in:(g + 1) * c_in]
        for pos in itertools.product(*[range(k) for k in kernel]):
            wk = w[(slice(g * c_in, (g + 1) * c_in), slice(None)) + pos]
            hit = tuple(slice(k * d, k * d + (i - 1) * s + 1, s)
                        for k, d, i, s in zip(pos, dilation, spatial_in, stride))
            out[(slice(None), slice(g * c_out, (g + 1) * c_out)) + hit] += \
                torch.einsum("ni...,io->no...", xg, wk)
    out = out[(slice(None), slice(None)) + tuple(slice(p, p + o) for p, o in zip(padding, size))]
    return out if b is None else out + b.reshape((-1,) + (1,) * n)


def conv_t_burn(n, x, w, b, stride, padding, padding_out, dilation, groups, variant):
    """Rows of ``conv_transpose{n}d`` against :func:`burn_conv_transpose` (per-dim lists)."""
    fn = getattr(mo, f"conv_transpose{n}d")
    options = ConvTransposeOptions(stride=stride, padding=padding, padding_out=padding_out,
                                   dilation=dilation, groups=groups)

    def ref(x, w, b=None):
        return burn_conv_transpose(x, w, b, stride, padding, padding_out, dilation, groups)

    return [
        Row(f"conv_transpose{n}d", lambda x, w, b: fn(x, w, b, options), ref, (x, w, b),
            variant=f"{variant}, bias"),
        Row(f"conv_transpose{n}d", lambda x, w: fn(x, w, None, options), ref, (x, w),
            variant=f"{variant}, no bias"),
    ]


CONV_ROWS = [
    *conv(1, F(2, 2, 6), F(3, 2, 3), F(3), _co(1, padding=1), dict(padding=1), "padded"),
    *conv(1, F(2, 4, 7), F(4, 2, 2), F(4), _co(1, stride=2, dilation=2, groups=2),
          dict(stride=2, dilation=2, groups=2), "strided dilated grouped"),
    *conv(1, F(2, 2, 6), F(3, 2, 3), F(3),
          PaddedConvOptions.asymmetric(stride=[1], padding_start=[1], padding_end=[2],
                                       dilation=[1], groups=1),
          dict(), "asymmetric padding", pad=(1, 2)),
    *conv(2, F(2, 2, 5, 5), F(3, 2, 3, 3), F(3), _co(2, padding=1), dict(padding=1), "padded"),
    *conv(2, F(2, 4, 5, 5), F(2, 2, 2, 2), F(2), _co(2, stride=2, dilation=2, groups=2),
          dict(stride=2, dilation=2, groups=2), "strided dilated grouped"),
    *conv(2, F(2, 2, 5, 5), F(3, 2, 3, 2), F(3),
          PaddedConvOptions.asymmetric(stride=[1, 2], padding_start=[0, 1],
                                       padding_end=[2, 0], dilation=[1, 1], groups=1),
          dict(stride=(1, 2)), "asymmetric padding", pad=(1, 0, 0, 2)),
    *conv(3, F(1, 2, 4, 4, 4), F(2, 2, 2, 2, 2), F(2), _co(3, padding=1), dict(padding=1),
          "padded"),
    *conv(3, F(1, 2, 5, 5, 5), F(2, 1, 2, 2, 2), F(2), _co(3, stride=2, dilation=2, groups=2),
          dict(stride=2, dilation=2, groups=2), "strided dilated grouped"),
    *conv_t(1, F(2, 2, 5), F(2, 3, 3), F(3), _cto(1, padding=1), dict(padding=1), "padded"),
    *conv_t(1, F(2, 4, 4), F(4, 1, 3), F(2), _cto(1, stride=2, padding_out=1, dilation=1, groups=2),
            dict(stride=2, output_padding=1, groups=2), "strided grouped padding_out"),
    *conv_t(2, F(2, 2, 4, 4), F(2, 3, 3, 3), F(3), _cto(2, padding=1), dict(padding=1), "padded"),
    *conv_t(2, F(2, 4, 3, 3), F(4, 1, 2, 2), F(2),
            _cto(2, stride=2, padding_out=1, dilation=2, groups=2),
            dict(stride=2, output_padding=1, dilation=2, groups=2),
            "strided dilated grouped padding_out"),
    *conv_t(3, F(1, 2, 3, 3, 3), F(2, 2, 2, 2, 2), F(2), _cto(3, stride=2),
            dict(stride=2), "strided"),
    *conv_t(3, F(1, 2, 3, 3, 3), F(2, 1, 2, 2, 2), F(2),
            _cto(3, stride=2, padding=1, padding_out=1, groups=2),
            dict(stride=2, padding=1, output_padding=1, groups=2), "padded grouped padding_out"),
    # Burn's padding_out >= max(stride, dilation), which torch's kernel rejects
    *conv_t_burn(1, F(2, 2, 4), F(2, 2, 3), F(2), [1], [0], [1], [1], 1, "padding_out = stride = 1"),
    *conv_t_burn(1, F(2, 4, 5), F(4, 1, 2), F(2), [2], [1], [3], [1], 2,
                 "padding_out 3 > stride 2, padded grouped"),
    *conv_t_burn(1, F(1, 2, 4), F(2, 3, 3), F(3), [1], [2], [1], [2], 1,
                 "padding_out within the cropped padding"),
    *conv_t_burn(2, F(2, 2, 3, 3), F(2, 3, 2, 3), F(3), [2, 1], [1, 0], [2, 1], [1, 1], 1,
                 "padding_out >= stride in both dims"),
    *conv_t_burn(2, F(1, 2, 3, 3), F(2, 2, 2, 2), F(2), [2, 2], [0, 1], [1, 3], [1, 1], 1,
                 "padding_out >= stride in one dim"),
    *conv_t_burn(3, F(1, 2, 2, 3, 2), F(2, 1, 2, 2, 2), F(1), [1, 2, 1], [0, 1, 0], [1, 1, 2],
                 [1, 1, 1], 1, "padding_out >= stride"),
    *conv_t_burn(1, F(2, 2, 5), F(2, 3, 3), F(3), [2], [1], [1], [1], 1,
                 "reference agrees with torch's kernel where torch accepts"),
    # only some inputs tracked (the backward kernel's output mask)
    Row("conv2d", lambda x, w, b: mo.conv2d(x, w, b, _co(2, padding=1)),
        lambda x, w, b: tf.conv2d(x, w, b, padding=1), (F(2, 2, 5, 5), K(3, 2, 3, 3), F(3)),
        variant="weight constant"),
    Row("conv2d", lambda x, w, b: mo.conv2d(
        x, w, b, PaddedConvOptions.asymmetric(stride=[1, 1], padding_start=[1, 0],
                                              padding_end=[0, 1], dilation=[1, 1], groups=1)),
        lambda x, w, b: tf.conv2d(tf.pad(x, (0, 1, 1, 0)), w, b),
        (K(2, 2, 5, 5), F(3, 2, 3, 3), K(3)), variant="asymmetric, weight only tracked"),
    Row("conv_transpose2d", lambda x, w, b: mo.conv_transpose2d(x, w, b, _cto(2, stride=2)),
        lambda x, w, b: tf.conv_transpose2d(x, w, b, stride=2),
        (F(2, 2, 3, 3), K(2, 3, 2, 2), K(3)), variant="x only tracked"),
    Row("conv_transpose1d", lambda x, w, b: mo.conv_transpose1d(x, w, b, ConvTransposeOptions(
            stride=[1], padding=[0], padding_out=[2], dilation=[1], groups=1)),
        lambda x, w, b: burn_conv_transpose(x, w, b, [1], [0], [2], [1], 1),
        (K(2, 2, 4), F(2, 3, 3), F(3)), variant="padding_out >= stride, x constant"),
]


# ==================================================================================== pooling ====
POOL_ROWS = [
    Row("max_pool1d", lambda x: mo.max_pool1d(x, 3, 2, 1, 1),
        lambda x: tf.max_pool1d(x, 3, 2, 1, 1), (F(2, 2, 7),)),
    Row("max_pool1d", lambda x: mo.max_pool1d_with_indices(x, 2, 1, 0, 2, True),
        lambda x: tf.max_pool1d(x, 2, 1, 0, 2, ceil_mode=True, return_indices=True),
        (F(2, 2, 6),), variant="with indices, dilated, ceil_mode"),
    Row("max_pool2d", lambda x: mo.max_pool2d(x, [3, 3], [2, 2], [1, 1], [1, 1]),
        lambda x: tf.max_pool2d(x, 3, 2, 1, 1), (F(2, 2, 5, 5),)),
    Row("max_pool2d", lambda x: mo.max_pool2d_with_indices(x, [2, 3], [2, 1], [1, 0], [1, 2], True),
        lambda x: tf.max_pool2d(x, (2, 3), (2, 1), (1, 0), (1, 2), ceil_mode=True,
                                return_indices=True),
        (F(2, 2, 5, 6),), variant="with indices, dilated, ceil_mode"),
    Row("avg_pool1d", lambda x: mo.avg_pool1d(x, 3, 2, 1, True),
        lambda x: tf.avg_pool1d(x, 3, 2, 1, count_include_pad=True), (F(2, 2, 7),),
        variant="count_include_pad"),
    Row("avg_pool1d", lambda x: mo.avg_pool1d(x, 3, 2, 1, False, True),
        lambda x: tf.avg_pool1d(x, 3, 2, 1, ceil_mode=True, count_include_pad=False), (F(2, 2, 6),),
        variant="exclude pad, ceil_mode"),
    Row("avg_pool2d", lambda x: mo.avg_pool2d(x, [3, 3], [2, 2], [1, 1], True),
        lambda x: tf.avg_pool2d(x, 3, 2, 1, count_include_pad=True), (F(2, 2, 5, 5),),
        variant="count_include_pad"),
    Row("avg_pool2d", lambda x: mo.avg_pool2d(x, [2, 3], [2, 1], [1, 1], False, True),
        lambda x: tf.avg_pool2d(x, (2, 3), (2, 1), 1, ceil_mode=True, count_include_pad=False),
        (F(2, 2, 5, 4),), variant="exclude pad, ceil_mode"),
    Row("adaptive_avg_pool1d", lambda x: mo.adaptive_avg_pool1d(x, 3),
        lambda x: tf.adaptive_avg_pool1d(x, 3), (F(2, 2, 7),)),
    Row("adaptive_avg_pool2d", lambda x: mo.adaptive_avg_pool2d(x, [2, 3]),
        lambda x: tf.adaptive_avg_pool2d(x, (2, 3)), (F(2, 2, 5, 5),)),
    Row("adaptive_avg_pool3d", lambda x: mo.adaptive_avg_pool3d(x, [2, 1, 3]),
        lambda x: tf.adaptive_avg_pool3d(x, (2, 1, 3)), (F(1, 2, 3, 4, 5),)),
]


# ============================================================== linear, embedding, resampling ====
def _attention_ref(q, k, v, mask=None):
    """softmax(q kᵀ / sqrt(head_dim), -inf where ``mask`` is True) v."""
    scores = q @ k.transpose(-2, -1) / math.sqrt(q.shape[-1])
    if mask is not None:
        scores = scores.masked_fill(mask, float("-inf"))
    return scores.softmax(-1) @ v


# masks with no fully masked row (a fully masked row gives NaN, as Burn): True = masked out
_CAUSAL = torch.ones(3, 5, dtype=torch.bool).triu(3).reshape(1, 1, 3, 5)  # keys j > i + 2 masked
_MASK = torch.tensor([[[[False, True, False, True, True], [True, False, True, False, False],
                        [False, False, True, True, False]],
                       [[True, True, True, True, False], [False, False, False, False, False],
                        [True, False, True, False, True]]]])  # [1, 2, 3, 5]


def _bool(mask, like):
    return Tensor.from_data(mask, like.device())


NN_ROWS = [
    # grid locations avoid the pixel centres and edges, where bilinear weights have kinks
    Row("grid_sample_2d", lambda x, g: x.grid_sample_2d(g),
        lambda x, g: tf.grid_sample(x, g, mode="bilinear", padding_mode="zeros", align_corners=False),
        (F(2, 3, 4, 5), F(2, 3, 2, 2, lo=-1.1, hi=1.1, avoid=(-1.0, -0.5, 0.0, 0.5, 1.0), margin=0.03))),
    Row("grid_sample_2d", lambda x, g: x.grid_sample_2d(
            g, GridSampleOptions(InterpolateMode.BILINEAR, GridSamplePaddingMode.BORDER, True)),
        lambda x, g: tf.grid_sample(x, g, mode="bilinear", padding_mode="border", align_corners=True),
        (F(1, 2, 3, 4), F(1, 2, 3, 2, lo=-1.2, hi=1.2, avoid=(-1.0, -1 / 3, 1 / 3, 1.0, 0.0), margin=0.03)),
        variant="border, corners aligned"),
    Row("grid_sample_2d", lambda x, g: x.grid_sample_2d(
            g, GridSampleOptions(InterpolateMode.NEAREST, GridSamplePaddingMode.REFLECTION)),
        lambda x, g: tf.grid_sample(x, g, mode="nearest", padding_mode="reflection", align_corners=False),
        (F(1, 2, 4, 4), K(1, 3, 3, 2, lo=-0.9, hi=0.9, avoid=(-0.5, 0.0, 0.5), margin=0.05)),
        variant="nearest, reflection"),
    Row("linear", lambda x, w, b: mo.linear(x, w, b), lambda x, w, b: x @ w + b,
        (F(3, 4), F(4, 5), F(5)), variant="2d, bias"),
    Row("linear", lambda x, w: mo.linear(x, w), lambda x, w: x @ w, (F(3, 4), F(4, 5)),
        variant="2d, no bias"),
    Row("linear", lambda x, w, b: mo.linear(x, w, b), lambda x, w, b: x @ w + b,
        (F(2, 3, 4), F(4, 5), F(5)), variant="3d, bias"),
    Row("linear", lambda x, w: mo.linear(x, w), lambda x, w: x @ w, (F(2, 1, 3, 4), F(4, 2)),
        variant="4d, no bias"),
    Row("linear", lambda x, w, b: mo.linear(x, w, b), lambda x, w, b: x @ w + b,
        (F(4), F(4, 3), F(3)), variant="1d, bias"),
    # only some inputs tracked: the fused rule computes just their gradients
    Row("linear", lambda x, w, b: mo.linear(x, w, b), lambda x, w, b: x @ w + b,
        (K(2, 3, 4), F(4, 5), K(5)), variant="weight only tracked"),
    Row("linear", lambda x, w, b: mo.linear(x, w, b), lambda x, w, b: x @ w + b,
        (F(3, 4), K(4, 5), F(5)), variant="weight constant"),
    # indices over all 5 rows, repeats accumulating into one row's gradient
    Row("embedding", lambda w, i: mo.embedding(w, i), lambda w, i: w[i],
        (F(5, 4), I(2, 6, lo=0, hi=4))),
    Row("interpolate",
        lambda x: mo.interpolate(x, [4, 7], InterpolateOptions(mode=InterpolateMode.NEAREST)),
        lambda x: tf.interpolate(x, size=(4, 7), mode="nearest"), (F(2, 2, 3, 5),),
        variant="nearest"),
    Row("interpolate",
        lambda x: mo.interpolate(x, [2, 3], InterpolateOptions(mode=InterpolateMode.NEAREST)),
        lambda x: tf.interpolate(x, size=(2, 3), mode="nearest"), (F(2, 2, 5, 5),),
        variant="nearest, downsampling"),
    Row("interpolate",
        lambda x: mo.interpolate(x, [5, 4], InterpolateOptions(mode=InterpolateMode.BILINEAR)),
        lambda x: tf.interpolate(x, size=(5, 4), mode="bilinear", align_corners=True),
        (F(2, 2, 3, 3),), variant="bilinear"),
    Row("interpolate",
        lambda x: mo.interpolate(x, [5, 4], InterpolateOptions(mode=InterpolateMode.BILINEAR,
                                                               align_corners=False)),
        lambda x: tf.interpolate(x, size=(5, 4), mode="bilinear", align_corners=False),
        (F(2, 2, 3, 3),), variant="bilinear, no align_corners"),
    Row("interpolate",
        lambda x: mo.interpolate(x, [6, 5], InterpolateOptions(mode=InterpolateMode.BICUBIC)),
        lambda x: tf.interpolate(x, size=(6, 5), mode="bicubic", align_corners=True),
        (F(1, 2, 4, 4),), variant="bicubic"),
    Row("unfold4d",
        lambda x: mo.unfold4d(x, [2, 3], UnfoldOptions(stride=[1, 2], padding=[1, 0],
                                                       dilation=[1, 1])),
        lambda x: tf.unfold(x, (2, 3), dilation=1, padding=(1, 0), stride=(1, 2)),
        (F(2, 2, 5, 5),)),
    Row("unfold4d",
        lambda x: mo.unfold4d(x, [2, 2], UnfoldOptions(stride=[2, 1], padding=[1, 1],
                                                       dilation=[2, 1])),
        lambda x: tf.unfold(x, (2, 2), dilation=(2, 1), padding=1, stride=(2, 1)),
        (F(1, 3, 4, 5),), variant="dilated"),

    # ---- attention: the flash path (float64, equal q/v head dims, no fully masked row) ----
    Row("attention", lambda q, k, v: mo.attention(q, k, v), _attention_ref,
        (F(2, 2, 3, 4), F(2, 2, 5, 4), F(2, 2, 5, 4)), variant="flash"),
    Row("attention", lambda q, k, v: mo.attention(q, k, v, _bool(_CAUSAL, q)),
        lambda q, k, v: _attention_ref(q, k, v, _CAUSAL),
        (F(1, 2, 3, 4), F(1, 2, 5, 4), F(1, 2, 5, 4)), variant="flash, broadcast mask"),
    Row("attention", lambda q, k, v: mo.attention(q, k, v, _bool(_MASK, q)),
        lambda q, k, v: _attention_ref(q, k, v, _MASK),
        (F(1, 2, 3, 4), F(1, 2, 5, 4), F(1, 2, 5, 4)), variant="flash, mask"),
    # ---- the fallback path: v's head dim differs from q's ----
    Row("attention", lambda q, k, v: mo.attention(q, k, v), _attention_ref,
        (F(2, 2, 3, 4), F(2, 2, 5, 4), F(2, 2, 5, 3)), variant="fallback"),
    Row("attention", lambda q, k, v: mo.attention(q, k, v, _bool(_MASK, q)),
        lambda q, k, v: _attention_ref(q, k, v, _MASK),
        (F(1, 2, 3, 4), F(1, 2, 5, 4), F(1, 2, 5, 2)), variant="fallback, mask"),

    # ---- only some inputs tracked, on either path ----
    Row("attention", lambda q, k, v: mo.attention(q, k, v), _attention_ref,
        (F(1, 2, 3, 4), K(1, 2, 5, 4), K(1, 2, 5, 4)), variant="flash, q only tracked"),
    Row("attention", lambda q, k, v: mo.attention(q, k, v, _bool(_MASK, q)),
        lambda q, k, v: _attention_ref(q, k, v, _MASK),
        (K(1, 2, 3, 4), F(1, 2, 5, 4), F(1, 2, 5, 3)), variant="fallback, q constant"),
    Row("attention", lambda q, k, v: mo.attention(q, k, v), _attention_ref,
        (K(1, 2, 3, 4), K(1, 2, 5, 4), F(1, 2, 5, 3)), variant="fallback, v only tracked"),

    # ---- the fused cross entropy over class indices (CrossEntropyLoss, logits, no options) ----
    Row("cross_entropy", lambda x, t: nn.CrossEntropyLoss().forward(x, t),
        lambda x, t: -x.log_softmax(1).gather(1, t.unsqueeze(1)).mean().reshape(1),
        (F(4, 5), I(4, lo=0, hi=4))),
]

ROWS = CONV_ROWS + POOL_ROWS + NN_ROWS
