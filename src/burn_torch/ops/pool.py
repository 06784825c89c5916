"""Pooling (Burn's ``avg_pool*``, ``max_pool*``, ``adaptive_avg_pool*``).

Forward runs torch's pooling kernel, backward torch's dedicated backward kernel. The 1-D forms
run the 2-D kernels on a height-1 view, as torch itself does, so their attributes are the 2-D
ones (``[1, k]``, ``[1, s]``, ``[0, p]``, ``[1, d]``).

Compute-bound, as Burn marks every pooling op ``compute_bound``: the max pools' backward needs
the argmax indices of their own forward, which a recomputation would have to rebuild, and
keeping a pooled output (smaller than its input) is cheaper than recomputing it from the input.

Max pooling (forward) and average pooling (forward and backward), 1-D and 2-D, are tunable
(``burn_torch.autotune``): torch's kernel on the input as it is, or on a channels-last copy of it
(several times faster for NCHW inputs with many channels here), whose outputs are made
contiguous again: both give identical values (and indices). Only inputs of at most
``tuning.MAX_EXTRA_BYTES`` are tuned (the copy is temporary memory torch's kernel does not need).

The max pools have a second output, the argmax indices: the residual ``indices`` (their forward
returns ``(out, indices)``). Their rule reads it from the saved record, and ``module_ops``
returns it from ``max_pool*_with_indices``.
"""
import torch

from .tuning import MAX_EXTRA_BYTES, Tunable, anchored
from .table import COMPUTE, defop, vjp
from .kernels import kernel

aten = torch.ops.aten
_MAX_POOL2D_BACKWARD = kernel(aten.max_pool2d_with_indices_backward.default)
_AVG_POOL2D_BACKWARD = kernel(aten.avg_pool2d_backward.default)
_ADAPTIVE_AVG_POOL2D_BACKWARD = kernel(aten._adaptive_avg_pool2d_backward.default)
_ADAPTIVE_AVG_POOL3D_BACKWARD = kernel(aten._adaptive_avg_pool3d_backward.default)
_max_pool2d = torch._C._nn.max_pool2d_with_indices
_avg_pool2d = torch._C._nn.avg_pool2d
_adaptive_avg_pool2d = torch._adaptive_avg_pool2d
_adaptive_avg_pool3d = torch._adaptive_avg_pool3d
_threads = torch.get_num_threads
_CHANNELS_LAST = torch.channels_last


# ---- max pooling: attrs (kernel_size, stride, padding, dilation, ceil_mode), residual indices ---
_MAX_ATTRS = ("kernel_size", "stride", "padding", "dilation", "ceil_mode")


def _max_pool2d_channels_last(x, kernel_size, stride, padding, dilation, ceil_mode):
    out, indices = _max_pool2d(x.contiguous(memory_format=_CHANNELS_LAST), kernel_size, stride,
                               padding, dilation, ceil_mode)
    return out.contiguous(), indices.contiguous()


MAX_POOL2D_KERNELS = Tunable("max_pool2d", {"max_pool2d_with_indices": _max_pool2d,
                                            "channels_last": _max_pool2d_channels_last})


def _small(x) -> bool:
    """Whether a channels-last copy of ``x`` stays within the tuner's memory bound."""
    return x.numel() * x.element_size() <= MAX_EXTRA_BYTES


def _max_pool2d_forward(x, kernel_size, stride, padding, dilation, ceil_mode):
    """``(out, indices)``."""
    if not _small(x):
        return _max_pool2d(x, kernel_size, stride, padding, dilation, ceil_mode)
    return MAX_POOL2D_KERNELS((anchored(x.shape), x.dtype, x.is_contiguous(), kernel_size, stride,
                               padding, dilation, ceil_mode, _threads()),
                              x, kernel_size, stride, padding, dilation, ceil_mode)


def _max_pool1d_forward(x, kernel_size, stride, padding, dilation, ceil_mode):
    out, idx = _max_pool2d_forward(x.unsqueeze(-2), kernel_size, stride, padding, dilation,
                                   ceil_mode)
    return out.squeeze(-2), idx.squeeze(-2)


def _max_pool2d_rule(g, s):
    return _MAX_POOL2D_BACKWARD(g, s.x, s.kernel_size, s.stride, s.padding, s.dilation,
                                s.ceil_mode, s.indices)


def _max_pool1d_rule(g, s):
    return _MAX_POOL2D_BACKWARD(g.unsqueeze(-2), s.x.unsqueeze(-2), s.kernel_size, s.stride,
                                s.padding, s.dilation, s.ceil_mode,
                                s.indices.unsqueeze(-2)).squeeze(-2)


# ---- average pooling: attrs (kernel_size, stride, padding, count_include_pad, ceil_mode) ---------
_AVG_ATTRS = ("kernel_size", "stride", "padding", "count_include_pad", "ceil_mode")


def _avg_pool2d_channels_last(x, kernel_size, stride, padding, ceil_mode, count_include_pad):
    return _avg_pool2d(x.contiguous(memory_format=_CHANNELS_LAST), kernel_size, stride, padding,
                       ceil_mode, count_include_pad).contiguous()


