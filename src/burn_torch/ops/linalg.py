"""Matrix products (compute-bound: BALANCED checkpointing keeps their outputs)."""
import torch

from .table import COMPUTE, defop, vjp

_mm = torch.mm
_matmul = torch.matmul
_linear = torch.nn.functional.linear


def _matmul_lhs(g, s):  # g @ b^T, summed over broadcast batch dims by the engine
    b = s.rhs
    # a 2-D output: two matrices, and torch's linear computes g @ bᵀ without a transposed view
    return _linear(g, b) if g.dim() == 2 else _matmul(g, b.mT)


def _matmul_rhs(g, s):  # a^T @ g
    a = s.lhs
    return _mm(a.t(), g) if g.dim() == 2 else _matmul(a.mT, g)


MATMUL = defop("matmul", torch.matmul, COMPUTE, inputs=("lhs", "rhs"),
               vjp=(vjp(_matmul_lhs, "rhs"), vjp(_matmul_rhs, "lhs")))
