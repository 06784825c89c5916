"""Convolutions and transposed convolutions (Burn's ``conv{1,2,3}d``, ``conv_transpose{1,2,3}d``).

Every entry runs ``torch.convolution`` forward and torch's own ``convolution_backward`` kernel
backward. They are applied with ``applyn``: ``forward(datas, *attrs)`` receives ``(x, weight)`` or
``(x, weight, bias)``, and the rule returns one gradient per input. Compute-bound (Burn marks
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


def _conv_rule(g, n):
    stride, padding, dilation, transposed, output_padding, groups, pads = n.attrs
    parents = n.parents
    x, w = n.saved
    if pads is not None:
        x = _pad(x, pads)
    px, pw = parents[0], parents[1]
    pb = parents[2] if len(parents) == 3 else None
    gx, gw, gb = _CONVOLUTION_BACKWARD(
        g, x, w, list(pb.shape) if pb is not None else None, stride, padding, dilation,
        transposed, output_padding, groups, [px is not None, pw is not None, pb is not None])
    if gx is not None and pads is not None:
        gx = _unpad(gx, pads)
    return (gx, gw) if len(parents) == 2 else (gx, gw, gb)


def _save_x_and_weight(datas, out, parents):
    return datas[0], datas[1]


CONV = {n: defop(f"conv{n}d", _conv_forward, _conv_rule, COMPUTE, _save_x_and_weight)
        for n in (1, 2, 3)}
CONV_TRANSPOSE = {n: defop(f"conv_transpose{n}d", _conv_forward, _conv_rule, COMPUTE,
                           _save_x_and_weight)
                  for n in (1, 2, 3)}
