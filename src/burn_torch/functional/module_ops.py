"""Burn's ``tensor::module`` functions: linear, embedding, convolutions, pooling, interpolation,
unfolding and attention, positional in Rust order, with Burn's layouts (``linear``'s weight is
``[d_input, d_output]``; a transposed convolution's weight is ``[channels_in, channels_out /
groups, *kernel]``).

Options are small immutable keyword classes named after Burn's struct fields
(:class:`ConvOptions`, :class:`PaddedConvOptions`, :class:`ConvTransposeOptions`,
:class:`UnfoldOptions`, :class:`InterpolateOptions`). Every function checks its inputs (TypeError
for a wrong kind or type, ValueError naming the shapes) before anything is recorded; each is one
op-table entry (``burn_torch.ops.nn``, ``ops.conv``, ``ops.pool``).
"""
from __future__ import annotations


import math
from collections import abc
from dataclasses import dataclass
from typing import Sequence

import torch

from .. import validate
from ..autodiff.checkpoint import Checkpoint
from ..autodiff.recorder import apply1, apply3, applyn, run, wrap
from ..dtype import Bool, Int, kind_of
from ..ops import conv as conv_ops
from ..ops import nn as nn_ops
from ..ops import pool as pool_ops
from ..methods.sampling import GridSampleOptions, GridSamplePaddingMode, InterpolateMode
from ..tensor import Tensor
from .ctc import ctc_loss  # noqa: F401  (Burn's module::ctc_loss)
from .norm_ops import batch_norm, group_norm, layer_norm, rms_norm  # noqa: F401  (Burn's module::layer_norm...)


# ============================================================================== options ====
def _ints(owner: str, field: str, value, minimum: int) -> tuple[int, ...]:
    """``value`` (a list or other sequence of ints, each ≥ ``minimum``) as a tuple; TypeError or
    ValueError naming ``owner`` and ``field`` otherwise. Plain lists and tuples take a fast path
    (this runs on every module-op call)."""
    kind = type(value)
    if kind is not tuple and kind is not list and (
            isinstance(value, (str, bytes)) or not isinstance(value, abc.Sequence)):
        raise TypeError(f"{owner}: {field} must be a list of ints, got {value!r}")
    for v in value:
        if type(v) is not int and (isinstance(v, bool) or not isinstance(v, int)):
            raise TypeError(f"{owner}: {field} must be a list of ints, got {value!r}")
    _check_min(owner, field, value, minimum)
    return value if kind is tuple else tuple(value)


def _check_min(owner: str, field: str, values, minimum: int) -> None:
    if min(values, default=minimum) < minimum:
        rule = "non-zero" if minimum == 1 else "non-negative"
        raise ValueError(f"{owner}: {field} must be {rule}, got {list(values)}")


def _count(owner: str, field: str, value) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise TypeError(f"{owner}: {field} must be an int, got {value!r}")
    _check_min(owner, field, [value], 1)
    return value


def _same_length(owner: str, fields: dict) -> None:
    lengths = {len(v) for v in fields.values()}
    if len(lengths) != 1 or 0 in lengths:
        desc = ", ".join(f"{k}={list(v)}" for k, v in fields.items())
        raise ValueError(f"{owner}: {', '.join(fields)} must have the same non-zero length, "
                         f"got {desc}")


def _freeze(obj, owner: str, spec: dict) -> None:
    """Normalises each list field (name → minimum) to a tuple and checks their lengths agree."""
    for field, minimum in spec.items():
        object.__setattr__(obj, field, _ints(owner, field, getattr(obj, field), minimum))
    _same_length(owner, {f: getattr(obj, f) for f in spec})


def _set_attrs(options, attrs: tuple) -> None:
    """Stores the convolution op's attributes on a validated options object (not a field: not in
    its repr, equality or hash), so a call does not rebuild them."""
    object.__setattr__(options, "_attrs", attrs)


@dataclass(frozen=True, kw_only=True)
class ConvOptions:
    """Burn's ``ConvOptions<N>``: per-dim ``stride`` (non-zero), ``padding``, ``dilation``
    (non-zero), and ``groups`` (non-zero). Lists are stored as tuples; ValueError/TypeError when
    invalid."""

    stride: Sequence[int]
    padding: Sequence[int]
    dilation: Sequence[int]
    groups: int

    def __post_init__(self) -> None:
        _freeze(self, "ConvOptions", {"stride": 1, "padding": 0, "dilation": 1})
        _count("ConvOptions", "groups", self.groups)
        _set_attrs(self, (self.stride, self.padding, self.dilation, False,
                          (0,) * len(self.stride), self.groups, None))


