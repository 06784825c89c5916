"""Indexing and masking ops (memory-bound). Index and mask tensors are attributes, never inputs."""
import enum
import math

import torch

from .fit import fit
from .table import MEMORY, defop, save_nothing, save_other_input


def _select_rule(g, n):
    dim, idx = n.attrs
    return (g.new_zeros(n.parents[0].shape).index_add_(dim, idx, g),)


def _gather_rule(g, n):
    dim, idx = n.attrs
    return (g.new_zeros(n.parents[0].shape).scatter_add_(dim, idx, g),)


def _mask_where_rule(g, n):
    (mask,) = n.attrs
    px, pv = n.parents
    gx = fit(torch.where(mask, 0, g), px) if px is not None else None
    gv = fit(torch.where(mask, g, 0), pv) if pv is not None else None
    return gx, gv


SELECT = defop("select", torch.index_select, _select_rule, MEMORY)
GATHER = defop("gather", torch.gather, _gather_rule, MEMORY)
MASK_FILL = defop("mask_fill", torch.masked_fill, lambda g, n: (g.masked_fill(n.attrs[0], 0),), MEMORY)
MASK_WHERE = defop("mask_where", lambda x, values, mask: torch.where(mask, values, x), _mask_where_rule,
                   MEMORY)


class IndexingUpdateOp(enum.Enum):
    """How ``select_assign``, ``scatter`` and ``scatter_nd`` combine the values with the entries
    they hit (Burn's ``IndexingUpdateOp``). Repeated indices combine every value (ASSIGN keeps
    one of them, as in Burn, without saying which).

    Gradients (Burn's rules): ADD passes the gradient to the tensor and gathers it for the values;
    ASSIGN gives overwritten entries none; MUL scales the tensor's gradient by the product of the
    values that hit each entry and gives each value the gradient times the entry it scaled; MIN
    and MAX give the whole gradient to every side equal to the result, ties included (torch
    would split it).
    """

    ADD = "add"
    ASSIGN = "assign"
    MUL = "mul"
    MIN = "min"
    MAX = "max"


_REDUCTION = {IndexingUpdateOp.MUL: "prod", IndexingUpdateOp.MIN: "amin", IndexingUpdateOp.MAX: "amax"}


# -- placements: where the values of an indexed update go ------------------------------------------
class _OnDim:
    """A placement by an ``index`` along one dim ``dim`` of ``x``."""

    __slots__ = ("dim", "index")

    def __init__(self, dim: int, index: torch.Tensor) -> None:
        self.dim = dim
        self.index = index


class Elementwise(_OnDim):
    """``scatter`` along ``dim``: ``values[i...]`` goes to ``x[i..., index[i...], ...]`` (index has
    the values' shape)."""

    __slots__ = ()

    def update(self, x, values, op):
        if op is IndexingUpdateOp.ADD:
            return x.scatter_add(self.dim, self.index, values)
        if op is IndexingUpdateOp.ASSIGN:
            return x.scatter(self.dim, self.index, values)
        return x.scatter_reduce(self.dim, self.index, values, _REDUCTION[op], include_self=True)

    def take(self, t):
        return t.gather(self.dim, self.index)

    def clear(self, t):
        return t.scatter(self.dim, self.index, 0)


class AlongDim(_OnDim):
    """``select_assign`` along ``dim``: slice ``values[..., i, ...]`` goes to slice ``index[i]``."""

    __slots__ = ()

    def update(self, x, values, op):
        if op is IndexingUpdateOp.ADD:
            return x.index_add(self.dim, self.index, values)
        if op is IndexingUpdateOp.ASSIGN:
            return x.index_copy(self.dim, self.index, values)
        shape = [1] * values.dim()
        shape[self.dim] = -1
        spread = Elementwise(self.dim, self.index.view(shape).expand_as(values))
        return spread.update(x, values, op)

    def take(self, t):
        return t.index_select(self.dim, self.index)

    def clear(self, t):
        return t.index_fill(self.dim, self.index, 0)


