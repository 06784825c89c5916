"""Matrix products and the QR decomposition (compute-bound: BALANCED checkpointing keeps their
outputs)."""
from typing import NamedTuple

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


# ---- QR decomposition, Burn's linalg::qr: Householder reflections, R's diagonal -sign(pivot) ----
# The forward is LAPACK's (torch.geqrf, then householder_product for Q): the same reflections
# as Burn's, except at a step whose column is zero below the pivot, where LAPACK skips the
# reflection (tau 0) and Burn still reflects, negating that row of R and that column of Q.
# Both outputs are packed into one tensor (the op table's steps have one output): along the
# last dim when Q and R have as many rows (square, wide, complete), else along the rows (a tall
# matrix's reduced form); the public function narrows them apart.
_geqrf = torch.geqrf
_householder = torch.linalg.householder_product
_solve_triangular = torch.linalg.solve_triangular
BURN_ZERO_NORM = 1e-8  # Burn's is_close tolerance: a column of smaller norm is not reflected


def qr_packing(m: int, n: int, reduced: bool) -> tuple:
    """``(k, dim)`` for the QR of an ``m`` x ``n`` matrix: Q has ``k`` columns and R ``k`` rows,
    and the packed output holds Q then R along ``dim``, Q's part ``m`` long (its rows along
    -2, its ``m`` columns along -1)."""
    if reduced and m > n:
        return n, -2
    return m, -1


def _qr_forward(x, reduced):
    work = x if x.dtype in (torch.float32, torch.float64) else x.float()
    a, tau = _geqrf(work)
    m, n = a.shape[-2:]
    k = tau.shape[-1]
    cols, dim = qr_packing(m, n, reduced)
    if cols > n:  # the complete Q of a tall matrix: every column of the reflections' product
        a_q = torch.cat([a, a.new_zeros(*a.shape[:-1], cols - n)], -1)
    else:
        a_q = a[..., :, :cols]
    q = _householder(a_q, tau)
    r = a[..., :cols, :].triu()
    pivot = r.diagonal(0, -2, -1)[..., :k]
    # -1 where LAPACK skipped a reflection Burn makes (no host read: capture replays it)
    sign = ((tau == 0) & (pivot.abs() > BURN_ZERO_NORM)).to(q.dtype).mul_(-2.0).add_(1.0)
    q[..., :k] *= sign.unsqueeze(-2)
    r[..., :k, :] *= sign.unsqueeze(-1)
    return torch.cat([q, r], dim).to(x.dtype)


def _square_qr_grad(gq, gr, q, r):
    """The gradient of ``A = QR`` (``R`` square, upper triangular, invertible) for the output
    gradients ``gq``, ``gr``: ``(gq + Q copyltu(R grᵀ - gqᵀ Q)) R⁻ᵀ``, where copyltu mirrors
    the lower triangle onto the upper one (a QR's gradient is the same for every sign
    convention of R's diagonal)."""
    m = torch.matmul(r, gr.mT) - torch.matmul(gq.mT, q)
    lower = m.tril(-1)
    sym = lower + lower.mT + torch.diag_embed(m.diagonal(0, -2, -1))
    return _solve_triangular(r.mT, torch.matmul(q, sym) + gq, upper=False, left=False)


class _Upcast(NamedTuple):
    out: torch.Tensor
    x_shape: torch.Size
    reduced: bool


def _qr_rule(g, s):
    """A wide matrix ``[X | Y] = Q [U | V]`` gives ``X`` the square gradient with ``gq + Y gvᵀ``
    (``V = Qᵀ Y`` depends on ``Q``) and ``Y`` the gradient ``Q gv``."""
    out = s.out
    if out.dtype not in (torch.float32, torch.float64):  # LAPACK has no half-precision kernels
        return _qr_rule(g.float(), _Upcast(out.float(), s.x_shape, s.reduced)).to(g.dtype)
    m = s.x_shape[-2]
    _, dim = qr_packing(m, s.x_shape[-1], s.reduced)
    sizes = [m, out.shape[dim] - m]
    q, r = out.split(sizes, dim)
    gq, gr = g.split(sizes, dim)
    if r.shape[-1] <= r.shape[-2]:
        return _square_qr_grad(gq, gr, q, r)
    u, v = r[..., :m], r[..., m:]
    gu, gv = gr[..., :m], gr[..., m:]
    y = torch.matmul(q, v)
    gx = _square_qr_grad(gq + torch.matmul(y, gv.mT), gu, q, u)
    return torch.cat([gx, torch.matmul(q, gv)], -1)


QR = defop("qr", _qr_forward, COMPUTE, attrs=("reduced",), vjp=(vjp(_qr_rule, "out", "x_shape"),))
