"""Matrix products (compute-bound: BALANCED checkpointing keeps their outputs)."""
import torch

from .fit import fit
from .table import COMPUTE, defop, save_other_input


def _matmul_rule(g, n):
    pa, pb = n.parents
    a, b = n.saved
    ga = fit(torch.matmul(g, b.mT), pa) if pa is not None else None
    gb = fit(torch.matmul(a.mT, g), pb) if pb is not None else None
    return ga, gb


MATMUL = defop("matmul", torch.matmul, _matmul_rule, COMPUTE, save_other_input)
