"""Burn's convolution functions (``module::conv1d`` ... ``conv_transpose3d``,
``deform_conv2d``) and their options ([`ConvOptions`][burn_torch.functional.module_ops.ConvOptions],
[`PaddedConvOptions`][burn_torch.functional.module_ops.PaddedConvOptions],
[`ConvTransposeOptions`][burn_torch.functional.module_ops.ConvTransposeOptions],
[`DeformConvOptions`][burn_torch.functional.module_ops.DeformConvOptions]). Weights keep Burn's
layouts: ``[channels_out, channels_in / groups,
*kernel]`` for a convolution, ``[channels_in, channels_out / groups, *kernel]`` for a transposed
one. Each is one op-table entry (``burn_torch.ops.conv``).
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar, Sequence

from ...autodiff.recorder import applyn, wrap
from ...ops import conv as conv_ops
from ...tensor import Tensor
from .checks import _bias, _biased, _count, _float, _freeze, _ints, _same_length, _shape, _SPATIAL


# ============================================================================== options ====
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

    #: the op's attributes, set per instance by ``__post_init__`` (not a field)
    _attrs: ClassVar[tuple]

    def __post_init__(self) -> None:
        _freeze(self, "ConvOptions", {"stride": 1, "padding": 0, "dilation": 1})
        _count("ConvOptions", "groups", self.groups)
        _set_attrs(self, (self.stride, self.padding, self.dilation, False,
                          (0,) * len(self.stride), self.groups, None))


@dataclass(frozen=True, kw_only=True)
class PaddedConvOptions:
    """Burn's ``PaddedConvOptions<N>``:
    [`ConvOptions`][burn_torch.functional.module_ops.ConvOptions] whose ``padding`` is the padding
    at the start of each dim, plus ``padding_end`` (``None`` when padding is symmetric). Build it
    with [`asymmetric`][burn_torch.functional.module_ops.PaddedConvOptions.asymmetric]; a
    convolution given one pads its input explicitly, as Burn does."""

    options: ConvOptions
    padding_end: Sequence[int] | None = None

    #: the op's attributes, set per instance by ``__post_init__`` (not a field)
    _attrs: ClassVar[tuple]

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

    #: the op's attributes, set per instance by ``__post_init__`` (not a field)
    _attrs: ClassVar[tuple]

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


def _options_arity(what: str, options, n: int) -> None:
    if len(options.stride) != n:
        raise ValueError(f"{what}: options must have {n} entries per field, got {options}")


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
