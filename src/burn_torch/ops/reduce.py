"""Reductions. Burn's ``sum``/``mean`` return shape ``[1]``; ``*_dim`` keep the reduced dim."""
import torch

from .table import COMPUTE, defop


def _int_dtype(x):
    """Burn keeps an Int tensor's dtype in sums (torch would widen i32 to i64); None otherwise."""
    return None if x.is_floating_point() or x.dtype is torch.bool else x.dtype


def _sum_forward(x):
    return torch.sum(x, dtype=_int_dtype(x)).reshape(1)


def _mean_forward(x):
    if not x.is_floating_point():  # Burn's Int mean: the sum divided by the count, truncating
        return torch.div(torch.sum(x, dtype=_int_dtype(x)), x.numel(), rounding_mode="trunc").reshape(1)
    return torch.mean(x).reshape(1)


_broadcast_to = torch.broadcast_to  # a view, cheaper to call than Tensor.expand


def _sum_rule(g, n):
    return (_broadcast_to(g, n.parents[0].shape),)


def _mean_rule(g, n):
    shape = n.parents[0].shape
    return (_broadcast_to(g.div(shape.numel()), shape),)


def _mean_dim_rule(g, n):
    shape = n.parents[0].shape
    return (_broadcast_to(g.div(shape[n.attrs[0]]), shape),)


def _sum_dim_forward(x, dim):
    return torch.sum(x, dim, keepdim=True, dtype=_int_dtype(x))


def _mean_dim_forward(x, dim):
    if not x.is_floating_point():
        return torch.div(torch.sum(x, dim, keepdim=True, dtype=_int_dtype(x)), x.shape[dim],
                         rounding_mode="trunc")
    return torch.mean(x, dim, keepdim=True)


SUM = defop("sum", _sum_forward, _sum_rule, COMPUTE)
MEAN = defop("mean", _mean_forward, _mean_rule, COMPUTE)
SUM_DIM = defop("sum_dim", _sum_dim_forward, _sum_rule, COMPUTE)
MEAN_DIM = defop("mean_dim", _mean_dim_forward, _mean_dim_rule, COMPUTE)
ARGMAX = defop("argmax", lambda x, dim: torch.argmax(x, dim, keepdim=True), None, COMPUTE)
ARGMIN = defop("argmin", lambda x, dim: torch.argmin(x, dim, keepdim=True), None, COMPUTE)