@dataclass(frozen=True, kw_only=True)
class PaddedConvOptions:
    """Burn's ``PaddedConvOptions<N>``: :class:`ConvOptions` whose ``padding`` is the padding at the
    start of each dim, plus ``padding_end`` (``None`` when padding is symmetric). Build it with
    :meth:`asymmetric`; a convolution given one pads its input explicitly, as Burn does."""

    options: ConvOptions
    padding_end: Sequence[int] | None = None

    def __post_init__(self) -> None:
        if not isinstance(self.options, ConvOptions):
            raise TypeError(f"PaddedConvOptions: options must be ConvOptions, got {self.options!r}")
        opts = self.options
        _set_attrs(self, opts._attrs)
        if self.padding_end is None:
            return
        end = _ints("PaddedConvOptions", "padding_end", self.padding_end, 0)
        _same_length("PaddedConvOptions", {"padding": opts.padding, "padding_end": end})
        if end == opts.padding:
            object.__setattr__(self, "padding_end", None)
            return
        object.__setattr__(self, "padding_end", end)
        # explicit padding (constant_pad_nd order: last dim first), then zero conv padding
        pads = tuple(p for s, e in zip(reversed(opts.padding), reversed(end)) for p in (s, e))
        _set_attrs(self, (opts.stride, (0,) * len(end), opts.dilation, False, (0,) * len(end),
                          opts.groups, pads))

    @classmethod
    def asymmetric(cls, *, stride: Sequence[int], padding_start: Sequence[int],
                   padding_end: Sequence[int], dilation: Sequence[int],
                   groups: int) -> "PaddedConvOptions":
        """Options with ``padding_start`` before and ``padding_end`` after each spatial dim."""
        return cls(options=ConvOptions(stride=stride, padding=padding_start, dilation=dilation,
                                       groups=groups), padding_end=padding_end)

    def is_asymmetric(self) -> bool:
        return self.padding_end is not None


@dataclass(frozen=True, kw_only=True)
class ConvTransposeOptions:
    """Burn's ``ConvTransposeOptions<N>``: ``stride`` (non-zero), ``padding``, ``padding_out``,
    ``dilation`` (non-zero), ``groups`` (non-zero). As in Burn, ``padding_out`` may reach the
    stride: the output has ``(in - 1) * stride + dilation * (kernel - 1) + 1 - 2 * padding +
    padding_out`` entries per dim, those past the kernel's reach holding only the bias."""

    stride: Sequence[int]
    padding: Sequence[int]
    padding_out: Sequence[int]
    dilation: Sequence[int]
    groups: int

    def __post_init__(self) -> None:
        _freeze(self, "ConvTransposeOptions",
                {"stride": 1, "padding": 0, "padding_out": 0, "dilation": 1})
        _count("ConvTransposeOptions", "groups", self.groups)
        if all(o < max(s, d) for o, s, d in zip(self.padding_out, self.stride, self.dilation)):
            _set_attrs(self, (self.stride, self.padding, self.dilation, True, self.padding_out,
                              self.groups, None))
            return
        # Burn accepts padding_out >= max(stride, dilation), torch's kernel does not: compute the
        # full output and take Burn's window of it (see ops/conv.py)
        window = tuple(p for pad, out in zip(reversed(self.padding), reversed(self.padding_out))
                       for p in (-pad, out - pad))
        zeros = (0,) * len(self.padding)
        _set_attrs(self, (self.stride, zeros, self.dilation, True, zeros, self.groups, window))


@dataclass(frozen=True, kw_only=True)
class DeformConvOptions:
    """Burn's ``DeformConvOptions<2>``: ``stride`` (non-zero), ``padding``, ``dilation``
    (non-zero), two ints each, and ``weight_groups``, ``offset_groups`` (non-zero)."""

    stride: Sequence[int]
    padding: Sequence[int]
    dilation: Sequence[int]
    weight_groups: int
    offset_groups: int

    def __post_init__(self) -> None:
        _freeze(self, "DeformConvOptions", {"stride": 1, "padding": 0, "dilation": 1})
        if len(self.stride) != 2:
            raise ValueError(f"DeformConvOptions: fields must have 2 entries, got {self}")
        _count("DeformConvOptions", "weight_groups", self.weight_groups)
        _count("DeformConvOptions", "offset_groups", self.offset_groups)


@dataclass(frozen=True, kw_only=True)
class UnfoldOptions:
    """Burn's ``UnfoldOptions``: ``stride`` (non-zero), ``padding``, ``dilation`` (non-zero), each
    two ints."""

    stride: Sequence[int]
    padding: Sequence[int]
    dilation: Sequence[int]

    def __post_init__(self) -> None:
        _freeze(self, "UnfoldOptions", {"stride": 1, "padding": 0, "dilation": 1})
        if len(self.stride) != 2:
            raise ValueError(f"UnfoldOptions: fields must have 2 entries, got {self}")


@dataclass(frozen=True, kw_only=True)
class InterpolateOptions:
    """Burn's ``InterpolateOptions``: ``mode`` and ``align_corners`` (default True, as Burn; it
    affects BILINEAR and BICUBIC, NEAREST always uses ``floor(i * in / out)``)."""

    mode: InterpolateMode
    align_corners: bool = True

    def __post_init__(self) -> None:
        if not isinstance(self.mode, InterpolateMode):
            raise TypeError(f"InterpolateOptions: mode must be an InterpolateMode, "
                            f"got {self.mode!r}")
        if not isinstance(self.align_corners, bool):
            raise TypeError(f"InterpolateOptions: align_corners must be a bool, "
                            f"got {self.align_corners!r}")


# ============================================================================ validation ====
def _float(what: str, name: str, t, rank: int | None, layout: str = "") -> None:
    """TypeError unless ``t`` is a Float Tensor; ValueError unless it has rank ``rank``."""
    if not isinstance(t, Tensor):
        raise TypeError(f"{what}: {name} must be a Tensor, got {type(t).__name__}")
    if not t._data.is_floating_point():
        raise TypeError(f"{what}: {name} must be a Float tensor, got {t.kind}")
    if rank is not None and t._data.dim() != rank:
        raise ValueError(f"{what}: {name} must have rank {rank}{layout}, "
                         f"got shape {list(t._data.shape)}")


