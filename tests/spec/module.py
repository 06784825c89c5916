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

from burn_torch import Device, Tensor, module_ops as mo, nn
from burn_torch.nn.attention.mha import mha_weights
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


def conv_t(n, x, w, b, options, ref_kw, variant, crop=None):
    """Rows of ``conv_transpose{n}d`` with and without bias (``crop``: the reference computes the
    full output and crops/extends it per dim, see :func:`_cropped`)."""
    fn = getattr(mo, f"conv_transpose{n}d")
    tref = getattr(tf, f"conv_transpose{n}d")

    def ref(x, w, b=None):
        if crop is None:
            return tref(x, w, b, **ref_kw)
        out = _cropped(tref(x, w, **ref_kw), crop)
        return out if b is None else out + b.view(-1, *[1] * n)

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


def _cropped(full, crop):
    """``full`` with ``(start, end)`` per spatial dim cut off the start and added at the end
    (zeros), as Burn's transposed convolution with a large ``padding_out``."""
    pad = []
    for start, end in reversed(crop):
        pad += [-start, end]
    return tf.pad(full, pad)


# ============================================================================ deformable conv ====
def deform_conv2d_ref(x, offset, weight, mask, bias, stride, padding, dilation, weight_groups,
                      offset_groups):
    """torchvision's deformable convolution written with plain torch gathers: tap ``(ky, kx)``
    of output ``(oy, ox)`` reads x bilinearly at ``(oy * s - p + ky * d + dy, ox * s - p + kx *
    d + dx)``, zero outside ``(-1, size)`` and for corners outside the input."""
    b, c, h, w = x.shape
    c_out, _, kh, kw = weight.shape
    oh, ow = offset.shape[2:]
    g, cg = offset_groups, c // offset_groups
    off = offset.reshape(b, g, kh, kw, 2, oh, ow)
    ky = torch.arange(kh, dtype=x.dtype).view(kh, 1, 1, 1) * dilation[0]
    kx = torch.arange(kw, dtype=x.dtype).view(1, kw, 1, 1) * dilation[1]
    oy = torch.arange(oh, dtype=x.dtype).view(1, 1, oh, 1) * stride[0] - padding[0]
    ox = torch.arange(ow, dtype=x.dtype).view(1, 1, 1, ow) * stride[1] - padding[1]
    y = off[:, :, :, :, 0] + ky + oy  # [b, g, kh, kw, oh, ow]
    xx = off[:, :, :, :, 1] + kx + ox
    inside = (y > -1) & (y < h) & (xx > -1) & (xx < w)
    y0, x0 = torch.floor(y), torch.floor(xx)
    ly, lx = y - y0, xx - x0
    flat = x.reshape(b, g, cg, h * w)
    total = 0
    for cy, cx, weight_ in ((y0, x0, (1 - ly) * (1 - lx)), (y0, x0 + 1, (1 - ly) * lx),
                            (y0 + 1, x0, ly * (1 - lx)), (y0 + 1, x0 + 1, ly * lx)):
        ok = inside & (cy >= 0) & (cy < h) & (cx >= 0) & (cx < w)
        index = (cy.clamp(0, h - 1) * w + cx.clamp(0, w - 1)).long().reshape(b, g, 1, -1)
        picked = flat.gather(3, index.expand(b, g, cg, index.shape[-1]))
        total = total + picked * (weight_ * ok).reshape(b, g, 1, -1)
    columns = total.reshape(b, g, cg, kh * kw, oh * ow)
    if mask is not None:
        columns = columns * mask.reshape(b, g, 1, kh * kw, oh * ow)
    columns = columns.reshape(b, weight_groups, -1, oh * ow)
    out = (weight.reshape(weight_groups, c_out // weight_groups, -1) @ columns)
    out = out.reshape(b, c_out, oh, ow)
    return out if bias is None else out + bias.view(1, -1, 1, 1)


def _dco(stride=1, padding=0, dilation=1, weight_groups=1, offset_groups=1):
    return mo.DeformConvOptions(stride=[stride] * 2, padding=[padding] * 2,
                                dilation=[dilation] * 2, weight_groups=weight_groups,
                                offset_groups=offset_groups)


def _offsets(*shape):
    """Offsets away from whole pixels (where the bilinear weights have kinks)."""
    return F(*shape, lo=-1.8, hi=1.8, avoid=(-1.0, 0.0, 1.0), margin=0.05)


def deform(x, off, w, m, b, variant, **kw):
    options = _dco(**kw)
    ref_kw = dict(stride=[kw.get("stride", 1)] * 2, padding=[kw.get("padding", 0)] * 2,
                  dilation=[kw.get("dilation", 1)] * 2,
                  weight_groups=kw.get("weight_groups", 1),
                  offset_groups=kw.get("offset_groups", 1))
    return [
        Row("deform_conv2d", lambda x, o, w, m, b: mo.deform_conv2d(x, o, w, m, b, options),
            lambda x, o, w, m, b: deform_conv2d_ref(x, o, w, m, b, **ref_kw), (x, off, w, m, b),
            variant=f"{variant}, mask, bias"),
        Row("deform_conv2d", lambda x, o, w: mo.deform_conv2d(x, o, w, None, None, options),
            lambda x, o, w: deform_conv2d_ref(x, o, w, None, None, **ref_kw), (x, off, w),
            variant=f"{variant}, no mask, no bias"),
    ]


DEFORM_ROWS = [
    *deform(F(2, 2, 4, 4), _offsets(2, 18, 4, 4), F(3, 2, 3, 3), F(2, 9, 4, 4), F(3), "padded",
            padding=1),
    *deform(F(1, 4, 5, 7), _offsets(1, 16, 2, 3), F(4, 2, 2, 2), F(1, 8, 2, 3), F(4),
            "strided dilated, weight and offset groups", stride=2, dilation=2, weight_groups=2,
            offset_groups=2),
    Row("deform_conv2d", lambda x, o, w, m, b: mo.deform_conv2d(x, o, w, m, b, _dco(padding=1)),
        lambda x, o, w, m, b: deform_conv2d_ref(x, o, w, m, b, [1, 1], [1, 1], [1, 1], 1, 1),
        (K(1, 2, 3, 3), _offsets(1, 8, 4, 4), K(2, 2, 2, 2), K(1, 4, 4, 4), K(2)),
        variant="offset only tracked"),
    Row("deform_conv2d", lambda x, o, w, m, b: mo.deform_conv2d(x, o, w, m, b, _dco()),
        lambda x, o, w, m, b: deform_conv2d_ref(x, o, w, m, b, [1, 1], [0, 0], [1, 1], 1, 1),
        (F(1, 2, 1, 3), K(1, 4, 1, 2, lo=-0.9, hi=0.9), K(2, 2, 1, 2), F(1, 2, 1, 2), K(2)),
        variant="one-row input, x and mask tracked"),
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
def _attention_ref(q, k, v, mask=None, bias=None, scale=None, softcap=None, causal=False):
    """Burn's attention_fallback: scores ``q kᵀ · scale`` (default ``1 / sqrt(head_dim)``),
    softcapped, -inf where ``mask`` (or, ``causal``, above the bottom-right-aligned diagonal),
    plus ``bias``; a softmax whose fully masked rows are 0 (max clamped to the dtype's min, the
    sum to its smallest normal); times v."""
    scores = q @ k.transpose(-2, -1) * (scale if scale is not None else 1 / math.sqrt(q.shape[-1]))
    if softcap is not None:
        scores = softcap * torch.tanh(scores / softcap)
    if mask is not None:
        scores = scores.masked_fill(mask, float("-inf"))
    if causal:
        sq, sk = scores.shape[-2:]
        scores = scores.masked_fill(torch.ones(sq, sk, dtype=torch.bool).triu(1 + sk - sq),
                                    float("-inf"))
    if bias is not None:
        scores = scores + bias
    info = torch.finfo(scores.dtype)
    top = scores.amax(-1, keepdim=True).clamp_min(info.min).detach()
    e = (scores - top).exp()
    return e / e.sum(-1, keepdim=True).clamp_min(info.tiny) @ v


_AO = mo.AttentionModuleOptions
# masks with no fully masked row (a fully masked row gives NaN, as Burn): True = masked out
_CAUSAL = torch.ones(3, 5, dtype=torch.bool).triu(3).reshape(1, 1, 3, 5)  # keys j > i + 2 masked
_MASK = torch.tensor([[[[False, True, False, True, True], [True, False, True, False, False],
                        [False, False, True, True, False]],
                       [[True, True, True, True, False], [False, False, False, False, False],
                        [True, False, True, False, True]]]])  # [1, 2, 3, 5]


_DEAD_ROW = _MASK.clone()
_DEAD_ROW[0, 1, 0] = True  # head 1's first query attends to nothing
# [1, 1, 3, 3]; with is_causal, query 1 keeps key 0 and query 2 keys 0 and 2 (no row empty)
_SQUARE_MASK = torch.tensor([[[[False, False, False], [False, True, False],
                               [False, True, False]]]])


def _bool(mask, like):
    return Tensor.from_data(mask, like.device())


def _mha_weights_ref(q, k, pad=None, attn=None, drop=None):
    """Burn's MultiHeadAttention weights as its ops: ``q kᵀ / sqrt(d_k)``, dropout (times the
    scaled mask ``drop``), the padding then the attention mask filled with ``min_float``
    (-1e4), softmax over the keys."""
    scores = q @ k.transpose(-2, -1) / math.sqrt(q.shape[-1])
    if drop is not None:
        scores = scores * drop
    batch, _, seq_q, seq_k = scores.shape
    if pad is not None:
        scores = scores.masked_fill(pad.reshape(batch, 1, 1, seq_k), -1e4)
    if attn is not None:
        scores = scores.masked_fill(attn.reshape(batch, 1, seq_q, seq_k), -1e4)
    return scores.softmax(-1)


def _mha_weights(pad=None, attn=None, drop=None):
    def fn(q, k):
        return mha_weights(q, k, None if pad is None else _bool(pad, q),
                           None if attn is None else _bool(attn, q), math.sqrt(q.dims()[-1]), -1e4,
                           drop)
    return fn


_PAD = torch.tensor([[False, False, True, False, True], [True, False, False, False, False]])
_ATTN = _MASK[0].clone()  # [2, 3, 5]
_ATTN[1, 0] = True  # batch 1's first query: every key masked, uniform weights (Burn's min_float)
_DROP = (torch.arange(60, dtype=torch.float64).reshape(2, 2, 3, 5) % 3 != 0) * 1.5  # keep 2/3


def _bce_logits(weights=None, smoothing=None):
    config = nn.BinaryCrossEntropyLossConfig().with_logits(True).with_smoothing(smoothing)
    return config.with_weights(weights).init(Device.cpu())


_ROPE = nn.RotaryEncodingConfig(6, 4).init(Device.cpu())


def _rope_ref(x, start=0):
    """Llama's complex formulation: each adjacent pair of the last dim times ``e^{i angle}``."""
    table = _ROPE.freq_complex.to_torch()[start:start + x.shape[-2], ::2]  # [seq, d / 2, 2]
    turn = torch.complex(table[..., 0], table[..., 1])
    pairs = torch.view_as_complex(x.unflatten(-1, (-1, 2)).contiguous())
    return torch.view_as_real(pairs * turn).flatten(-2)


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

    Row("fold4d",
        lambda x: mo.fold4d(x, [4, 5], [2, 3], UnfoldOptions(stride=[1, 2], padding=[1, 0],
                                                             dilation=[1, 1])),
        lambda x: tf.fold(x, (4, 5), (2, 3), dilation=1, padding=(1, 0), stride=(1, 2)),
        (F(2, 12, 10),)),
    Row("fold4d",
        lambda x: mo.fold4d(x, [5, 4], [2, 2], UnfoldOptions(stride=[2, 1], padding=[1, 1],
                                                             dilation=[2, 1])),
        lambda x: tf.fold(x, (5, 4), (2, 2), dilation=(2, 1), padding=1, stride=(2, 1)),
        (F(1, 8, 15),), variant="dilated"),
    Row("pixel_shuffle", lambda x: mo.pixel_shuffle(x, 2),
        lambda x: x.reshape(2, 2, 2, 2, 3, 2).permute(0, 1, 4, 2, 5, 3).reshape(2, 2, 6, 4),
        (F(2, 8, 3, 2),)),
    Row("pixel_unshuffle", lambda x: mo.pixel_unshuffle(x, 3),
        lambda x: x.reshape(1, 2, 2, 3, 1, 3).permute(0, 1, 3, 5, 2, 4).reshape(1, 18, 2, 1),
        (F(1, 2, 6, 3),)),

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

    # ---- Burn's MultiHeadAttention weights (no dropout): one mha_weights step ----
    Row("mha_weights", _mha_weights(), _mha_weights_ref, (F(2, 2, 3, 4), F(2, 2, 5, 4)),
        variant="no mask"),
    Row("mha_weights", _mha_weights(pad=_PAD), lambda q, k: _mha_weights_ref(q, k, _PAD),
        (F(2, 2, 3, 4), F(2, 2, 5, 4)), variant="padding mask"),
    Row("mha_weights", _mha_weights(attn=_ATTN), lambda q, k: _mha_weights_ref(q, k, None, _ATTN),
        (F(2, 2, 3, 4), F(2, 2, 5, 4)), variant="attention mask, a fully masked row"),
    Row("mha_weights", _mha_weights(_PAD, _ATTN), lambda q, k: _mha_weights_ref(q, k, _PAD, _ATTN),
        (F(2, 2, 3, 4), K(2, 2, 5, 4)), variant="both masks, key constant"),
    Row("mha_weights", _mha_weights(pad=_PAD), lambda q, k: _mha_weights_ref(q, k, _PAD),
        (K(2, 2, 3, 4), F(2, 2, 5, 4)), variant="query constant"),
    Row("mha_weights", _mha_weights(_PAD, _ATTN, _DROP),
        lambda q, k: _mha_weights_ref(q, k, _PAD, _ATTN, _DROP), (F(2, 2, 3, 4), F(2, 2, 5, 4)),
        variant="dropout and both masks"),

    # ---- Burn 0.21's options: additive bias (tracked, broadcast), softcap, causal, scale ----
    Row("attention", lambda q, k, v, b: mo.attention(q, k, v, None, b),
        lambda q, k, v, b: _attention_ref(q, k, v, bias=b),
        (F(2, 2, 3, 4), F(2, 2, 5, 4), F(2, 2, 5, 4), F(2, 2, 3, 5)), variant="attn_bias"),
    Row("attention", lambda q, k, v, b: mo.attention(q, k, v, None, b),
        lambda q, k, v, b: _attention_ref(q, k, v, bias=b),
        (F(2, 2, 3, 4), F(2, 2, 5, 4), F(2, 2, 5, 4), F(1, 1, 3, 5)),
        variant="attn_bias broadcast over batch and heads"),
    Row("attention", lambda q, k, v, b: mo.attention(q, k, v, _bool(_MASK, q), b),
        lambda q, k, v, b: _attention_ref(q, k, v, _MASK, b),
        (F(1, 2, 3, 4), F(1, 2, 5, 4), F(1, 2, 5, 2), K(1, 1, 3, 5)),
        variant="mask and constant attn_bias"),
    Row("attention", lambda q, k, v: mo.attention(q, k, v, None, None, _AO(softcap=1.5)),
        lambda q, k, v: _attention_ref(q, k, v, softcap=1.5),
        (F(2, 2, 3, 4, lo=-3, hi=3), F(2, 2, 5, 4, lo=-3, hi=3), F(2, 2, 5, 4)),
        variant="softcap"),
    Row("attention", lambda q, k, v: mo.attention(q, k, v, None, None,
                                                  _AO(is_causal=True, scale=0.7)),
        lambda q, k, v: _attention_ref(q, k, v, scale=0.7, causal=True),
        (F(1, 2, 3, 4), F(1, 2, 5, 4), F(1, 2, 5, 4)), variant="is_causal, scale"),
    Row("attention", lambda q, k, v: mo.attention(q, k, v, None, None, _AO(is_causal=True)),
        lambda q, k, v: _attention_ref(q, k, v, causal=True),
        (F(2, 2, 4, 4), F(2, 2, 4, 4), F(2, 2, 4, 4)),
        variant="is_causal, square scores: torch's causal flash kernels"),
    Row("attention", lambda q, k, v: mo.attention(q, k, v, None, None, _AO(is_causal=True)),
        lambda q, k, v: _attention_ref(q, k, v, causal=True),
        (F(1, 2, 4, 4), F(1, 2, 4, 4), F(1, 2, 4, 3)), variant="is_causal, square, fallback"),
    Row("attention", lambda q, k, v: mo.attention(q, k, v, _bool(_SQUARE_MASK, q), None,
                                                  _AO(is_causal=True)),
        lambda q, k, v: _attention_ref(q, k, v, _SQUARE_MASK, causal=True),
        (F(1, 2, 3, 4), F(1, 2, 3, 4), F(1, 2, 3, 4)), variant="is_causal and a mask"),
    Row("attention", lambda q, k, v: mo.attention(q, k, v, _bool(_DEAD_ROW, q)),
        lambda q, k, v: _attention_ref(q, k, v, _DEAD_ROW),
        (F(1, 2, 3, 4), F(1, 2, 5, 4), F(1, 2, 5, 4)), variant="a fully masked row is 0"),

    # ---- the fused cross entropy over class indices (CrossEntropyLoss, logits, no options) ----
    Row("cross_entropy", lambda x, t: nn.CrossEntropyLoss().forward(x, t),
        lambda x, t: -x.log_softmax(1).gather(1, t.unsqueeze(1)).mean().reshape(1),
        (F(4, 5), I(4, lo=0, hi=4))),

    # ---- nn.BinaryCrossEntropyLoss over logits, one step ----
    Row("binary_cross_entropy_with_logits", lambda x, t: _bce_logits().forward(x, t),
        lambda x, t: tf.binary_cross_entropy_with_logits(x, t.double()).reshape(1),
        (F(6), I(6, lo=0, hi=1)), variant="binary"),
    Row("binary_cross_entropy_with_logits",
        lambda x, t: _bce_logits((0.5, 2.0, 1.5), 0.1).forward(x, t),
        lambda x, t: tf.binary_cross_entropy_with_logits(
            x, t.double() * 0.9 + 0.1 / 3, weight=torch.tensor([0.5, 2.0, 1.5], dtype=x.dtype)
        ).reshape(1),
        (F(4, 3), I(4, 3, lo=0, hi=1)), variant="multi-label, class weights, smoothing"),

    # ---- nn.RotaryEncoding, one step ----
    Row("rotary", lambda x: _ROPE.forward(x), _rope_ref, (F(2, 3, 4),)),
    Row("rotary", lambda x: _ROPE.apply(x, 2), lambda x: _rope_ref(x, 2), (F(2, 2, 4, 4),),
        variant="from position 2, heads"),

    # ---- nn.HuberLoss reduced in one step (residuals on both sides of delta) ----
    Row("huber_loss", lambda x, y: nn.HuberLossConfig(0.7).init().forward(x, y),
        lambda x, y: tf.huber_loss(x, y, delta=0.7).reshape(1), (F(3, 4), F(3, 4))),
    Row("huber_loss", lambda x, y: nn.HuberLossConfig(1.5).init().forward(x, y, nn.Reduction.SUM),
        lambda x, y: tf.huber_loss(x, y, reduction="sum", delta=1.5).reshape(1),
        (F(6, lo=-3, hi=3), K(6, lo=-3, hi=3)), variant="sum, targets constant"),

    # ---- nn.MseLoss reduced in one step ----
    Row("mse_loss", lambda x, y: nn.MseLoss().forward(x, y),
        lambda x, y: (x - y).square().mean().reshape(1), (F(3, 4), F(3, 4))),
    Row("mse_loss", lambda x, y: nn.MseLoss().forward(x, y, nn.Reduction.SUM),
        lambda x, y: (x - y).square().sum().reshape(1), (F(2, 3, 2), F(2, 3, 2)), variant="sum"),
    Row("mse_loss", lambda x, y: nn.MseLoss().forward(x, y),
        lambda x, y: (x - y).square().mean().reshape(1), (F(5), K(5)), variant="targets constant"),
    Row("mse_loss", lambda x, y: nn.MseLoss().forward(x, y),
        lambda x, y: (x - y).square().mean().reshape(1), (K(5), F(5)), variant="logits constant"),
]

ROWS = CONV_ROWS + DEFORM_ROWS + POOL_ROWS + NN_ROWS
