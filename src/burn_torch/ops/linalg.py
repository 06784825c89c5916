"""Matrix products (compute-bound: BALANCED checkpointing keeps their outputs)."""
import torch

from .fit import fit
from .table import COMPUTE, defop, save_other_input

_mm = torch.mm


def _matmul_rule(g, n):
    pa, pb = n.parents
    a, b = n.saved
    if g.dim() == 2:  # plain matrices: the products already have the inputs' shapes
        return (_mm(g, b.t()) if pa is not None else None, _mm(a.t(), g) if pb is not None else None)
    ga = fit(torch.matmul(g, b.mT), pa) if pa is not None else None
    gb = fit(torch.matmul(a.mT, g), pb) if pb is not None else None
    return ga, gb


MATMUL = defop("matmul", torch.matmul, _matmul_rule, COMPUTE, save_other_input)