def _shape(t) -> list[int]:
    return list(t._data.shape)


def _sizes(what: str, field: str, value, n: int, minimum: int) -> list[int]:
    """``value`` as a list of ``n`` ints ≥ ``minimum`` (an int is accepted when ``n`` is 1)."""
    if n == 1 and isinstance(value, int) and not isinstance(value, bool):
        value = [value]
    out = list(_ints(what, field, value, minimum))
    if len(out) != n:
        raise ValueError(f"{what}: {field} must have {n} entries, got {out}")
    return out


def _flag(what: str, field: str, value) -> bool:
    if not isinstance(value, bool):
        raise TypeError(f"{what}: {field} must be a bool, got {value!r}")
    return value


def _bias(what: str, bias, channels: int) -> None:
    if bias is None:
        return
    _float(what, "bias", bias, 1)
    if bias._data.shape[0] != channels:
        raise ValueError(f"{what}: bias must have shape [{channels}] (the output channels), "
                         f"got {_shape(bias)}")


def _options_arity(what: str, options, n: int) -> None:
    if len(options.stride) != n:
        raise ValueError(f"{what}: options must have {n} entries per field, got {options}")


def _biased(op, x, weight, bias, attrs=()):
    """Applies ``op`` to ``(x, weight)`` or, with a bias, to ``(x, weight, bias)``."""
    if bias is None:
        return applyn(op, (x, weight), attrs)
    return apply3(op, x, weight, bias, attrs)


# ================================================================================ linear ====
def linear(x: Tensor, weight: Tensor, bias: Tensor | None = None) -> Tensor:
    """``x @ weight + bias`` over the last dim: x ``[..., d_input]``, weight ``[d_input,
    d_output]`` (not transposed, unlike torch), bias ``[d_output]``; returns ``[..., d_output]``.
    Raises TypeError for non-Float tensors, ValueError naming the shapes when they disagree."""
    # one cheap check on the hot path; _linear_error explains a failure
    if not (isinstance(x, Tensor) and isinstance(weight, Tensor)
            and _linear_ok(x._data, weight._data, bias)):
        _linear_error(x, weight, bias)
    return _biased(nn_ops.LINEAR, x, weight, bias)


def _linear_ok(xd, wd, bias) -> bool:
    if not (xd.is_floating_point() and wd.is_floating_point() and wd.dim() == 2 and xd.dim()
            and xd.shape[-1] == wd.shape[0]):
        return False
    if bias is None:
        return True
    return (isinstance(bias, Tensor) and bias._data.is_floating_point()
            and bias._data.shape == wd.shape[1:])


def _linear_error(x, weight, bias):
    _float("linear", "x", x, None)
    _float("linear", "weight", weight, 2, " [d_input, d_output]")
    if x._data.dim() == 0 or x._data.shape[-1] != weight._data.shape[0]:
        raise ValueError(f"linear: x's last dim must equal weight's d_input, got x "
                         f"{_shape(x)} and weight {_shape(weight)}")
    _bias("linear", bias, weight._data.shape[1])


def embedding(weights: Tensor, indices: Tensor) -> Tensor:
    """Rows of ``weights [n_embeddings, d_model]`` picked by Int ``indices [batch, seq]``;
    returns ``[batch, seq, d_model]``. The gradient accumulates into the picked rows."""
    _float("embedding", "weights", weights, 2, " [n_embeddings, d_model]")
    if not isinstance(indices, Tensor) or kind_of(indices._data.dtype) is not Int:
        raise TypeError(f"embedding: indices must be an Int Tensor, got {_describe(indices)}")
    if indices._data.dim() != 2:
        raise ValueError(f"embedding: indices must have rank 2 [batch, seq], got shape "
                         f"{_shape(indices)}")
    # torch's kernel checks the range itself (IndexError, with no host read of the indices on
    # the way in): only a failure pays for the check that names the bad index
    try:
        return apply1(nn_ops.EMBEDDING, weights, (indices._data,))
    except IndexError as err:
        error = err
    validate.indices_in_range("embedding", 0, indices._data, weights._data.shape[0],
                              weights._data.shape)
    raise error


def _describe(t) -> str:
    return f"a {t.kind} tensor" if isinstance(t, Tensor) else type(t).__name__


# ========================================================================== convolution ====
_SPATIAL = {1: " [batch, channels, length]", 2: " [batch, channels, height, width]",
            3: " [batch, channels, depth, height, width]"}


