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


def qr_forward(x, reduced):
    """``qr``'s kernel: Q and R packed (see ``qr_packing``), in ``x``'s dtype."""
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


def _burn_reflections(x):
    """Burn's Householder steps on ``x`` ``[..., m, n]``, replayed: per step, the trailing block
    ``S`` of R and ``P`` of Q it transforms, the pivot column ``v``, ``u0 = v0 - |v| s``, ``|v|``,
    ``s`` (minus the pivot's sign, -1 for a zero pivot), whether ``|v|`` counts as zero
    (no reflection), ``tau`` and ``w = [1, v[1:] / u0]``; the step maps ``S`` to
    ``(I - tau w wᵀ) S`` and ``P`` to ``P (I - tau w wᵀ)``."""
    m, n = x.shape[-2:]
    r, q = x, torch.eye(m, dtype=x.dtype, device=x.device).expand(*x.shape[:-2], m, m)
    steps = []
    for i in range(min(m, n)):
        sub, p = r[..., i:, i:], q[..., :, i:]
        v = sub[..., :, :1]
        norm = v.square().sum(-2, keepdim=True).sqrt()
        sign = torch.sign(v[..., :1, :]).neg_()
        sign = torch.where(sign == 0, -1.0, sign)
        u0 = v[..., :1, :] - norm * sign
        zero = norm <= BURN_ZERO_NORM
        tau = torch.where(zero, 0.0, -u0 / norm * sign)
        w = torch.where(zero, 0.0, torch.cat([torch.ones_like(u0), v[..., 1:, :] / u0], -2))
        steps.append((sub, p, v, u0, norm, sign, zero, tau, w))
        r = r.clone()
        r[..., i:, i:] = sub - tau * w @ (w.mT @ sub)
        q = q.clone()
        q[..., :, i:] = p - tau * (p @ w) @ w.mT
    return steps


def _reflections_grad(gq, gr, x):
    """The gradient of Burn's complete QR (``Q`` ``[m, m]``, ``R`` ``[m, n]``) through its
    Householder steps, in reverse: each step passes ``(I - tau w wᵀ)`` times its output
    gradients back to ``S`` and ``P`` and the rest through ``tau`` and ``w`` to the pivot
    column. This is how Burn's autodiff differentiates the extra columns of ``Q``, which the
    QR formula cannot (they depend on the reflections, not on ``x``'s QR)."""
    gr, gq = gr.clone(), gq.clone()
    steps = list(enumerate(_burn_reflections(x)))
    for i, (sub, p, v, u0, norm, sign, zero, tau, w) in reversed(steps):
        gra, gqa = gr[..., i:, i:], gq[..., :, i:]
        a, b, c, gw_q = w.mT @ sub, w.mT @ gra, p @ w, gqa @ w
        g_sub = gra - tau * w @ b
        g_tau = -(a * b).sum(-1, keepdim=True) - c.mT @ gw_q
        g_w = -tau * (gra @ a.mT + sub @ b.mT + p.mT @ gw_q + gqa.mT @ c)
        gq[..., :, i:] = gqa - tau * gw_q @ w.mT  # gqa is a view of gq: read it first
        tail = v[..., 1:, :]
        g_u0 = -(g_w[..., 1:, :] * tail).sum(-2, keepdim=True) / u0.square() - g_tau * sign / norm
        g_norm = g_tau * sign * u0 / norm.square() - sign * g_u0
        g_v = torch.cat([g_u0, g_w[..., 1:, :] / u0], -2) + g_norm * v / norm
        g_sub[..., :, :1] += torch.where(zero, 0.0, g_v)
        gr[..., i:, i:] = g_sub
    return gr


