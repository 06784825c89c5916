"""Spec rows: matrix products (``ops/linalg.py``), with batch dims that broadcast; Burn's
``linalg::qr`` against Burn's own algorithm written in plain torch; ``linalg::det`` against
torch's, and at a singular matrix against the cofactor expansion (the derivative Burn's closed
forms give, where torch autograd's formula gives zero)."""
import torch

from burn_torch import Tensor, linalg
from spec import F, Row


def _burn_qr(a, reduced):
    """Burn's ``linalg::qr``, step for step: a Householder reflection per column, the pivot's
    sign chosen against the pivot's (a zero pivot counts as positive), no reflection for a
    column of norm within Burn's ``is_close`` tolerance of 0, Q built by the same reflections."""
    *batch, m, n = a.shape
    r = a
    q = torch.eye(m, dtype=a.dtype).expand(*batch, m, m)
    for i in range(min(m, n)):
        sub = r[..., i:, i:]
        v = sub[..., :, :1]
        v0 = v[..., :1, :]
        norm = v.square().sum(-2, keepdim=True).sqrt()
        sign = -torch.sign(v0)
        sign = torch.where(sign == 0, -1.0, sign)
        u0 = v0 - norm * sign
        zero = torch.isclose(norm, torch.zeros_like(norm))
        tau = torch.where(zero, 0.0, -u0 / norm * sign)
        w = torch.where(zero, 0.0, torch.cat([torch.ones_like(v0), v[..., 1:, :] / u0], -2))

        def reflect(x):
            return w @ ((x @ w) * tau).mT

        r = torch.cat([r[..., :i, :], torch.cat([r[..., i:, :i], sub - reflect(sub.mT)], -1)], -2)
        rest = q[..., :, i:]
        q = torch.cat([q[..., :, :i], rest - reflect(rest).mT], -1)
    if reduced and m > n:
        return q[..., :, :n], r[..., :n, :]
    return q, r


def _singular(x):
    """A [.., 3, 3] matrix of rank 2 from x [.., 2, 3]: its rows and their sum."""
    return torch.cat([x, x[..., :1, :] + x[..., 1:, :]], -2)


def _cofactor_det(m):
    (a, b, c), (d, e, f), (g, h, i) = [[m[..., r, k] for k in range(3)] for r in range(3)]
    return a * (e * i - f * h) - b * (d * i - f * g) + c * (d * h - e * g)


ROWS = [
    Row("matmul", lambda a, b: a.matmul(b), torch.matmul, (F(3, 4), F(4, 5)), variant="2d"),
    Row("matmul", lambda a, b: a @ b, torch.matmul, (F(2, 3, 4), F(2, 4, 5)), variant="batched"),
    Row("matmul", lambda a, b: a.matmul(b), torch.matmul, (F(2, 3, 4), F(1, 4, 5)),
        variant="broadcast batch"),
    Row("matmul", lambda a, b: a.matmul(b), torch.matmul, (F(2, 2, 3, 4), F(2, 1, 4, 5)),
        variant="rank 4 broadcast batch"),
    Row("qr", lambda a: linalg.qr(a, True), lambda a: _burn_qr(a, True), (F(3, 3),),
        variant="square"),
    Row("qr", lambda a: linalg.qr(a, True), lambda a: _burn_qr(a, True), (F(5, 3),),
        variant="tall, reduced"),
    Row("qr", lambda a: linalg.qr(a, False), lambda a: _burn_qr(a, False), (F(3, 5),),
        variant="wide"),
    Row("qr", lambda a: linalg.qr(a, True), lambda a: _burn_qr(a, True), (F(2, 4, 3),),
        variant="batched"),
    # Q's extra columns: back through Burn's reflections
    Row("qr", lambda a: linalg.qr(a, False), lambda a: _burn_qr(a, False), (F(5, 3),),
        variant="tall, complete"),
    Row("qr", lambda a: linalg.qr(a, False), lambda a: _burn_qr(a, False), (F(2, 4, 2),),
        variant="tall, complete, batched"),
    # every column already zero below its pivot: LAPACK skips each reflection, Burn makes it
    Row("qr", lambda a: linalg.qr(a.triu(0), True), lambda a: _burn_qr(a.triu(0), True),
        (F(3, 3),), variant="upper triangular"),
    Row("det", linalg.det, torch.linalg.det, (F(3, 2, 2),), variant="2 x 2"),
    Row("det", linalg.det, torch.linalg.det, (F(2, 3, 3),), variant="3 x 3"),
    Row("det", linalg.det, torch.linalg.det, (F(2, 4, 4),), variant="4 x 4, LU"),
    Row("det", linalg.det, torch.linalg.det, (F(1, 1, 1),), variant="1 x 1"),
    Row("det", lambda x: linalg.det(Tensor.cat([x, x.narrow(-2, 0, 1) + x.narrow(-2, 1, 1)], -2)),
        lambda x: _cofactor_det(_singular(x)), (F(2, 2, 3),), variant="singular"),
]