def _conv(n: int, x, weight, bias, options) -> Tensor:
    # one cheap check on the hot path (plain options, valid tensors); the checks below explain
    # a failure
    if type(options) is ConvOptions and _conv_ok(n, x, weight, bias, options):
        return _biased(conv_ops.CONV[n], x, weight, bias, options._attrs)
    what = f"conv{n}d"
    if type(options) is ConvOptions:
        opts, padding_end = options, None
    elif type(options) is PaddedConvOptions:
        opts, padding_end = options.options, options.padding_end
    else:
        raise TypeError(f"{what}: options must be ConvOptions or PaddedConvOptions, "
                        f"got {options!r}")
    _float(what, "x", x, n + 2, _SPATIAL[n])
    _float(what, "weight", weight, n + 2, " [channels_out, channels_in / groups, *kernel]")
    _options_arity(what, opts, n)
    xs, ws, groups = _shape(x), _shape(weight), opts.groups
    if xs[1] != ws[1] * groups or ws[0] % groups:
        raise ValueError(f"{what}: x has {xs[1]} channels, weight {ws} with groups={groups} "
                         f"expects {ws[1] * groups} and channels_out divisible by groups "
                         f"(x {xs}, weight {ws})")
    _bias(what, bias, ws[0])
    if n == 3 and padding_end is not None:
        raise ValueError("conv3d: asymmetric padding is not supported for conv3d (as in Burn)")
    return _biased(conv_ops.CONV[n], x, weight, bias, options._attrs)


def _conv_ok(n: int, x, weight, bias, options: ConvOptions) -> bool:
    """Whether ``x`` and ``weight`` are Float tensors of rank ``n + 2`` whose channels agree
    with ``options`` (of ``n`` entries per field), and ``bias`` is None or a Float
    ``[channels_out]``."""
    if not (isinstance(x, Tensor) and isinstance(weight, Tensor)):
        return False
    xs, ws = x._data.shape, weight._data.shape
    groups = options.groups
    if not (len(xs) == n + 2 and len(ws) == n + 2 and len(options.stride) == n
            and xs[1] == ws[1] * groups and ws[0] % groups == 0
            and x._data.is_floating_point() and weight._data.is_floating_point()):
        return False
    return bias is None or (isinstance(bias, Tensor) and bias._data.is_floating_point()
                            and bias._data.shape == ws[:1])


def conv1d(x: Tensor, weight: Tensor, bias: Tensor | None,
           options: ConvOptions | PaddedConvOptions) -> Tensor:
    """1-D convolution: x ``[batch, channels_in, length]``, weight ``[channels_out, channels_in /
    groups, kernel]``, bias ``[channels_out]`` or None."""
    return _conv(1, x, weight, bias, options)


def conv2d(x: Tensor, weight: Tensor, bias: Tensor | None,
           options: ConvOptions | PaddedConvOptions) -> Tensor:
    """2-D convolution: x ``[batch, channels_in, height, width]``, weight ``[channels_out,
    channels_in / groups, k_h, k_w]``, bias ``[channels_out]`` or None."""
    return _conv(2, x, weight, bias, options)


def conv3d(x: Tensor, weight: Tensor, bias: Tensor | None,
           options: ConvOptions | PaddedConvOptions) -> Tensor:
    """3-D convolution: x ``[batch, channels_in, d, h, w]``, weight ``[channels_out, channels_in /
    groups, k_d, k_h, k_w]``; asymmetric padding raises ValueError, as Burn."""
    return _conv(3, x, weight, bias, options)


def _conv_transpose(n: int, x, weight, bias, options) -> Tensor:
    what = f"conv_transpose{n}d"
    if type(options) is not ConvTransposeOptions:
        raise TypeError(f"{what}: options must be ConvTransposeOptions, got {options!r}")
    _float(what, "x", x, n + 2, _SPATIAL[n])
    _float(what, "weight", weight, n + 2, " [channels_in, channels_out / groups, *kernel]")
    _options_arity(what, options, n)
    xs, ws, groups = _shape(x), _shape(weight), options.groups
    if xs[1] != ws[0] or ws[0] % groups:
        raise ValueError(f"{what}: x has {xs[1]} channels but weight {ws} expects {ws[0]} "
                         f"(divisible by groups={groups}) (x {xs}, weight {ws})")
    _bias(what, bias, ws[1] * groups)
    return _biased(conv_ops.CONV_TRANSPOSE[n], x, weight, bias, options._attrs)


def conv_transpose1d(x: Tensor, weight: Tensor, bias: Tensor | None,
                     options: ConvTransposeOptions) -> Tensor:
    """1-D transposed convolution: weight ``[channels_in, channels_out / groups, kernel]``."""
    return _conv_transpose(1, x, weight, bias, options)


def conv_transpose2d(x: Tensor, weight: Tensor, bias: Tensor | None,
                     options: ConvTransposeOptions) -> Tensor:
    """2-D transposed convolution: weight ``[channels_in, channels_out / groups, k_h, k_w]``."""
    return _conv_transpose(2, x, weight, bias, options)


def conv_transpose3d(x: Tensor, weight: Tensor, bias: Tensor | None,
                     options: ConvTransposeOptions) -> Tensor:
    """3-D transposed convolution: weight ``[channels_in, channels_out / groups, k_d, k_h,
    k_w]``."""
    return _conv_transpose(3, x, weight, bias, options)


def _conv_out(size: int, kernel: int, stride: int, padding: int, dilation: int) -> int:
    return (size + 2 * padding - dilation * (kernel - 1) - 1) // stride + 1


