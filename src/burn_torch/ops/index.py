"""Indexing and masking ops (memory-bound). Index and mask tensors are attributes, never inputs."""
import enum
import math

import torch

from .table import MEMORY, PASS, defop, vjp

_UPDATE = ("x", "values")  # an indexed update's inputs: the tensor and the values put into it


def _select_rule(g, s):
    return g.new_zeros(s.x_shape).index_add_(s.dim, s.indices, g)


def _gather_rule(g, s):
    return g.new_zeros(s.x_shape).scatter_add_(s.dim, s.indices, g)


# mask_fill and mask_where broadcast the mask and their inputs: their rules return gradients in
# the output's shape and the engine sums them back to each input's shape.
SELECT = defop("select", torch.index_select, MEMORY, attrs=("dim", "indices"),
               vjp=(vjp(_select_rule, "x_shape"),))
GATHER = defop("gather", torch.gather, MEMORY, attrs=("dim", "indices"),
               vjp=(vjp(_gather_rule, "x_shape"),))
# x broadcasts to the mask's shape: the engine sums its gradient back
MASK_FILL = defop("mask_fill", torch.masked_fill, MEMORY, attrs=("mask", "value"),
                  vjp=(vjp(lambda g, s: g.masked_fill(s.mask, 0)),), exact=False)
MASK_WHERE = defop("mask_where", lambda x, values, mask: torch.where(mask, values, x), MEMORY,
                   inputs=_UPDATE, attrs=("mask",),
                   vjp=(vjp(lambda g, s: torch.where(s.mask, 0, g)),
                        vjp(lambda g, s: torch.where(s.mask, g, 0))))


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
    ``x[i0, ..., iK-1]``; done as an ``AlongDim`` on dim 0 of ``x`` with its first ``K``
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


def _taken(g, s):
    """The values' gradient: the output's gradient where each value went."""
    return s.place.take(g)


def _mul_x(g, s):
    """x's entries are scaled by the product of the values hitting them; each value's gradient
    is the incoming gradient times the entry it scaled (Burn's rule: other values hitting the
    same entry are not included)."""
    return g * s.place.update(torch.ones_like(g), s.values, IndexingUpdateOp.MUL)


def _mul_values(g, s):
    place = s.place
    return place.take(g) * place.take(s.x)


def _extremum_x(g, s):
    """Burn's rule: the whole gradient flows to every side equal to the result, ties included."""
    return torch.where(s.x == s.out, g, 0)


def _extremum_values(g, s):
    place = s.place
    return torch.where(s.values == place.take(s.out), place.take(g), 0)


_UPDATE_RULES = {
    IndexingUpdateOp.ADD: (PASS, vjp(_taken)),
    IndexingUpdateOp.ASSIGN: (vjp(lambda g, s: s.place.clear(g)), vjp(_taken)),
    IndexingUpdateOp.MUL: (vjp(_mul_x, "values"), vjp(_mul_values, "x")),
    IndexingUpdateOp.MIN: (vjp(_extremum_x, "x", "out"), vjp(_extremum_values, "values", "out")),
    IndexingUpdateOp.MAX: (vjp(_extremum_x, "x", "out"), vjp(_extremum_values, "values", "out")),
}


def _declare_updates(family: str) -> dict:
    return {op: defop(f"{family}_{op.value}", _update_forward(op), MEMORY, inputs=_UPDATE,
                      attrs=("place",), vjp=rules)
            for op, rules in _UPDATE_RULES.items()}


SELECT_ASSIGN = _declare_updates("select_assign")
SCATTER = _declare_updates("scatter")
SCATTER_ND = _declare_updates("scatter_nd")


# -- multi-dimensional gather, mask selection, non-differentiable index ops ------------------------
def _gather_nd_rule(g, s):
    return s.place.update(g.new_zeros(s.x_shape), g, IndexingUpdateOp.ADD)


def _mask_select_rule(g, s):
    mask = s.mask
    return g.new_zeros(mask.shape).masked_scatter_(mask, g)


def _one_hot_forward(x, num_classes):
    index = x.long()
    index = torch.where(index < 0, index + num_classes, index)
    return torch.nn.functional.one_hot(index, num_classes).to(x.dtype)


GATHER_ND = defop("gather_nd", lambda x, place: place.take(x), MEMORY, attrs=("place",),
                  vjp=(vjp(_gather_nd_rule, "x_shape"),))
MASK_SELECT = defop("mask_select", torch.masked_select, MEMORY, attrs=("mask",),
                    vjp=(vjp(_mask_select_rule),))
ONE_HOT = defop("one_hot", _one_hot_forward, attrs=("num_classes",))


def _one_hot_fill_forward(x, num_classes, on_value, off_value, axis):
    hot = _one_hot_forward(x, num_classes).movedim(-1, axis).bool()
    on = torch.scalar_tensor(on_value, dtype=x.dtype, device=x.device)
    return torch.where(hot, on, torch.scalar_tensor(off_value, dtype=x.dtype, device=x.device))


ONE_HOT_FILL = defop("one_hot_fill", _one_hot_fill_forward,
                     attrs=("num_classes", "on_value", "off_value", "axis"))
ARGWHERE = defop("argwhere", torch.argwhere)
