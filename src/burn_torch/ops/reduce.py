"""Reductions, scans, sorting and statistics, with Burn's shapes: full reductions (``sum``,
``prod``, ``max``, ``any``...) return shape ``[1]``; ``*_dim`` reductions keep the reduced dim
with size 1; scans and sorts keep the input's shape.

Index-selecting ops (``max``/``min``, ``max_dim``/``min_dim``, ``median``, ``sort``, ``topk``,
``cummax``/``cummin``) take the selected indices as an attribute, computed before recording by
the index kernels below; their forward gathers the values at those indices and their gradient
goes back to exactly those indices (Burn's ``MaxMinDim``/``SortDim`` rules), never split among
equal values. Sorting is stable, so equal values keep their order.
"""
import math

import torch

from .table import COMPUTE, defop, save_input


def _int_dtype(x):
    """Burn keeps an Int tensor's dtype in sums (torch would widen i32 to i64); None otherwise."""
    return None if x.is_floating_point() or x.dtype is torch.bool else x.dtype


# ============================================================================ index kernels ====
# Run by the methods before recording; the indices they return are Int storages.
def argsort(x, dim, descending):
    """Indices that sort ``x`` along ``dim``; equal values keep their order (stable sort)."""
    return torch.argsort(x, dim=dim, descending=descending, stable=True)


def flat_argmax(x):
    """Shape-``[1]`` index of the first maximum of ``x`` in row-major order."""
    return torch.argmax(x).reshape(1)


def flat_argmin(x):
    """Shape-``[1]`` index of the first minimum of ``x`` in row-major order."""
    return torch.argmin(x).reshape(1)