def _qr_rule(g, s):
    """A wide matrix ``[X | Y] = Q [U | V]`` gives ``X`` the square gradient with ``gq + Y gvᵀ``
    (``V = Qᵀ Y`` depends on ``Q``) and ``Y`` the gradient ``Q gv``; the complete form of a
    tall matrix goes back through Burn's reflections."""
    out = s.out
    if out.dtype not in (torch.float32, torch.float64):  # LAPACK has no half-precision kernels
        upcast = _Upcast(out.float(), s.x_shape, s.reduced)
        return _qr_rule(g.float(), upcast).to(g.dtype)
    m, n = s.x_shape[-2:]
    _, dim = qr_packing(m, n, s.reduced)
    sizes = [m, out.shape[dim] - m]
    q, r = out.split(sizes, dim)
    gq, gr = g.split(sizes, dim)
    if m > n and not s.reduced:  # the input, rebuilt from its factors (nothing else is saved)
        return _reflections_grad(gq, gr, torch.matmul(q, r))
    if r.shape[-1] <= r.shape[-2]:
        return _square_qr_grad(gq, gr, q, r)
    u, v = r[..., :m], r[..., m:]
    gu, gv = gr[..., :m], gr[..., m:]
    y = torch.matmul(q, v)
    gx = _square_qr_grad(gq + torch.matmul(y, gv.mT), gu, q, u)
    return torch.cat([gx, torch.matmul(q, gv)], -1)


QR = defop("qr", qr_forward, COMPUTE, attrs=("reduced",), vjp=(vjp(_qr_rule, "out", "x_shape"),))


# ---- determinant, Burn's linalg::det ----------------------------------------------------------
# Burn computes it with closed forms up to 3 x 3 and an LU factorisation beyond, all tensor ops,
# so its gradient is the determinant's derivative, the transposed adjugate, singular matrices
# included. The rule computes that adjugate from an SVD, exact for every matrix (no inverse).
# n = 0 (an empty matrix) is not reached: the public function needs n >= 1
def _det_forward(x):
    """Burn's closed forms up to 3 x 3 (the same products, in the same order), LAPACK's LU
    beyond; half precision is computed in F32, as Burn does."""
    work = x if x.dtype in (torch.float32, torch.float64) else x.float()
    n = work.shape[-1]
    if n > 3:
        return torch.linalg.det(work).to(x.dtype)
    m = [[work[..., i, j] for j in range(n)] for i in range(n)]
    if n == 1:
        out = m[0][0].clone()
    elif n == 2:
        out = m[0][0] * m[1][1] - m[0][1] * m[1][0]
    else:
        (a, b, c), (d, e, f), (g, h, i) = m
        out = a * (e * i - f * h) - b * (d * i - f * g) + c * (d * h - e * g)
    return out.to(x.dtype)


def _cofactors(x):
    """The cofactor matrix (the transposed adjugate) of 1 x 1 to 3 x 3 matrices, from the
    derivatives of Burn's closed forms."""
    n = x.shape[-1]
    if n == 1:
        return torch.ones_like(x)
    m = [[x[..., i, j] for j in range(n)] for i in range(n)]
    if n == 2:
        (a, b), (c, d) = m
        rows = [[d, -c], [-b, a]]
    else:
        rows = [[m[(i + 1) % 3][(j + 1) % 3] * m[(i + 2) % 3][(j + 2) % 3]
                 - m[(i + 1) % 3][(j + 2) % 3] * m[(i + 2) % 3][(j + 1) % 3] for j in range(3)]
                for i in range(3)]
    return torch.stack([torch.stack(row, -1) for row in rows], -2)


def _det_rule(g, s):
    """``g * adj(x)ᵀ``: up to 3 x 3 the cofactors of Burn's closed forms; beyond, from an SVD
    ``x = U Σ Vᵀ``, ``adj(x)ᵀ = det(U) det(V) U diag(π) Vᵀ``, ``π_i`` the product of the
    singular values other than ``σ_i``."""
    x = s.x if s.x.dtype in (torch.float32, torch.float64) else s.x.float()
    if x.shape[-1] <= 3:
        return (_cofactors(x) * g[..., None, None]).to(s.x.dtype)
    u, sv, vh = torch.linalg.svd(x)
    ones = sv.new_ones(*sv.shape[:-1], 1)
    before = torch.cat([ones, sv[..., :-1]], -1).cumprod(-1)
    after = torch.cat([sv[..., 1:], ones], -1).flip(-1).cumprod(-1).flip(-1)
    orientation = torch.linalg.det(u) * torch.linalg.det(vh)
    adjugate_t = torch.matmul(u * (before * after).unsqueeze(-2), vh)
    return (adjugate_t * (g * orientation)[..., None, None]).to(s.x.dtype)


DET = defop("det", _det_forward, COMPUTE, vjp=(vjp(_det_rule, "x"),))
