"""Spec rows: indexing, masking and indexed updates (``ops/index.py``). ``mask_where(mask, values)``
takes ``values`` where the mask is set. For the indexed updates, MUL, MIN and MAX follow Burn's
gradient rules, which match torch's only without repeated indices (Burn gives every value the
gradient times the entry it scaled, ignoring the other values hitting it) and without ties
(Burn gives the whole gradient to every tied side, torch splits it): their rows use fixed
indices without repeats, and continuous random values (no ties). ASSIGN keeps an unspecified
one of repeated values, so its rows avoid repeats too. ADD rows draw indices with repeats."""
import torch

from burn_torch import IndexingUpdateOp as Op
from spec import F, I, K, M, Row

S = (2, 3, 4)


def _onehot(idx, n):
    """``[..., n]`` float64 one-hot rows of the Int ``idx``."""
    return (idx.unsqueeze(-1) == torch.arange(n)).double()


def _put(x, index, v):
    out = x.clone()
    out[index] = v
    return out


_COMBINE = {Op.ASSIGN: lambda old, v: v, Op.MUL: torch.mul, Op.MIN: torch.minimum,
            Op.MAX: torch.maximum}

# select_assign along dim 1 of x [2, 4, 3]: values slice i goes to slice IDX1[i] (no repeats)
IDX1 = [3, 0]
# scatter along dim 1 of x [3, 4]: values[r, k] goes to x[r, SIDX[r][k]] (no repeats in a row)
SIDX = [[0, 2], [3, 1], [1, 0]]
_ROWS3 = torch.arange(3).unsqueeze(1)
# scatter_nd into x [3, 4, 2]: row m of NDIDX addresses the slice x[i0, i1] (no repeated rows)
NDIDX = [[0, 1], [2, 3], [1, 1]]
_ND = (torch.tensor([0, 2, 1]), torch.tensor([1, 3, 1]))


def select_assign(op, dim=1):
    return Row(f"select_assign_{op.value}", lambda x, v: x.select_assign(dim, IDX1, v, op),
               lambda x, v: _put(x, (slice(None), IDX1), _COMBINE[op](x[:, IDX1], v)),
               (F(2, 4, 3), F(2, 2, 3)), variant="" if dim == 1 else "negative dim")


def scatter(op):
    return Row(f"scatter_{op.value}", lambda x, v: x.scatter(1, SIDX, v, op),
               lambda x, v: _put(x, (_ROWS3, torch.tensor(SIDX)),
                                 _COMBINE[op](x[_ROWS3, torch.tensor(SIDX)], v)),
               (F(3, 4), F(3, 2)))


def scatter_nd(op):
    return Row(f"scatter_nd_{op.value}", lambda x, v: x.scatter_nd(NDIDX, v, op),
               lambda x, v: _put(x, _ND, _COMBINE[op](x[_ND], v)), (F(3, 4, 2), F(3, 2)))