def deform_conv2d(x: Tensor, offset: Tensor, weight: Tensor, mask: Tensor | None,
                  bias: Tensor | None, options: DeformConvOptions) -> Tensor:
    """Deformable 2-D convolution (Burn's, torchvision's semantics): kernel tap ``k`` of output
    position ``p`` reads x bilinearly at ``p * stride - padding + k * dilation + offset`` (zero
    outside the input), scaled by ``mask`` (1 when None).

    x ``[batch, channels_in, h, w]``, offset ``[batch, 2 * offset_groups * k_h * k_w, out_h,
    out_w]`` (``(dy, dx)`` pairs per tap), weight ``[channels_out, channels_in / weight_groups,
    k_h, k_w]``, mask ``[batch, offset_groups * k_h * k_w, out_h, out_w]`` or None, bias
    ``[channels_out]`` or None. Returns ``[batch, channels_out, out_h, out_w]``. TypeError for
    wrong kinds, ValueError naming the shapes when they disagree.
    """
    what = "deform_conv2d"
    if type(options) is not DeformConvOptions:
        raise TypeError(f"{what}: options must be DeformConvOptions, got {options!r}")
    _float(what, "x", x, 4, _SPATIAL[2])
    _float(what, "offset", offset, 4, " [batch, 2 * offset_groups * k_h * k_w, out_h, out_w]")
    _float(what, "weight", weight, 4, " [channels_out, channels_in / weight_groups, k_h, k_w]")
    xs, ws, os_ = _shape(x), _shape(weight), _shape(offset)
    wg, og = options.weight_groups, options.offset_groups
    out = [_conv_out(n, k, s, p, d) for n, k, s, p, d in zip(
        xs[2:], ws[2:], options.stride, options.padding, options.dilation)]
    taps = ws[2] * ws[3]
    if xs[1] != ws[1] * wg or ws[0] % wg or xs[1] % og:
        raise ValueError(f"{what}: x {xs} and weight {ws} disagree with weight_groups={wg} and "
                         f"offset_groups={og} (channels_in = weight's dim 1 * weight_groups, "
                         f"divisible by offset_groups)")
    if os_ != [xs[0], 2 * og * taps, *out]:
        raise ValueError(f"{what}: offset must have shape {[xs[0], 2 * og * taps, *out]}, got "
                         f"{os_}")
    if mask is None:
        mask = wrap(x._data.new_ones((xs[0], og * taps, *out)), x._ctx)  # Burn's "no mask": 1
    else:
        _float(what, "mask", mask, 4, " [batch, offset_groups * k_h * k_w, out_h, out_w]")
        if _shape(mask) != [xs[0], og * taps, *out]:
            raise ValueError(f"{what}: mask must have shape {[xs[0], og * taps, *out]}, got "
                             f"{_shape(mask)}")
    _bias(what, bias, ws[0])
    inputs = (x, offset, weight, mask) + (() if bias is None else (bias,))
    return applyn(conv_ops.DEFORM_CONV2D, inputs, (
        list(options.stride), list(options.padding), list(options.dilation), wg, og))


# ============================================================================== pooling ====
def _pool_window(what: str, n: int, kernel_size, stride, padding, dilation=None):
    """The 2-D kernel attributes of an ``n``-D pool (1-D pools run on a height-1 view)."""
    lists = [_sizes(what, "kernel_size", kernel_size, n, 1), _sizes(what, "stride", stride, n, 1),
             _sizes(what, "padding", padding, n, 0)]
    if dilation is not None:
        lists.append(_sizes(what, "dilation", dilation, n, 1))
    if n == 1:
        lists = [[1] + lists[0], [1] + lists[1], [0] + lists[2]] + (
            [[1] + lists[3]] if dilation is not None else [])
    return [tuple(v) for v in lists]


def _avg_pool(n, op, x, kernel_size, stride, padding, count_include_pad, ceil_mode) -> Tensor:
    what = f"avg_pool{n}d"
    _float(what, "x", x, n + 2, _SPATIAL[n])
    k, s, p = _pool_window(what, n, kernel_size, stride, padding)
    attrs = (k, s, p, _flag(what, "count_include_pad", count_include_pad),
             _flag(what, "ceil_mode", ceil_mode))
    return apply1(op, x, attrs)


def avg_pool1d(x: Tensor, kernel_size: int, stride: int, padding: int, count_include_pad: bool,
               ceil_mode: bool = False) -> Tensor:
    """1-D average pooling of x ``[batch, channels, length]``."""
    return _avg_pool(1, pool_ops.AVG_POOL1D, x, kernel_size, stride, padding, count_include_pad,
                     ceil_mode)


def avg_pool2d(x: Tensor, kernel_size: Sequence[int], stride: Sequence[int],
               padding: Sequence[int], count_include_pad: bool, ceil_mode: bool = False) -> Tensor:
    """2-D average pooling of x ``[batch, channels, height, width]``."""
    return _avg_pool(2, pool_ops.AVG_POOL2D, x, kernel_size, stride, padding, count_include_pad,
                     ceil_mode)


def _max_pool(n, x, kernel_size, stride, padding, dilation, ceil_mode):
    what = f"max_pool{n}d"
    _float(what, "x", x, n + 2, _SPATIAL[n])
    attrs = (*_pool_window(what, n, kernel_size, stride, padding, dilation),
             _flag(what, "ceil_mode", ceil_mode))
    op = pool_ops.MAX_POOL1D if n == 1 else pool_ops.MAX_POOL2D
    if x._node is None:  # nothing to record: the kernel's output and indices, as they are
        out, indices = run(op, (x._data,), *attrs)
        return wrap(out, x._ctx), wrap(indices, x._ctx)
    out = apply1(op, x, attrs)
    saved = out._node.saved  # the step's saved record holds the residual ``indices``
    if saved.__class__ is Checkpoint:  # BALANCED: the record with references to recomputables
        saved = saved.saved
    return out, wrap(saved.indices, x._ctx)


