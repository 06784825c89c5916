"""Spec rows: reductions, scans, sorting and statistics (``ops/reduce.py``), with Burn's shapes:
full reductions return shape ``[1]``, ``*_dim`` reductions keep the reduced dim with size 1, scans
and sorts keep the input's shape.

Ties: Burn routes the gradient of ``max``/``min``, ``*_dim``, ``median``, ``sort``, ``topk`` and
``cummax``/``cummin`` to the one selected index, where torch may split it among equal values. The
leaves here are drawn from a continuous distribution, so they are tie-free and both agree; the
selection is also locally constant, so the finite difference holds (``numeric=True``).

``argmax``, ``argmin``, ``argsort``, ``any``, ``all``, ``any_dim``, ``all_dim`` are not
differentiable: their rows check the forward and that the result is untracked.
"""

from spec import F, I, M, Row

S = (2, 3, 4)


def unary(op, fn, ref, arg=None, **kw):
    return Row(op, fn, ref, (arg if arg is not None else F(*S),), **kw)


def _lower_median(x, dim):
    n = x.shape[dim]
    return x.sort(dim).values.narrow(dim, (n - 1) // 2, 1)


ROWS = [
    # ---- sums and products ----
    unary("sum", lambda x: x.sum(), lambda x: x.sum().reshape(1)),
    unary("mean", lambda x: x.mean(), lambda x: x.mean().reshape(1)),
    unary("sum_dim", lambda x: x.sum_dim(1), lambda x: x.sum(1, keepdim=True)),
    unary("sum_dim", lambda x: x.sum_dim(-1), lambda x: x.sum(-1, keepdim=True), variant="dim -1"),
    unary("mean_dim", lambda x: x.mean_dim(2), lambda x: x.mean(2, keepdim=True)),
    unary("mean_dim", lambda x: x.mean_dim(0), lambda x: x.mean(0, keepdim=True), variant="dim 0"),
    unary("prod", lambda x: x.prod(), lambda x: x.prod().reshape(1), arg=F(2, 3)),
    # exact zeros (the mask zeroes about half the elements): each element's gradient is the
    # product of the others, which is non-zero for a lone zero
    Row("prod", lambda x, m: x.mask_fill(m, 0.0).prod(),
        lambda x, m: x.masked_fill(m, 0.0).prod().reshape(1), (F(2, 3), M(2, 3)),
        variant="with zeros"),
    unary("prod_dim", lambda x: x.prod_dim(1), lambda x: x.prod(1, keepdim=True)),
    Row("prod_dim", lambda x, m: x.mask_fill(m, 0.0).prod_dim(2),
        lambda x, m: x.masked_fill(m, 0.0).prod(2, keepdim=True), (F(*S), M(*S)),
        variant="with zeros"),

    # ---- extrema (tie-free continuous values: see the module docstring) ----
    unary("max", lambda x: x.max(), lambda x: x.max().reshape(1)),
    unary("min", lambda x: x.min(), lambda x: x.min().reshape(1)),
    unary("max_dim", lambda x: x.max_dim(1), lambda x: x.max(1, keepdim=True).values),
    unary("max_dim", lambda x: x.max_dim_with_indices(2),
          lambda x: tuple(x.max(2, keepdim=True)), variant="with indices"),
    unary("min_dim", lambda x: x.min_dim(0), lambda x: x.min(0, keepdim=True).values),
    unary("min_dim", lambda x: x.min_dim_with_indices(-1),
          lambda x: tuple(x.min(-1, keepdim=True)), variant="with indices"),
    unary("argmax", lambda x: x.argmax(1), lambda x: x.argmax(1, keepdim=True)),
    unary("argmin", lambda x: x.argmin(2), lambda x: x.argmin(2, keepdim=True)),

    # ---- scans ----
    unary("cumsum", lambda x: x.cumsum(1), lambda x: x.cumsum(1)),
    unary("cumprod", lambda x: x.cumprod(2), lambda x: x.cumprod(2)),
    Row("cumprod", lambda x, m: x.mask_fill(m, 0.0).cumprod(2),
        lambda x, m: x.masked_fill(m, 0.0).cumprod(2), (F(*S), M(*S)), variant="with zeros"),
    unary("cummax", lambda x: x.cummax(2), lambda x: x.cummax(2).values),
    unary("cummin", lambda x: x.cummin(1), lambda x: x.cummin(1).values),

    # ---- sorting (stable; tie-free values) ----
    unary("sort", lambda x: x.sort(2), lambda x: x.sort(2).values),
    unary("sort", lambda x: x.sort_descending(1), lambda x: x.sort(1, descending=True).values,
          variant="descending"),
    unary("sort", lambda x: x.sort_with_indices(0), lambda x: tuple(x.sort(0)),
          variant="with indices"),
    unary("sort", lambda x: x.sort_descending_with_indices(-1),
          lambda x: tuple(x.sort(-1, descending=True)), variant="descending with indices"),
    unary("argsort", lambda x: x.argsort(2), lambda x: x.argsort(2)),
    unary("argsort", lambda x: x.argsort_descending(1), lambda x: x.argsort(1, descending=True),
          variant="descending"),
    unary("topk", lambda x: x.topk(2, 2), lambda x: x.topk(2, 2).values),
    unary("topk", lambda x: x.topk_with_indices(3, 1), lambda x: tuple(x.topk(3, 1)),
          variant="with indices"),

    # ---- statistics ----
    unary("var", lambda x: x.var(2), lambda x: x.var(2, keepdim=True)),
    unary("var", lambda x: x.var_bias(1), lambda x: x.var(1, correction=0, keepdim=True),
          variant="bias"),
    unary("var", lambda x: x.var_mean(2),
          lambda x: (x.var(2, keepdim=True), x.mean(2, keepdim=True)), variant="var_mean"),
    # the lower median: an even-sized dim (4) takes the element at (n - 1) // 2 = 1 of the sort
    unary("median", lambda x: x.median(2), lambda x: _lower_median(x, 2)),
    unary("median", lambda x: x.median(1), lambda x: _lower_median(x, 1), variant="odd dim"),
    unary("median", lambda x: x.median_with_indices(2),
          lambda x: (_lower_median(x, 2), x.argsort(2).narrow(2, 1, 1)), variant="with indices"),

    # ---- truth ----
    unary("any", lambda x: x.any(), lambda x: x.any().reshape(1), arg=M(*S)),
    unary("all", lambda x: x.all(), lambda x: x.all().reshape(1), arg=M(2, 1)),
    unary("any_dim", lambda x: x.any_dim(1), lambda x: x.any(1, keepdim=True), arg=M(2, 2, 2)),
    unary("all_dim", lambda x: x.all_dim(1), lambda x: x.all(1, keepdim=True), arg=M(2, 2, 2)),
    unary("any", lambda x: x.any(), lambda x: (x != 0).any().reshape(1), arg=I(2, 3, lo=0, hi=1),
          variant="int"),
    unary("all_dim", lambda x: x.all_dim(0), lambda x: (x != 0).all(0, keepdim=True),
          arg=I(2, 3, lo=0, hi=1), variant="int"),
    unary("any_dim", lambda x: x.any_dim(0), lambda x: (x != 0).any(0, keepdim=True),
          variant="float leaf"),
]
