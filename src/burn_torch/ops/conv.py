"""Convolutions and transposed convolutions (Burn's ``conv{1,2,3}d``, ``conv_transpose{1,2,3}d``).

Every entry runs ``torch.convolution`` forward and torch's own ``convolution_backward`` kernel
backward, one fused rule computing every tracked input's gradient in one call. They are applied
with ``applyn``: ``forward(datas, *attrs)`` receives ``(x, weight)`` or ``(x, weight, bias)``
(inputs ``x``, ``weight``, ``bias``; the bias may be absent). Compute-bound (Burn marks
convolutions ``compute_bound``): BALANCED checkpointing keeps their outputs.

Attributes: ``(stride, padding, dilation, transposed, output_padding, groups, pads)`` where
``pads`` is ``None`` or a ``constant_pad_nd`` spec (last dim first). For a convolution it is
Burn's asymmetric padding: the input is padded explicitly and convolved with zero padding. For a
transposed convolution it is the output window: the kernel computes the full output (padding and
output padding 0, no bias), the spec crops ``padding`` at the start of each dim and crops or
zero-extends its end to ``padding_out - padding``, then the bias is added. This is how Burn's
``padding_out >= stride`` (which torch's kernel rejects) is computed: the extended entries hold
the bias only, as in Burn.
"""
import torch

from .table import COMPUTE, defop

_CONVOLUTION_BACKWARD = torch.ops.aten.convolution_backward.default
_convolution = torch.convolution
_pad = torch.constant_pad_nd

_INPUTS = ("x", "weight", "bias")
_ATTRS = ("stride", "padding", "dilation", "transposed", "output_padding", "groups", "pads")
# torch's kernel takes x and the weight whichever gradients it computes; the bias only by shape
_NEEDS = (("x", "weight"), ("x", "weight"), ("x", "weight", "bias_shape"))


def _conv_forward(datas, stride, padding, dilation, transposed, output_padding, groups, pads):
    x, weight = datas[0], datas[1]
    bias = datas[2] if len(datas) == 3 else None
    if pads is None or not transposed:
        x = x if pads is None else _pad(x, pads)
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
    gx, gw, gb = _CONVOLUTION_BACKWARD(
        _pad(g, [-p for p in pads]) if window else g, x, s.weight,
        list(s.bias_shape) if kernel_bias else None, s.stride, s.padding, s.dilation,
        s.transposed, s.output_padding, s.groups, [px is not None, pw is not None, kernel_bias])
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