def _avg_pool2d_backward(g, x, kernel_size, stride, padding, ceil_mode, count_include_pad):
    return _AVG_POOL2D_BACKWARD(g, x, kernel_size, stride, padding, ceil_mode, count_include_pad,
                                None)


def _avg_pool2d_backward_channels_last(g, x, kernel_size, stride, padding, ceil_mode,
                                       count_include_pad):
    # the kernel reads only the input's shape and layout: an uninitialised channels-last one
    return _AVG_POOL2D_BACKWARD(g.contiguous(memory_format=_CHANNELS_LAST),
                                torch.empty_like(x, memory_format=_CHANNELS_LAST), kernel_size,
                                stride, padding, ceil_mode, count_include_pad, None).contiguous()


AVG_POOL2D_KERNELS = Tunable("avg_pool2d", {"avg_pool2d": _avg_pool2d,
                                            "channels_last": _avg_pool2d_channels_last})
AVG_POOL2D_BACKWARD_KERNELS = Tunable("avg_pool2d_backward",
                                      {"avg_pool2d_backward": _avg_pool2d_backward,
                                       "channels_last": _avg_pool2d_backward_channels_last})


def _avg_pool2d_forward(x, kernel_size, stride, padding, count_include_pad, ceil_mode):
    if not _small(x):
        return _avg_pool2d(x, kernel_size, stride, padding, ceil_mode, count_include_pad)
    return AVG_POOL2D_KERNELS((anchored(x.shape), x.dtype, x.is_contiguous(), kernel_size, stride,
                               padding, ceil_mode, count_include_pad, _threads()),
                              x, kernel_size, stride, padding, ceil_mode, count_include_pad)


def _avg_pool1d_forward(x, kernel_size, stride, padding, count_include_pad, ceil_mode):
    return _avg_pool2d_forward(x.unsqueeze(-2), kernel_size, stride, padding, count_include_pad,
                               ceil_mode).squeeze(-2)


def _avg_pool2d_grad(g, x, s):
    k, st, p, ceil, cip = s.kernel_size, s.stride, s.padding, s.ceil_mode, s.count_include_pad
    if not _small(x):
        return _avg_pool2d_backward(g, x, k, st, p, ceil, cip)
    return AVG_POOL2D_BACKWARD_KERNELS((anchored(x.shape), x.dtype, x.is_contiguous(),
                                        g.is_contiguous(), k, st, p, ceil, cip, _threads()),
                                       g, x, k, st, p, ceil, cip)


def _avg_pool2d_rule(g, s):
    return _avg_pool2d_grad(g, s.x, s)


def _avg_pool1d_rule(g, s):
    return _avg_pool2d_grad(g.unsqueeze(-2), s.x.unsqueeze(-2), s).squeeze(-2)


# ---- adaptive average pooling: attrs (output_size,) ----------------------------------------------
def _adaptive_avg_pool1d_forward(x, output_size):
    return _adaptive_avg_pool2d(x.unsqueeze(-2), [1, output_size]).squeeze(-2)


def _adaptive_avg_pool1d_rule(g, s):
    return _ADAPTIVE_AVG_POOL2D_BACKWARD(g.unsqueeze(-2), s.x.unsqueeze(-2)).squeeze(-2)


MAX_POOL1D = defop("max_pool1d", _max_pool1d_forward, COMPUTE, attrs=_MAX_ATTRS,
                   residuals=("indices",), vjp=(vjp(_max_pool1d_rule, "x", "indices"),))
MAX_POOL2D = defop("max_pool2d", _max_pool2d_forward, COMPUTE, attrs=_MAX_ATTRS,
                   residuals=("indices",), vjp=(vjp(_max_pool2d_rule, "x", "indices"),))
AVG_POOL1D = defop("avg_pool1d", _avg_pool1d_forward, COMPUTE, attrs=_AVG_ATTRS,
                   vjp=(vjp(_avg_pool1d_rule, "x"),))
AVG_POOL2D = defop("avg_pool2d", _avg_pool2d_forward, COMPUTE, attrs=_AVG_ATTRS,
                   vjp=(vjp(_avg_pool2d_rule, "x"),))
ADAPTIVE_AVG_POOL1D = defop("adaptive_avg_pool1d", _adaptive_avg_pool1d_forward, COMPUTE,
                            attrs=("output_size",), vjp=(vjp(_adaptive_avg_pool1d_rule, "x"),))
ADAPTIVE_AVG_POOL2D = defop("adaptive_avg_pool2d", _adaptive_avg_pool2d, COMPUTE,
                            attrs=("output_size",),
                            vjp=(vjp(lambda g, s: _ADAPTIVE_AVG_POOL2D_BACKWARD(g, s.x), "x"),))
ADAPTIVE_AVG_POOL3D = defop("adaptive_avg_pool3d", _adaptive_avg_pool3d, COMPUTE,
                            attrs=("output_size",),
                            vjp=(vjp(lambda g, s: _ADAPTIVE_AVG_POOL3D_BACKWARD(g, s.x), "x"),))
