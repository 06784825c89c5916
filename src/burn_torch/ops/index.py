"""Indexing and masking ops (memory-bound). Index and mask tensors are attributes, never inputs."""
import torch

from .fit import fit
from .table import MEMORY, defop


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