ROWS = [
    Row("select", lambda x, i: x.select(1, i), lambda x, i: x[:, i], (F(*S), I(5, lo=0, hi=2)),
        variant="repeated indices"),
    Row("select", lambda x, i: x.select(-1, i), lambda x, i: x[..., i], (F(*S), I(3, lo=0, hi=3)),
        variant="negative dim"),
    Row("gather", lambda x, i: x.gather(1, i), lambda x, i: x[torch.arange(3).unsqueeze(1), i],
        (F(3, 4), I(3, 5, lo=0, hi=3))),
    Row("gather", lambda x, i: x.gather(-2, i), lambda x, i: x[i, torch.arange(4)],
        (F(3, 4), I(2, 4, lo=0, hi=2)), variant="negative dim"),
    # x broadcasts against the mask (x [3], mask [2, 3] is the case the mask_fill fix is about)
    Row("mask_fill", lambda x, m: x.mask_fill(m, 0.0), lambda x, m: torch.where(m, 0.0, x),
        (F(2, 3), M(2, 3)), broadcast=(0, 1)),
    Row("mask_fill", lambda x, m: x.mask_fill(m, -1.5), lambda x, m: torch.where(m, -1.5, x),
        (F(*S), M(*S)), broadcast=(0, 1), variant="rank 3"),
    Row("mask_where", lambda x, m, v: x.mask_where(m, v), lambda x, m, v: torch.where(m, v, x),
        (F(2, 3), M(2, 3), F(2, 3)), broadcast=(0, 1, 2)),
    Row("mask_where", lambda x, m, v: x.mask_where(m, v), lambda x, m, v: torch.where(m, v, x),
        (F(*S), M(*S), F(*S)), broadcast=(0, 1, 2), variant="rank 3"),
    Row("mask_select", lambda x, m: x.mask_select(m), lambda x, m: x[m], (F(*S), M(*S))),
    Row("select_assign_add", lambda x, i, v: x.select_assign(1, i, v, Op.ADD),
        lambda x, i, v: x + torch.einsum("akc,kn->anc", v, _onehot(i, 4)),
        (F(2, 4, 3), I(5, lo=0, hi=3), F(2, 5, 3)), variant="repeated indices"),
    Row("select_assign_add", lambda x, v: x.select_assign(-1, [2, 0], v, Op.ADD),
        lambda x, v: _put(x, (Ellipsis, [2, 0]), x[..., [2, 0]] + v), (F(2, 4, 3), F(2, 4, 2)),
        variant="negative dim"),
    select_assign(Op.ASSIGN), select_assign(Op.ASSIGN, dim=-2),
    select_assign(Op.MUL), select_assign(Op.MIN), select_assign(Op.MAX),
    Row("scatter_add", lambda x, i, v: x.scatter(1, i, v, Op.ADD),
        lambda x, i, v: x + torch.einsum("rk,rkn->rn", v, _onehot(i, 4)),
        (F(3, 4), I(3, 5, lo=0, hi=3), F(3, 5)), variant="repeated indices"),
    Row("scatter_add", lambda x, i, v: x.scatter(-2, i, v, Op.ADD),
        lambda x, i, v: x + torch.einsum("kc,kcn->nc", v, _onehot(i, 4)),
        (F(4, 3), I(5, 3, lo=0, hi=3), F(5, 3)), variant="negative dim, repeated indices"),
    scatter(Op.ASSIGN), scatter(Op.MUL), scatter(Op.MIN), scatter(Op.MAX),
    Row("scatter_nd_add", lambda x, i, v: x.scatter_nd(i, v, Op.ADD),
        lambda x, i, v: x + torch.einsum("mc,mn->nc", v,
                                         _onehot(i[:, 0] * 3 + i[:, 1], 9)).reshape(3, 3, 2),
        (F(3, 3, 2), I(4, 2, lo=0, hi=2), F(4, 2)), variant="repeated rows"),
    Row("scatter_nd_add", lambda x, i, v: x.scatter_nd(i, v, Op.ADD),
        lambda x, i, v: x + torch.einsum("mc,mn->nc", v.reshape(4, 4),
                                         _onehot(i.reshape(4), 3)),
        (F(3, 4), I(2, 2, 1, lo=0, hi=2), F(2, 2, 4)), variant="K=1, batch dims"),
    scatter_nd(Op.ASSIGN), scatter_nd(Op.MUL), scatter_nd(Op.MIN), scatter_nd(Op.MAX),
    Row("scatter_nd_assign", lambda x, v: x.scatter_nd([[2], [0]], v, Op.ASSIGN),
        lambda x, v: _put(x, [2, 0], v), (F(3, 4), F(2, 4)), variant="K=1"),
    Row("gather_nd", lambda x, i: x.gather_nd(i), lambda x, i: x[i[:, 0], i[:, 1]],
        (F(3, 3, 4), I(5, 2, lo=0, hi=2))),
    Row("gather_nd", lambda x, i: x.gather_nd(i), lambda x, i: x[i[..., 0], i[..., 1], i[..., 2]],
        (F(2, 2, 3), I(2, 3, 3, lo=0, hi=1)), variant="K = rank, batch dims"),
    Row("one_hot", lambda i: i.one_hot(4), lambda i: _onehot(i.remainder(4), 4).long(),
        (I(2, 3, lo=-4, hi=3),)),
    # a Float tensor of class indices (tracked: the one-hot result must be untracked)
    Row("one_hot", lambda x: x.round().one_hot(3), lambda x: _onehot(x.round().long() % 3, 3),
        (F(*S, lo=-0.4, hi=2.4),), variant="float"),
    Row("one_hot_fill", lambda i: i.one_hot_fill(4, 3.0, -1.0, 0),
        lambda i: (_onehot(i.remainder(4), 4) * 4 - 1).long().movedim(-1, 0), (I(2, 3, lo=-4, hi=3),)),
    Row("one_hot_fill", lambda x: x.round().one_hot_fill(3, 0.9, 0.05, 1),
        lambda x: (_onehot(x.round().long() % 3, 3) * 0.85 + 0.05).movedim(-1, 1),
        (F(*S, lo=-0.4, hi=2.4),), variant="float, middle axis"),
    Row("argwhere", lambda m: m.argwhere(), lambda m: torch.argwhere(m), (M(*S),)),
    Row("argwhere", lambda m: m.nonzero(), lambda m: list(torch.nonzero(m, as_tuple=True)), (M(*S),),
        variant="nonzero"),
    # untracked operands
    Row("mask_where", lambda x, m, v: x.mask_where(m, v), lambda x, m, v: torch.where(m, v, x),
        (K(2, 3), M(2, 3), F(2, 3)), broadcast=(0, 2), variant="constant tensor"),
    Row("mask_where", lambda x, m, v: x.mask_where(m, v), lambda x, m, v: torch.where(m, v, x),
        (F(2, 3), M(2, 3), K(2, 3)), broadcast=(0, 2), variant="constant values"),
    Row("scatter_mul", lambda x, v: x.scatter(1, SIDX, v, Op.MUL),
        lambda x, v: _put(x, (_ROWS3, torch.tensor(SIDX)), x[_ROWS3, torch.tensor(SIDX)] * v),
        (K(3, 4), F(3, 2)), variant="constant tensor"),
    Row("scatter_nd_max", lambda x, v: x.scatter_nd(NDIDX, v, Op.MAX),
        lambda x, v: _put(x, _ND, torch.maximum(x[_ND], v)), (F(3, 4, 2), K(3, 2)),
        variant="constant values"),
    Row("select", lambda x, i: x.select(1, i), lambda x, i: x[:, i], (F(*S), I(0, lo=0, hi=2)),
        variant="no indices"),
]