def max_pool1d(x: Tensor, kernel_size: int, stride: int, padding: int, dilation: int,
               ceil_mode: bool = False) -> Tensor:
    """1-D max pooling of x ``[batch, channels, length]`` (padding counts as -inf)."""
    return _max_pool(1, x, kernel_size, stride, padding, dilation, ceil_mode)[0]


def max_pool2d(x: Tensor, kernel_size: Sequence[int], stride: Sequence[int],
               padding: Sequence[int], dilation: Sequence[int], ceil_mode: bool = False) -> Tensor:
    """2-D max pooling of x ``[batch, channels, height, width]`` (padding counts as -inf)."""
    # one cheap check on the hot path (a tracked Float x, pairs of valid ints); _max_pool
    # explains a failure and handles the rest
    attrs = _window2(kernel_size, stride, padding, dilation, ceil_mode)
    if attrs is not None and x.__class__ is Tensor and x._node is not None \
            and x._data.dim() == 4 and x._data.is_floating_point():
        return apply1(pool_ops.MAX_POOL2D, x, attrs)
    return _max_pool(2, x, kernel_size, stride, padding, dilation, ceil_mode)[0]


def _window2(kernel_size, stride, padding, dilation, ceil_mode):
    """The attrs of a 2-D pool when every argument is valid: pairs of ints (kernel_size, stride
    and dilation >= 1, padding >= 0) and a bool ceil_mode; None otherwise. One chain of checks
    (no loops): it runs on every call."""
    if not (kernel_size.__class__ in _PAIR and stride.__class__ in _PAIR
            and padding.__class__ in _PAIR and dilation.__class__ in _PAIR
            and ceil_mode.__class__ is bool
            and len(kernel_size) == 2 and len(stride) == 2 and len(padding) == 2
            and len(dilation) == 2):
        return None
    k0, k1 = kernel_size
    s0, s1 = stride
    p0, p1 = padding
    d0, d1 = dilation
    if not (k0.__class__ is int and k1.__class__ is int and s0.__class__ is int
            and s1.__class__ is int and p0.__class__ is int and p1.__class__ is int
            and d0.__class__ is int and d1.__class__ is int
            and k0 > 0 and k1 > 0 and s0 > 0 and s1 > 0 and d0 > 0 and d1 > 0
            and p0 >= 0 and p1 >= 0):
        return None
    return (k0, k1), (s0, s1), (p0, p1), (d0, d1), ceil_mode


_PAIR = (list, tuple)


def max_pool1d_with_indices(x: Tensor, kernel_size: int, stride: int, padding: int,
                            dilation: int, ceil_mode: bool = False) -> tuple[Tensor, Tensor]:
    """:func:`max_pool1d` and the Int index (along the length) of each maximum."""
    return _max_pool(1, x, kernel_size, stride, padding, dilation, ceil_mode)


def max_pool2d_with_indices(x: Tensor, kernel_size: Sequence[int], stride: Sequence[int],
                            padding: Sequence[int], dilation: Sequence[int],
                            ceil_mode: bool = False) -> tuple[Tensor, Tensor]:
    """:func:`max_pool2d` and the Int flat index ``h * width + w`` of each maximum."""
    return _max_pool(2, x, kernel_size, stride, padding, dilation, ceil_mode)


def _adaptive(n: int, op, x, output_size) -> Tensor:
    what = f"adaptive_avg_pool{n}d"
    _float(what, "x", x, n + 2, _SPATIAL[n])
    size = _sizes(what, "output_size", output_size, n, 1)
    return apply1(op, x, (size[0] if n == 1 else size,))


def adaptive_avg_pool1d(x: Tensor, output_size: int) -> Tensor:
    """Averages x ``[batch, channels, length]`` over ``output_size`` adaptive windows."""
    return _adaptive(1, pool_ops.ADAPTIVE_AVG_POOL1D, x, output_size)


def adaptive_avg_pool2d(x: Tensor, output_size: Sequence[int]) -> Tensor:
    """Averages x ``[batch, channels, height, width]`` to ``[h, w]`` adaptive windows."""
    return _adaptive(2, pool_ops.ADAPTIVE_AVG_POOL2D, x, output_size)


def adaptive_avg_pool3d(x: Tensor, output_size: Sequence[int]) -> Tensor:
    """Averages x ``[batch, channels, depth, height, width]`` to ``[d, h, w]`` windows."""
    return _adaptive(3, pool_ops.ADAPTIVE_AVG_POOL3D, x, output_size)


# ===================================================================== resampling, unfold ====
def interpolate(x: Tensor, output_size: Sequence[int], options: InterpolateOptions) -> Tensor:
    """Resamples x ``[batch, channels, height, width]`` to ``output_size`` ``[h, w]``."""
    _float("interpolate", "x", x, 4, _SPATIAL[2])
    if not isinstance(options, InterpolateOptions):
        raise TypeError(f"interpolate: options must be InterpolateOptions, got {options!r}")
    size = _sizes("interpolate", "output_size", output_size, 2, 1)
    return apply1(nn_ops.INTERPOLATE, x, (size, options.mode.value, options.align_corners))