def median_indices(x, dim):
    """Index of the lower median along ``dim`` (kept): the element a stable ascending sort puts
    at position ``(n - 1) // 2``."""
    return argsort(x, dim, False).narrow(dim, (x.shape[dim] - 1) // 2, 1).clone()


def topk_indices(x, k, dim):
    """Indices of the ``k`` largest values along ``dim``, largest first (stable among ties)."""
    return argsort(x, dim, True).narrow(dim, 0, k).clone()


def cummax_indices(x, dim):
    """For each position, the index of its running maximum: the latest position where the
    running maximum equals the input (Burn's ``CumMax`` source index)."""
    return torch.cummax(x, dim).indices


def cummin_indices(x, dim):
    """As :func:`cummax_indices`, for the running minimum."""
    return torch.cummin(x, dim).indices


# ========================================================================= forward kernels ====
def _take(x, dim, indices):
    return torch.gather(x, dim, indices)


def _take_flat(x, indices):
    return x.reshape(-1).gather(0, indices)


def _sum_forward(x):
    return torch.sum(x, dtype=_int_dtype(x)).reshape(1)


def _mean_forward(x):
    if not x.is_floating_point():  # Burn's Int mean: the sum divided by the count, truncating
        return torch.div(torch.sum(x, dtype=_int_dtype(x)), x.numel(), rounding_mode="trunc").reshape(1)
    return torch.mean(x).reshape(1)


def _sum_dim_forward(x, dim):
    return torch.sum(x, dim, keepdim=True, dtype=_int_dtype(x))


def _mean_dim_forward(x, dim):
    if not x.is_floating_point():
        return torch.div(torch.sum(x, dim, keepdim=True, dtype=_int_dtype(x)), x.shape[dim],
                         rounding_mode="trunc")
    return torch.mean(x, dim, keepdim=True)


def _prod_forward(x):
    return torch.prod(x, dtype=_int_dtype(x)).reshape(1)


def _prod_dim_forward(x, dim):
    return torch.prod(x, dim, keepdim=True, dtype=_int_dtype(x))


def _cumsum_forward(x, dim):
    return torch.cumsum(x, dim, dtype=_int_dtype(x))


def _cumprod_forward(x, dim):
    return torch.cumprod(x, dim, dtype=_int_dtype(x))


def _var_forward(x, dim, correction):
    if x.shape[dim] <= correction:  # no degrees of freedom: Burn divides 0 by 0
        shape = list(x.shape)
        shape[dim] = 1
        return x.new_full(shape, math.nan)
    return torch.var(x, dim, correction=correction, keepdim=True)


def _any_forward(x):
    return torch.any(x).reshape(1).to(torch.bool)  # torch.any keeps uint8


def _all_forward(x):
    return torch.all(x).reshape(1).to(torch.bool)


def _any_dim_forward(x, dim):
    return torch.any(x, dim, keepdim=True).to(torch.bool)


def _all_dim_forward(x, dim):
    return torch.all(x, dim, keepdim=True).to(torch.bool)


# ============================================================================ backward rules ====
_broadcast_to = torch.broadcast_to  # a view, cheaper to call than Tensor.expand
_value_selecting_backward = torch.ops.aten.value_selecting_reduction_backward.default
_cumprod_backward = torch.ops.aten.cumprod_backward.default


def _save_input_output(datas, out, parents):
    return datas[0], out


def _sum_rule(g, n):
    return (_broadcast_to(g, n.parents[0].shape),)


def _mean_rule(g, n):
    shape = n.parents[0].shape
    return (_broadcast_to(g.div(shape.numel()), shape),)


def _mean_dim_rule(g, n):
    shape = n.parents[0].shape
    return (_broadcast_to(g.div(shape[n.attrs[0]]), shape),)


def _selected_rule(g, n):
    """Distinct selected indices: each gets its output's gradient, the others zero."""
    dim, indices = n.attrs
    return (_value_selecting_backward(g, dim, indices, n.parents[0].shape, True),)


def _selected_flat_rule(g, n):
    shape = n.parents[0].shape
    return (_value_selecting_backward(g, 0, n.attrs[0], (shape.numel(),), True).reshape(shape),)


def _cumulative_selected_rule(g, n):
    """cummax/cummin: an input position can be the source of many outputs, so its gradients are
    summed (what torch's ``cummaxmin_backward`` computes, without keeping the input)."""
    dim, indices = n.attrs
    return (g.new_zeros(n.parents[0].shape).scatter_add_(dim, indices, g),)


def _prod_grad(g, x, dim):
    """``g`` times the product of the other elements along ``dim``, exact when ``x`` holds zeros:
    a product is its cumulative product's last element, so torch's zero-safe ``cumprod_backward``
    seeded at that position gives it."""
    if x.numel() == 0:
        return torch.zeros_like(x)
    seed = torch.zeros_like(x)
    seed.narrow(dim, x.shape[dim] - 1, 1).copy_(g)
    return _cumprod_backward(seed, x, dim, torch.cumprod(x, dim))


def _prod_rule(g, n):
    x = n.saved
    return (_prod_grad(g, x.reshape(-1), 0).reshape(x.shape),)


def _prod_dim_rule(g, n):
    return (_prod_grad(g, n.saved, n.attrs[0]),)


def _cumsum_rule(g, n):
    dim = n.attrs[0]
    return (g.flip(dim).cumsum(dim).flip(dim),)


def _cumprod_rule(g, n):
    x, out = n.saved
    if x.numel() == 0:
        return (torch.zeros_like(x),)
    return (_cumprod_backward(g, x, n.attrs[0], out),)


def _var_rule(g, n):
    """``g * 2 (x - mean) / (n - correction)``; NaN without degrees of freedom, as Burn's 0/0."""
    x = n.saved
    dim, correction = n.attrs
    centered = x - x.mean(dim, keepdim=True)
    return (centered.mul_(g).mul_(2).div_(x.shape[dim] - correction),)


# ================================================================================== the table ====
SUM = defop("sum", _sum_forward, _sum_rule, COMPUTE)
MEAN = defop("mean", _mean_forward, _mean_rule, COMPUTE)
SUM_DIM = defop("sum_dim", _sum_dim_forward, _sum_rule, COMPUTE)
MEAN_DIM = defop("mean_dim", _mean_dim_forward, _mean_dim_rule, COMPUTE)
PROD = defop("prod", _prod_forward, _prod_rule, COMPUTE, save=save_input)
PROD_DIM = defop("prod_dim", _prod_dim_forward, _prod_dim_rule, COMPUTE, save=save_input)
MAX = defop("max", _take_flat, _selected_flat_rule, COMPUTE)
MIN = defop("min", _take_flat, _selected_flat_rule, COMPUTE)
MAX_DIM = defop("max_dim", _take, _selected_rule, COMPUTE)
MIN_DIM = defop("min_dim", _take, _selected_rule, COMPUTE)
MEDIAN = defop("median", _take, _selected_rule, COMPUTE)
SORT = defop("sort", _take, _selected_rule, COMPUTE)
TOPK = defop("topk", _take, _selected_rule, COMPUTE)
CUMSUM = defop("cumsum", _cumsum_forward, _cumsum_rule, COMPUTE)
CUMPROD = defop("cumprod", _cumprod_forward, _cumprod_rule, COMPUTE, save=_save_input_output)
CUMMAX = defop("cummax", _take, _cumulative_selected_rule, COMPUTE)
CUMMIN = defop("cummin", _take, _cumulative_selected_rule, COMPUTE)
VAR = defop("var", _var_forward, _var_rule, COMPUTE, save=save_input)
ARGMAX = defop("argmax", lambda x, dim: torch.argmax(x, dim, keepdim=True), None, COMPUTE)
ARGMIN = defop("argmin", lambda x, dim: torch.argmin(x, dim, keepdim=True), None, COMPUTE)
ARGSORT = defop("argsort", argsort, None, COMPUTE)
ANY = defop("any", _any_forward, None, COMPUTE)
ALL = defop("all", _all_forward, None, COMPUTE)
ANY_DIM = defop("any_dim", _any_dim_forward, None, COMPUTE)
ALL_DIM = defop("all_dim", _all_dim_forward, None, COMPUTE)
