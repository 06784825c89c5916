"""Convolutions and transposed convolutions (Burn's ``conv{1,2,3}d``, ``conv_transpose{1,2,3}d``).

Every entry runs ``torch.convolution`` forward and torch's own ``convolution_backward`` kernel
backward, one fused rule computing every tracked input's gradient in one call. They are applied
with ``applyn``: ``forward(datas, *attrs)`` receives ``(x, weight)`` or ``(x, weight, bias)``
(inputs ``x``, ``weight``, ``bias``; the bias may be absent). Compute-bound (Burn marks
convolutions ``compute_bound``): BALANCED checkpointing keeps their outputs.

A 1-D or 2-D float32 convolution on CPU is tunable (``burn_torch.autotune``): forward and
backward each run torch's default dispatch (oneDNN) or the ``_slow_conv2d`` kernels, whichever
the first call with the same shapes timed faster.

Attributes: ``(stride, padding, dilation, transposed, output_padding, groups, pads)`` where
``pads`` is ``None`` or a ``constant_pad_nd`` spec (last dim first). For a convolution it is
Burn's asymmetric padding: the input is padded explicitly and convolved with zero padding. For a
transposed convolution it is the output window: the kernel computes the full output (padding and
output padding 0, no bias), the spec crops ``padding`` at the start of each dim and crops or
zero-extends its end to ``padding_out - padding``, then the bias is added. This is how Burn's
``padding_out >= stride`` (which torch's kernel rejects) is computed: the extended entries hold
the bias only, as in Burn.

``deform_conv2d`` (Burn's deformable convolution, torchvision's semantics) is one entry too: its
forward samples the input at the offset positions with torch's ``grid_sampler_2d`` (bilinear,
zeros outside), scales the samples by the mask and multiplies them with the weight as a grouped
matrix product; its fused rule uses ``grid_sampler_2d_backward`` for the input and offsets.
"""
import torch

from .tuning import MAX_EXTRA_BYTES, Tunable, anchored
from .table import COMPUTE, defop
from .kernels import kernel

_CONVOLUTION_BACKWARD = kernel(torch.ops.aten.convolution_backward.default)
_SLOW_CONV2D = kernel(torch.ops.aten._slow_conv2d_forward.default)
_SLOW_CONV2D_BACKWARD = kernel(torch.ops.aten._slow_conv2d_backward.output_mask)
_convolution = torch.convolution
_pad = torch.constant_pad_nd
_threads = torch.get_num_threads
_float32 = torch.float32
_UNIT = (1, 1)
_ZERO = (0, 0)

_INPUTS = ("x", "weight", "bias")
_ATTRS = ("stride", "padding", "dilation", "transposed", "output_padding", "groups", "pads")
# torch's kernel takes x and the weight whichever gradients it computes; the bias only by shape
_NEEDS = (("x", "weight"), ("x", "weight"), ("x", "weight", "bias_shape"))


# ---- the tunable convolution: 1-D or 2-D, groups 1, dilation 1, float32 (torch runs
# _slow_conv2d itself for other dtypes), and an im2col buffer of at most MAX_EXTRA_BYTES:
# _slow_conv2d unfolds the whole batch at once (kernel-size times the input), which must not cost
# a large input more memory than torch's default kernel (where that kernel is faster anyway).
# A 1-D convolution runs the 2-D kernels on a height-1 view, as torch's own dispatch does.
_MAX_COLUMNS = MAX_EXTRA_BYTES // 4  # float32 elements


