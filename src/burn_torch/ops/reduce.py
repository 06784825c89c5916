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

from .table import COMPUTE, defop, vjp
from .kernels import kernel


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
    """As ``cummax_indices``, for the running minimum."""
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
# Each rule returns its input's gradient; the engine casts it to the input's dtype.
_broadcast_to = torch.broadcast_to  # a view, cheaper to call than Tensor.expand
_value_selecting_backward = kernel(torch.ops.aten.value_selecting_reduction_backward.default)
_cumprod_backward = kernel(torch.ops.aten.cumprod_backward.default)


def _sum_rule(g, s):
    return _broadcast_to(g, s.x_shape)


def _mean_rule(g, s):
    shape = s.x_shape
    return _broadcast_to(g.div(shape.numel()), shape)


def _mean_dim_rule(g, s):
    shape = s.x_shape
    return _broadcast_to(g.div(shape[s.dim]), shape)


def _selected_rule(g, s):
    """Distinct selected indices: each gets its output's gradient, the others zero."""
    return _value_selecting_backward(g, s.dim, s.indices, s.x_shape, True)


def _selected_flat_rule(g, s):
    shape = s.x_shape
    return _value_selecting_backward(g, 0, s.indices, (shape.numel(),), True).reshape(shape)


def _cumulative_selected_rule(g, s):
    """cummax/cummin: an input position can be the source of many outputs, so its gradients are
    summed (what torch's ``cummaxmin_backward`` computes, without keeping the input)."""
    return g.new_zeros(s.x_shape).scatter_add_(s.dim, s.indices, g)


def _prod_grad(g, x, dim):
    """``g`` times the product of the other elements along ``dim``, exact when ``x`` holds zeros:
    a product is its cumulative product's last element, so torch's zero-safe ``cumprod_backward``
    seeded at that position gives it."""
    if x.numel() == 0:
        return torch.zeros_like(x)
    seed = torch.zeros_like(x)
    seed.narrow(dim, x.shape[dim] - 1, 1).copy_(g)
    return _cumprod_backward(seed, x, dim, torch.cumprod(x, dim))


def _prod_rule(g, s):
    x = s.x
    return _prod_grad(g, x.reshape(-1), 0).reshape(x.shape)


def _prod_dim_rule(g, s):
    return _prod_grad(g, s.x, s.dim)


def _cumsum_rule(g, s):
    dim = s.dim
    return g.flip(dim).cumsum(dim).flip(dim)


def _cumprod_rule(g, s):
    x = s.x
    if x.numel() == 0:
        return torch.zeros_like(x)
    return _cumprod_backward(g, x, s.dim, s.out)


def _var_rule(g, s):
    """``g * 2 (x - mean) / (n - correction)``; NaN without degrees of freedom, as Burn's 0/0."""
    x = s.x
    dim = s.dim
    centered = x - x.mean(dim, keepdim=True)
    return centered.mul_(g).mul_(2).div_(x.shape[dim] - s.correction)


# ================================================================================== the table ====
_DIM = ("dim",)
_SELECTED = ("dim", "indices")  # the indices an index kernel above selected
_SUM = vjp(_sum_rule, "x_shape")
_SELECTED_RULE = vjp(_selected_rule, "x_shape")
_SELECTED_FLAT_RULE = vjp(_selected_flat_rule, "x_shape")
_CUMULATIVE_SELECTED_RULE = vjp(_cumulative_selected_rule, "x_shape")

SUM = defop("sum", _sum_forward, COMPUTE, vjp=(_SUM,))
MEAN = defop("mean", _mean_forward, COMPUTE, vjp=(vjp(_mean_rule, "x_shape"),))
SUM_DIM = defop("sum_dim", _sum_dim_forward, COMPUTE, attrs=_DIM, vjp=(_SUM,))
MEAN_DIM = defop("mean_dim", _mean_dim_forward, COMPUTE, attrs=_DIM,
                 vjp=(vjp(_mean_dim_rule, "x_shape"),))
PROD = defop("prod", _prod_forward, COMPUTE, vjp=(vjp(_prod_rule, "x"),))
PROD_DIM = defop("prod_dim", _prod_dim_forward, COMPUTE, attrs=_DIM, vjp=(vjp(_prod_dim_rule, "x"),))
MAX = defop("max", _take_flat, COMPUTE, attrs=("indices",), vjp=(_SELECTED_FLAT_RULE,))
MIN = defop("min", _take_flat, COMPUTE, attrs=("indices",), vjp=(_SELECTED_FLAT_RULE,))
MAX_DIM = defop("max_dim", _take, COMPUTE, attrs=_SELECTED, vjp=(_SELECTED_RULE,))
MIN_DIM = defop("min_dim", _take, COMPUTE, attrs=_SELECTED, vjp=(_SELECTED_RULE,))
MEDIAN = defop("median", _take, COMPUTE, attrs=_SELECTED, vjp=(_SELECTED_RULE,))
SORT = defop("sort", _take, COMPUTE, attrs=_SELECTED, vjp=(_SELECTED_RULE,))
TOPK = defop("topk", _take, COMPUTE, attrs=_SELECTED, vjp=(_SELECTED_RULE,))
CUMSUM = defop("cumsum", _cumsum_forward, COMPUTE, attrs=_DIM, vjp=(vjp(_cumsum_rule),))
CUMPROD = defop("cumprod", _cumprod_forward, COMPUTE, attrs=_DIM,
                vjp=(vjp(_cumprod_rule, "x", "out"),))
CUMMAX = defop("cummax", _take, COMPUTE, attrs=_SELECTED, vjp=(_CUMULATIVE_SELECTED_RULE,))
CUMMIN = defop("cummin", _take, COMPUTE, attrs=_SELECTED, vjp=(_CUMULATIVE_SELECTED_RULE,))
VAR = defop("var", _var_forward, COMPUTE, attrs=("dim", "correction"), vjp=(vjp(_var_rule, "x"),))
ARGMAX = defop("argmax", lambda x, dim: torch.argmax(x, dim, keepdim=True), attrs=_DIM)
ARGMIN = defop("argmin", lambda x, dim: torch.argmin(x, dim, keepdim=True), attrs=_DIM)
ARGSORT = defop("argsort", argsort, attrs=("dim", "descending"))
ANY = defop("any", _any_forward)
ALL = defop("all", _all_forward)
ANY_DIM = defop("any_dim", _any_dim_forward, attrs=_DIM)
ALL_DIM = defop("all_dim", _all_dim_forward, attrs=_DIM)
