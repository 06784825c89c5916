"""Burn's pooling functions (``module::avg_pool1d`` ... ``adaptive_avg_pool3d``, with the
``max_pool*_with_indices`` forms). 1-D pools run the 2-D op on a height-1 view; each is one
op-table entry (``burn_torch.ops.pool``).
"""
from __future__ import annotations

from typing import Sequence

from ...autodiff.checkpoint import Checkpoint
from ...autodiff.recorder import apply1, run, wrap
from ...ops import pool as pool_ops
from ...tensor import Tensor
from .checks import _flag, _float, _sizes, _SPATIAL


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
    """[`max_pool1d`][burn_torch.functional.module_ops.max_pool1d] and the Int index (along the
    length) of each maximum."""
    return _max_pool(1, x, kernel_size, stride, padding, dilation, ceil_mode)


def max_pool2d_with_indices(x: Tensor, kernel_size: Sequence[int], stride: Sequence[int],
                            padding: Sequence[int], dilation: Sequence[int],
                            ceil_mode: bool = False) -> tuple[Tensor, Tensor]:
    """[`max_pool2d`][burn_torch.functional.module_ops.max_pool2d] and the Int flat index ``h *
    width + w`` of each maximum."""
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
