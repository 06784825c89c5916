"""Pooling (Burn's ``avg_pool*``, ``max_pool*``, ``adaptive_avg_pool*``).

Forward runs torch's pooling kernel, backward torch's dedicated backward kernel. The 1-D forms
run the 2-D kernels on a height-1 view, as torch itself does, so their attributes are the 2-D
ones (``[1, k]``, ``[1, s]``, ``[0, p]``, ``[1, d]``).

Compute-bound, as Burn marks every pooling op ``compute_bound``: the max pools' backward needs
the argmax indices of their own forward, which a recomputation would have to rebuild, and
keeping a pooled output (smaller than its input) is cheaper than recomputing it from the input.

The max pools have a second output, the argmax indices: their last attribute is a fresh empty
list (a *sink*) into which ``forward`` appends the indices; the rule reads them from
``node.attrs`` and ``module_ops`` returns them from ``max_pool*_with_indices``.
"""
import torch

from .table import COMPUTE, defop, save_input

aten = torch.ops.aten
_MAX_POOL2D_BACKWARD = aten.max_pool2d_with_indices_backward.default
_AVG_POOL2D_BACKWARD = aten.avg_pool2d_backward.default
_ADAPTIVE_AVG_POOL2D_BACKWARD = aten._adaptive_avg_pool2d_backward.default
_ADAPTIVE_AVG_POOL3D_BACKWARD = aten._adaptive_avg_pool3d_backward.default
_max_pool2d = torch._C._nn.max_pool2d_with_indices
_avg_pool2d = torch._C._nn.avg_pool2d
_adaptive_avg_pool2d = torch._adaptive_avg_pool2d
_adaptive_avg_pool3d = torch._adaptive_avg_pool3d


# ---- max pooling: attrs (kernel_size, stride, padding, dilation, ceil_mode, sink) ----------------
def _max_pool2d_forward(x, kernel_size, stride, padding, dilation, ceil_mode, sink):
    out, idx = _max_pool2d(x, kernel_size, stride, padding, dilation, ceil_mode)
    sink.append(idx)
    return out


def _max_pool1d_forward(x, kernel_size, stride, padding, dilation, ceil_mode, sink):
    out, idx = _max_pool2d(x.unsqueeze(-2), kernel_size, stride, padding, dilation, ceil_mode)
    sink.append(idx.squeeze(-2))
    return out.squeeze(-2)


def _max_pool2d_rule(g, n):
    *window, sink = n.attrs
    return (_MAX_POOL2D_BACKWARD(g, n.saved, *window, sink[0]),)


def _max_pool1d_rule(g, n):
    *window, sink = n.attrs
    return (_MAX_POOL2D_BACKWARD(g.unsqueeze(-2), n.saved.unsqueeze(-2), *window,
                                 sink[0].unsqueeze(-2)).squeeze(-2),)


# ---- average pooling: attrs (kernel_size, stride, padding, count_include_pad, ceil_mode) ---------
def _avg_pool2d_forward(x, kernel_size, stride, padding, count_include_pad, ceil_mode):
    return _avg_pool2d(x, kernel_size, stride, padding, ceil_mode, count_include_pad)


def _avg_pool1d_forward(x, kernel_size, stride, padding, count_include_pad, ceil_mode):
    return _avg_pool2d(x.unsqueeze(-2), kernel_size, stride, padding, ceil_mode,
                       count_include_pad).squeeze(-2)


def _avg_pool2d_grad(g, x, kernel_size, stride, padding, count_include_pad, ceil_mode):
    return _AVG_POOL2D_BACKWARD(g, x, kernel_size, stride, padding, ceil_mode, count_include_pad,
                                None)


def _avg_pool2d_rule(g, n):
    return (_avg_pool2d_grad(g, n.saved, *n.attrs),)


def _avg_pool1d_rule(g, n):
    return (_avg_pool2d_grad(g.unsqueeze(-2), n.saved.unsqueeze(-2), *n.attrs).squeeze(-2),)


# ---- adaptive average pooling: attrs (output_size,) ----------------------------------------------
def _adaptive_avg_pool1d_forward(x, output_size):
    return _adaptive_avg_pool2d(x.unsqueeze(-2), [1, output_size]).squeeze(-2)


def _adaptive_avg_pool1d_rule(g, n):
    return (_ADAPTIVE_AVG_POOL2D_BACKWARD(g.unsqueeze(-2), n.saved.unsqueeze(-2)).squeeze(-2),)


MAX_POOL1D = defop("max_pool1d", _max_pool1d_forward, _max_pool1d_rule, COMPUTE, save_input)
MAX_POOL2D = defop("max_pool2d", _max_pool2d_forward, _max_pool2d_rule, COMPUTE, save_input)
AVG_POOL1D = defop("avg_pool1d", _avg_pool1d_forward, _avg_pool1d_rule, COMPUTE, save_input)
AVG_POOL2D = defop("avg_pool2d", _avg_pool2d_forward, _avg_pool2d_rule, COMPUTE, save_input)
ADAPTIVE_AVG_POOL1D = defop("adaptive_avg_pool1d", _adaptive_avg_pool1d_forward,
                            _adaptive_avg_pool1d_rule, COMPUTE, save_input)
ADAPTIVE_AVG_POOL2D = defop("adaptive_avg_pool2d", _adaptive_avg_pool2d,
                            lambda g, n: (_ADAPTIVE_AVG_POOL2D_BACKWARD(g, n.saved),), COMPUTE,
                            save_input)
ADAPTIVE_AVG_POOL3D = defop("adaptive_avg_pool3d", _adaptive_avg_pool3d,
                            lambda g, n: (_ADAPTIVE_AVG_POOL3D_BACKWARD(g, n.saved),), COMPUTE,
                            save_input)