def unfold4d(x: Tensor, kernel_size: Sequence[int], options: UnfoldOptions) -> Tensor:
    """Sliding blocks of x ``[batch, channels, height, width]`` as columns: returns ``[batch,
    channels * k_h * k_w, blocks]`` (channel-major, then kernel row, then kernel column)."""
    _float("unfold4d", "x", x, 4, _SPATIAL[2])
    if not isinstance(options, UnfoldOptions):
        raise TypeError(f"unfold4d: options must be UnfoldOptions, got {options!r}")
    k = _sizes("unfold4d", "kernel_size", kernel_size, 2, 1)
    return apply1(nn_ops.UNFOLD4D, x, (k, list(options.dilation), list(options.padding),
                                  list(options.stride)))


def fold4d(x: Tensor, output_size: Sequence[int], kernel_size: Sequence[int],
           options: UnfoldOptions) -> Tensor:
    """The adjoint of :func:`unfold4d` (torch's ``nn.Fold``): columns x ``[batch, channels * k_h *
    k_w, blocks]`` summed into ``[batch, channels, *output_size]`` where blocks overlap.
    ValueError when the column count does not divide by the kernel or ``blocks`` differs from the
    number of sliding blocks of ``output_size``."""
    _float("fold4d", "x", x, 3, " [batch, channels * k_h * k_w, blocks]")
    if not isinstance(options, UnfoldOptions):
        raise TypeError(f"fold4d: options must be UnfoldOptions, got {options!r}")
    size = _sizes("fold4d", "output_size", output_size, 2, 1)
    k = _sizes("fold4d", "kernel_size", kernel_size, 2, 1)
    blocks = math.prod(_conv_out(n, kk, s, p, d) for n, kk, s, p, d in zip(
        size, k, options.stride, options.padding, options.dilation))
    xs = _shape(x)
    if xs[1] % (k[0] * k[1]) or xs[2] != blocks or blocks <= 0:
        raise ValueError(f"fold4d: x {xs} must be [batch, channels * {k[0] * k[1]}, {blocks}] for "
                         f"output_size {size} and kernel_size {k}")
    return apply1(nn_ops.FOLD4D, x, (size, k, list(options.dilation), list(options.padding),
                                     list(options.stride)))


def pixel_shuffle(x: Tensor, upscale_factor: int) -> Tensor:
    """``[batch, c * r * r, h, w] -> [batch, c, h * r, w * r]`` (Burn's ``PixelShuffle``;
    ValueError unless the channels divide by ``r * r``)."""
    _float("pixel_shuffle", "x", x, 4, _SPATIAL[2])
    r = _count("pixel_shuffle", "upscale_factor", upscale_factor)
    if _shape(x)[1] % (r * r):
        raise ValueError(f"pixel_shuffle: input channels ({_shape(x)[1]}) must be divisible by "
                         f"upscale_factor^2 ({r * r})")
    return apply1(nn_ops.PIXEL_SHUFFLE, x, (r,))


def pixel_unshuffle(x: Tensor, downscale_factor: int) -> Tensor:
    """``[batch, c, h * r, w * r] -> [batch, c * r * r, h, w]`` (Burn's ``PixelUnshuffle``;
    ValueError unless height and width divide by ``r``)."""
    _float("pixel_unshuffle", "x", x, 4, _SPATIAL[2])
    r = _count("pixel_unshuffle", "downscale_factor", downscale_factor)
    h, w = _shape(x)[2:]
    if h % r or w % r:
        raise ValueError(f"pixel_unshuffle: input height ({h}) and width ({w}) must be divisible "
                         f"by downscale_factor ({r})")
    return apply1(nn_ops.PIXEL_UNSHUFFLE, x, (r,))


# ============================================================================ attention ====
@dataclass(frozen=True, kw_only=True)
class AttentionModuleOptions:
    """Burn's ``AttentionModuleOptions``: ``scale`` (None: ``1 / sqrt(head_dim)``), ``softcap``
    (None, or positive: scores become ``softcap * tanh(scores / softcap)`` before masking, as
    Gemma 2) and ``is_causal`` (mask key ``j`` for query ``i`` when ``j > i + seq_k - seq_q``,
    the causal boundary aligned at the bottom-right corner)."""

    scale: float | None = None
    softcap: float | None = None
    is_causal: bool = False

    def __post_init__(self) -> None:
        for field in ("scale", "softcap"):
            value = getattr(self, field)
            if value is not None:
                value = validate.real("AttentionModuleOptions", field, value)
                object.__setattr__(self, field, float(value))
        if self.softcap is not None and not self.softcap > 0:
            raise ValueError(f"AttentionModuleOptions: softcap must be positive, got "
                             f"{self.softcap}")
        _flag("AttentionModuleOptions", "is_causal", self.is_causal)


_NO_OPTIONS = AttentionModuleOptions()