class Multi:
    """``gather_nd``/``scatter_nd``: each row of an ``[..., K]`` index addresses a slice
    ``x[i0, ..., iK-1]``; done as an :class:`AlongDim` on dim 0 of ``x`` with its first ``K``
    dims flattened (``flat`` holds the rows' flat positions, ``batch`` the index's leading shape)."""

    __slots__ = ("k", "rows", "batch")

    def __init__(self, k: int, flat: torch.Tensor, batch) -> None:
        self.k = k
        self.rows = AlongDim(0, flat)
        self.batch = tuple(batch)

    def _flat(self, t):
        return t.reshape((math.prod(t.shape[:self.k]),) + tuple(t.shape[self.k:]))

    def update(self, x, values, op):
        flat_values = values.reshape((math.prod(self.batch),) + tuple(x.shape[self.k:]))
        return self.rows.update(self._flat(x), flat_values, op).reshape(x.shape)

    def take(self, t):
        return self.rows.take(self._flat(t)).reshape(self.batch + tuple(t.shape[self.k:]))

    def clear(self, t):
        return self.rows.clear(self._flat(t)).reshape(t.shape)


# -- indexed updates: one op-table entry per (family, update op) -----------------------------------
def _update_forward(op):
    def forward(x, values, place):
        return place.update(x, values, op)
    return forward


def _add_rule(g, n):
    (place,) = n.attrs
    px, pv = n.parents
    return (g if px is not None else None, place.take(g) if pv is not None else None)


def _assign_rule(g, n):
    (place,) = n.attrs
    px, pv = n.parents
    return (place.clear(g) if px is not None else None, place.take(g) if pv is not None else None)


def _mul_rule(g, n):
    """x's entries are scaled by the product of the values hitting them; each value's gradient
    is the incoming gradient times the entry it scaled (Burn's rule: other values hitting the
    same entry are not included)."""
    (place,) = n.attrs
    px, pv = n.parents
    x, values = n.saved
    gx = g * place.update(torch.ones_like(g), values, IndexingUpdateOp.MUL) if px is not None else None
    gv = place.take(g) * place.take(x) if pv is not None else None
    return gx, gv


def _extremum_rule(g, n):
    """Burn's rule: the whole gradient flows to every side equal to the result, ties included."""
    (place,) = n.attrs
    px, pv = n.parents
    x, values, out = n.saved
    gx = torch.where(x == out, g, 0) if px is not None else None
    gv = torch.where(values == place.take(out), place.take(g), 0) if pv is not None else None
    return gx, gv


def _save_extremum(datas, out, parents):
    (x, values), (px, pv) = datas, parents
    return (x if px is not None else None, values if pv is not None else None, out)


_UPDATE_RULES = {
    IndexingUpdateOp.ADD: (_add_rule, save_nothing),
    IndexingUpdateOp.ASSIGN: (_assign_rule, save_nothing),
    IndexingUpdateOp.MUL: (_mul_rule, save_other_input),
    IndexingUpdateOp.MIN: (_extremum_rule, _save_extremum),
    IndexingUpdateOp.MAX: (_extremum_rule, _save_extremum),
}


def _declare_updates(family: str) -> dict:
    return {op: defop(f"{family}_{op.value}", _update_forward(op), rule, MEMORY, save)
            for op, (rule, save) in _UPDATE_RULES.items()}


SELECT_ASSIGN = _declare_updates("select_assign")
SCATTER = _declare_updates("scatter")
SCATTER_ND = _declare_updates("scatter_nd")


# -- multi-dimensional gather, mask selection, non-differentiable index ops ------------------------
def _gather_nd_rule(g, n):
    (place,) = n.attrs
    return (place.update(g.new_zeros(n.parents[0].shape), g, IndexingUpdateOp.ADD),)


def _mask_select_rule(g, n):
    (mask,) = n.attrs
    return (g.new_zeros(mask.shape).masked_scatter_(mask, g),)


def _one_hot_forward(x, num_classes):
    index = x.long()
    index = torch.where(index < 0, index + num_classes, index)
    return torch.nn.functional.one_hot(index, num_classes).to(x.dtype)


GATHER_ND = defop("gather_nd", lambda x, place: place.take(x), _gather_nd_rule, MEMORY)
MASK_SELECT = defop("mask_select", torch.masked_select, _mask_select_rule, MEMORY)
ONE_HOT = defop("one_hot", _one_hot_forward, None, MEMORY)
ARGWHERE = defop("argwhere", torch.argwhere, None, MEMORY)
