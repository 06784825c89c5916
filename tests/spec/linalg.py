"""Spec rows: matrix products (``ops/linalg.py``), with batch dims that broadcast, and Burn's
``linalg::qr`` against Burn's own algorithm written in plain torch."""
import torch

from burn_torch import linalg
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
]