def _tunable(x, weight, stride, padding, dilation, transposed, groups) -> bool:
    nd = x.dim()
    if transposed or groups != 1 or nd < 3 or nd > 4 or weight.dim() != nd \
            or x.dtype is not _float32 or any(d != 1 for d in dilation):
        return False
    columns = x.shape[0] * x.shape[1]
    for i in range(2, nd):
        k = weight.shape[i]
        columns *= k * ((x.shape[i] + 2 * padding[i - 2] - k) // stride[i - 2] + 1)
    return columns <= _MAX_COLUMNS


def _conv_default(x, weight, bias, stride, padding):
    n = len(stride)
    return _convolution(x, weight, bias, stride, padding, _UNIT[:n], False, _ZERO[:n], 1)


def _as_2d(t):
    """A 1-D convolution's tensor as the 2-D kernels take it (a height-1 view); 2-D as it is."""
    return t if t.dim() == 4 else t.unsqueeze(2)


def _window_2d(weight, stride, padding):
    """``(kernel_size, stride, padding)`` of the 2-D kernels for a 1-D or 2-D weight."""
    if weight.dim() == 4:
        return weight.shape[2:], stride, padding
    return (1, weight.shape[2]), (1, stride[0]), (0, padding[0])


def _conv_slow(x, weight, bias, stride, padding):
    # the _slow_conv2d kernels want contiguous operands (a channels-last x, a gradient from a
    # transposed view): a copy here is part of what tuning times
    kernel, stride2, padding2 = _window_2d(weight, stride, padding)
    out = _SLOW_CONV2D(_as_2d(x.contiguous()), _as_2d(weight.contiguous()), kernel, bias, stride2,
                       padding2)
    return out if x.dim() == 4 else out.squeeze(2)


def _conv_backward_default(g, x, weight, bias_shape, stride, padding, mask):
    n = len(stride)
    return _CONVOLUTION_BACKWARD(g, x, weight, bias_shape, stride, padding, _UNIT[:n], False,
                                 _ZERO[:n], 1, mask)


def _conv_backward_slow(g, x, weight, bias_shape, stride, padding, mask):
    kernel, stride2, padding2 = _window_2d(weight, stride, padding)
    gx, gw, gb = _SLOW_CONV2D_BACKWARD(_as_2d(g.contiguous()), _as_2d(x.contiguous()),
                                       _as_2d(weight.contiguous()), kernel, stride2, padding2,
                                       mask)
    if x.dim() == 3:
        gx = None if gx is None else gx.squeeze(2)
        gw = None if gw is None else gw.squeeze(2)
    return gx, gw, gb


CONV_KERNELS = Tunable("conv", {"convolution": _conv_default, "slow_conv2d": _conv_slow})
CONV_BACKWARD_KERNELS = Tunable("conv_backward", {"convolution_backward": _conv_backward_default,
                                                  "slow_conv2d_backward": _conv_backward_slow})


def _conv_forward(datas, stride, padding, dilation, transposed, output_padding, groups, pads):
    x, weight = datas[0], datas[1]
    bias = datas[2] if len(datas) == 3 else None
    if pads is None or not transposed:
        x = x if pads is None else _pad(x, pads)
        if _tunable(x, weight, stride, padding, dilation, transposed, groups):
            return CONV_KERNELS((anchored(x.shape), weight.shape, bias is None, stride, padding,
                                   x.is_contiguous(), _threads()), x, weight, bias, stride, padding)
        return _convolution(x, weight, bias, stride, padding, dilation, transposed,
                            output_padding, groups)
    out = _pad(_convolution(x, weight, None, stride, padding, dilation, True, output_padding,
                            groups), pads)
    return out if bias is None else out + bias.reshape((-1,) + (1,) * (out.dim() - 2))


def _unpad(gx, pads):
    """Drops the gradient of the explicit padding: narrows each padded dim back to the input."""
    nd = gx.dim()
    for i in range(0, len(pads), 2):
        dim = nd - 1 - i // 2
        start, end = pads[i], pads[i + 1]
        gx = gx.narrow(dim, start, gx.shape[dim] - start - end)
    return gx


def _conv_rule(g, s, parents):
    pads = s.pads
    window = pads is not None and s.transposed  # the output window of a transposed conv
    x = s.x if pads is None or window else _pad(s.x, pads)
    px, pw = parents[0], parents[1]
    pb = parents[2] if len(parents) == 3 else None
    kernel_bias = pb is not None and not window
    mask = [px is not None, pw is not None, kernel_bias]
    weight = s.weight
    if _tunable(x, weight, s.stride, s.padding, s.dilation, s.transposed, s.groups):
        gx, gw, gb = CONV_BACKWARD_KERNELS(
            (anchored(x.shape), weight.shape, s.stride, s.padding, *mask, x.is_contiguous(),
             g.is_contiguous(), _threads()),
            g, x, weight, list(s.bias_shape) if kernel_bias else None, s.stride, s.padding, mask)
    else:
        gx, gw, gb = _CONVOLUTION_BACKWARD(
            _pad(g, [-p for p in pads]) if window else g, x, weight,
            list(s.bias_shape) if kernel_bias else None, s.stride, s.padding, s.dilation,
            s.transposed, s.output_padding, s.groups, mask)
    if gx is not None and pads is not None and not window:
        gx = _unpad(gx, pads)
    if pb is not None and window:
        gb = g.sum([d for d in range(g.dim()) if d != 1])
    return (gx, gw) if len(parents) == 2 else (gx, gw, gb)


def _defconv(name):
    return defop(name, _conv_forward, COMPUTE, inputs=_INPUTS, attrs=_ATTRS, fused=_conv_rule,
                 needs=_NEEDS)


CONV = {n: _defconv(f"conv{n}d") for n in (1, 2, 3)}
CONV_TRANSPOSE = {n: _defconv(f"conv_transpose{n}d") for n in (1, 2, 3)}


# ---- deform_conv2d: inputs (x, offset, weight, mask, bias?); the mask is ones when Burn's is None
_GRID_SAMPLER = kernel(torch.ops.aten.grid_sampler_2d.default)
_GRID_SAMPLER_BACKWARD = kernel(torch.ops.aten.grid_sampler_2d_backward.default)
_DEFORM_ATTRS = ("stride", "padding", "dilation", "weight_groups", "offset_groups")


def _deform_grid(x, offset, weight, stride, padding, dilation, offset_groups):
    """The sampling grid of every (offset group, kernel position, output position):
    ``[batch * offset_groups, k_h * k_w * out_h, out_w, 2]`` in grid_sampler's normalised ``(x,
    y)`` coordinates (align_corners False, so that a one-pixel input needs no special case)."""
    b, _, h, w = x.shape
    kh, kw = weight.shape[2:]
    oh, ow = offset.shape[2:]
    off = offset.view(b, offset_groups, kh, kw, 2, oh, ow)
    rows = torch.arange(oh, dtype=x.dtype, device=x.device) * stride[0] - padding[0]
    cols = torch.arange(ow, dtype=x.dtype, device=x.device) * stride[1] - padding[1]
    ky = torch.arange(kh, dtype=x.dtype, device=x.device) * dilation[0]
    kx = torch.arange(kw, dtype=x.dtype, device=x.device) * dilation[1]
    y = off[:, :, :, :, 0] + (ky.view(kh, 1, 1, 1) + rows.view(1, 1, oh, 1))
    xx = off[:, :, :, :, 1] + (kx.view(1, kw, 1, 1) + cols.view(1, 1, 1, ow))
    grid = torch.stack(((2 * xx + 1) / w - 1, (2 * y + 1) / h - 1), -1)
    return grid.view(b * offset_groups, kh * kw * oh, ow, 2)


def _deform_forward(datas, stride, padding, dilation, weight_groups, offset_groups):
    x, offset, weight, mask = datas[:4]
    b, c, h, w = x.shape
    c_out = weight.shape[0]
    k = weight.shape[2] * weight.shape[3]
    oh, ow = offset.shape[2:]
    grid = _deform_grid(x, offset, weight, stride, padding, dilation, offset_groups)
    sampled = _GRID_SAMPLER(x.reshape(b * offset_groups, c // offset_groups, h, w), grid, 0, 0,
                            False)
    columns = sampled.view(b, offset_groups, c // offset_groups, k, oh * ow) * mask.view(
        b, offset_groups, 1, k, oh * ow)
    out = torch.matmul(weight.reshape(weight_groups, c_out // weight_groups, -1),
                       columns.view(b, weight_groups, -1, oh * ow)).view(b, c_out, oh, ow)
    if len(datas) == 5:
        out = out.add_(datas[4].view(1, -1, 1, 1))
    return out, sampled, grid


def _deform_rule(g, s, parents):
    x, offset, weight, mask, sampled = s.x, s.offset, s.weight, s.mask, s.sampled
    px, poff, pw, pm = parents[:4]
    b, c, h, w = x.shape
    groups, ogroups = s.weight_groups, s.offset_groups
    c_out = weight.shape[0]
    k = weight.shape[2] * weight.shape[3]
    oh, ow = offset.shape[2:]
    g_l = g.reshape(b, groups, c_out // groups, oh * ow)
    sampled5 = sampled.view(b, ogroups, c // ogroups, k, oh * ow)
    mask5 = mask.view(b, ogroups, 1, k, oh * ow)
    gx = goff = gw = gm = gb = None
    if pw is not None:
        columns = (sampled5 * mask5).view(b, groups, -1, oh * ow)
        gw = torch.matmul(g_l, columns.transpose(-1, -2)).sum(0).view(weight.shape)
    if len(parents) == 5 and parents[4] is not None:
        gb = g.sum((0, 2, 3))
    if px is not None or poff is not None or pm is not None:
        w_g = weight.reshape(groups, c_out // groups, -1)
        g_cols = torch.matmul(w_g.transpose(-1, -2), g_l).view(b, ogroups, c // ogroups, k,
                                                               oh * ow)
        if pm is not None:
            gm = (g_cols * sampled5).sum(2).view(mask.shape)
        if px is not None or poff is not None:
            g_sampled = (g_cols * mask5).view(sampled.shape)
            gin, ggrid = _GRID_SAMPLER_BACKWARD(
                g_sampled, x.reshape(b * ogroups, c // ogroups, h, w), s.grid, 0, 0, False,
                [px is not None, poff is not None])
            if px is not None:
                gx = gin.view(x.shape)
            if poff is not None:
                ggrid = ggrid.view(b, ogroups, weight.shape[2], weight.shape[3], oh, ow, 2)
                goff = torch.stack((ggrid[..., 1] * (2.0 / h), ggrid[..., 0] * (2.0 / w)), 4)
                goff = goff.view(offset.shape)
    out = (gx, goff, gw, gm)
    return out + (gb,) if len(parents) == 5 else out


_DEFORM_NEEDS = ("x", "offset", "weight", "mask", "sampled", "grid")
DEFORM_CONV2D = defop("deform_conv2d", _deform_forward, COMPUTE,
                      inputs=("x", "offset", "weight", "mask", "bias"), attrs=_DEFORM_ATTRS,
                      residuals=("sampled", "grid"), fused=_deform_rule,
                      needs=(_DEFORM_NEEDS,) * 4 + ((),))