def attention(q: Tensor, k: Tensor, v: Tensor, mask: Tensor | None = None,
              attn_bias: Tensor | None = None,
              options: AttentionModuleOptions | None = None) -> Tensor:
    """Scaled dot-product attention, Burn's (0.21): ``softmax(q kᵀ · scale [softcapped], -inf
    where masked, + attn_bias) v``.

    q ``[batch, heads, seq_q, head_dim]``, k ``[batch, heads, seq_k, head_dim]``, v ``[batch,
    heads, seq_k, val_dim]`` (same batch and heads); the optional Bool ``mask`` (broadcastable to
    ``[batch, heads, seq_q, seq_k]``) is True where a position is masked out; the optional Float
    ``attn_bias`` (broadcastable likewise, differentiable) is added to the scores after masking
    (ALiBi, relative positions); ``options``: :class:`AttentionModuleOptions`. A fully masked
    row attends to nothing: its output and gradients are 0 (Burn's NaN-safe softmax). Returns
    ``[batch, heads, seq_q, val_dim]``. Raises TypeError/ValueError (naming the shapes) for
    other kinds or shapes.
    """
    # one cheap check on the hot path; _attention_error explains a failure
    if not (isinstance(q, Tensor) and isinstance(k, Tensor) and isinstance(v, Tensor)
            and _attention_ok(q._data.shape, k._data.shape, v._data.shape)
            and q._data.is_floating_point() and k._data.is_floating_point()
            and v._data.is_floating_point()):
        _attention_error(q, k, v)
    if options is None:
        options = _NO_OPTIONS
    elif type(options) is not AttentionModuleOptions:
        raise TypeError(f"attention: options must be AttentionModuleOptions, got {options!r}")
    qs, ks = q._data.shape, k._data.shape
    scores = (qs[0], qs[1], qs[2], ks[2])
    mask_data = None
    if mask is not None:
        if not isinstance(mask, Tensor) or kind_of(mask._data.dtype) is not Bool:
            raise TypeError(f"attention: mask must be a Bool Tensor, got {_describe(mask)}")
        if not _broadcasts(mask, scores):
            raise ValueError(f"attention: mask {_shape(mask)} must broadcast to the scores "
                             f"{list(scores)}")
        mask_data = mask._data
    # is_causal alone over square scores is the op's ``causal`` attr (torch's own causal
    # kernels, no mask tensor); with a mask, or with seq_q != seq_k (Burn aligns the diagonal
    # at the bottom-right corner), it is folded into the mask
    causal = options.is_causal
    if causal and (mask_data is not None or qs[2] != ks[2]):
        seq_q, seq_k = qs[2], ks[2]
        device = q._data.device
        rows = torch.arange(seq_q, device=device).view(-1, 1) + (seq_k - seq_q)
        folded = (torch.arange(seq_k, device=device).view(1, -1) > rows).view(
            1, 1, seq_q, seq_k)
        mask_data = folded if mask_data is None else mask_data | folded
        causal = False
    scale = options.scale
    if scale is None:
        scale = 1.0 / math.sqrt(qs[3])
    attrs = (mask_data, scale, options.softcap, causal)
    if attn_bias is None:
        return apply3(nn_ops.ATTENTION, q, k, v, attrs)
    _float("attention", "attn_bias", attn_bias, 4, " [batch, heads, seq_q, seq_k]")
    if not _broadcasts(attn_bias, scores):
        raise ValueError(f"attention: attn_bias {_shape(attn_bias)} must broadcast to the "
                         f"scores {list(scores)}")
    return applyn(nn_ops.ATTENTION, (q, k, v, attn_bias), attrs)


def _attention_ok(qs, ks, vs) -> bool:
    """Whether q, k, v of these shapes are rank 4 with the same batch and heads, q and k the
    same head_dim, k and v the same seq_k."""
    return (len(qs) == 4 and len(ks) == 4 and len(vs) == 4 and qs[0] == ks[0] == vs[0]
            and qs[1] == ks[1] == vs[1] and qs[3] == ks[3] and ks[2] == vs[2])


def _attention_error(q, k, v) -> None:
    """Raises the error that explains why q, k, v are not valid attention inputs."""
    layout = " [batch, heads, seq, dim]"
    for name, t in (("q", q), ("k", k), ("v", v)):
        _float("attention", name, t, 4, layout)
    qs, ks, vs = _shape(q), _shape(k), _shape(v)
    raise ValueError(f"attention: incompatible shapes q {qs}, k {ks}, v {vs} (they need the "
                     f"same batch and heads, q and k the same head_dim, k and v the same "
                     f"seq_k)")


def _broadcasts(t: Tensor, shape) -> bool:
    """Whether ``t`` (rank 4) broadcasts to ``shape`` (4 sizes)."""
    ts = t._data.shape
    return len(ts) == 4 and all(a == b or a == 1 for a, b in zip(ts, shape))


__all__ = [
    "ConvOptions", "PaddedConvOptions", "ConvTransposeOptions", "UnfoldOptions",
    "InterpolateMode", "InterpolateOptions", "GridSampleOptions", "GridSamplePaddingMode", "linear", "embedding", "conv1d", "conv2d", "conv3d",
    "conv_transpose1d", "conv_transpose2d", "conv_transpose3d", "avg_pool1d", "avg_pool2d",
    "max_pool1d", "max_pool2d", "max_pool1d_with_indices", "max_pool2d_with_indices",
    "adaptive_avg_pool1d", "adaptive_avg_pool2d", "adaptive_avg_pool3d", "interpolate",
    "unfold4d", "attention", "AttentionModuleOptions", "DeformConvOptions", "deform_conv2d",
    "fold4d", "pixel_shuffle", "pixel_unshuffle",
]
__all__ += ["layer_norm", "rms_norm", "group_norm", "batch_norm", "ctc_loss"]
