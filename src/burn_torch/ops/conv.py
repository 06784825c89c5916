"""Convolutions and transposed convolutions (Burn's ``conv{1,2,3}d``, ``conv_transpose{1,2,3}d``).

Every entry runs ``torch.convolution`` forward and torch's own ``convolution_backward`` kernel
backward, one fused rule computing every tracked input's gradient in one call. They are applied
with ``applyn``: ``forward(datas, *attrs)`` receives ``(x, weight)`` or ``(x, weight, bias)``
(inputs ``x``, ``weight``, ``bias``; the bias may be absent). Compute-bound (Burn marks
convolutions ``compute_bound``): BALANCED checkpointing keeps their outputs.

Attributes: ``(stride, padding, dilation, transposed, output_padding, groups, pads)`` where
``pads`` is ``None`` or a ``constant_pad_nd`` spec (last dim first) for Burn's asymmetric padding,
which pads the input explicitly and convolves with zero padding.
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
    x = datas[0] if pads is None else _pad(datas[0], pads)
    bias = datas[2] if len(datas) == 3 else None
    return _convolution(x, datas[1], bias, stride, padding, dilation, transposed, output_padding,
                        groups)


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
    x = s.x if pads is None else _pad(s.x, pads)
    px, pw = parents[0], parents[1]
    pb = parents[2] if len(parents) == 3 else None
    gx, gw, gb = _CONVOLUTION_BACKWARD(
        g, x, s.weight, list(s.bias_shape) if pb is not None else None, s.stride, s.padding,
        s.dilation, s.transposed, s.output_padding, s.groups,
        [px is not None, pw is not None, pb is not None])
    if gx is not None and pads is not None:
        gx = _unpad(gx, pads)
    return (gx, gw) if len(parents) == 2 else (gx, gw, gb)


def _defconv(name):
    return defop(name, _conv_forward, COMPUTE, inputs=_INPUTS, attrs=_ATTRS, fused=_conv_rule,
                 needs=_NEEDS)


CONV = {n: _defconv(f"conv{n}d") for n in (1, 2, 3)}
CONV_TRANSPOSE = {n: _defconv(f"conv_transpose{n}d") for n in (1, 2, 3)}
