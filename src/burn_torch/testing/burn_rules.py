"""Burn's rules are the spec: the points where Burn's gradient rule differs from torch autograd's.

``BURN_RULES`` is the one table of those differences. Each row names the burn_torch op-table
entries it concerns, the point where the rules differ, what Burn does and what torch does, and
its *twin*: a torch function with Burn's rule at that point (a ``torch.autograd.Function``
written from the row, not from the op table). The kit uses the twins in two places:

* the op-table oracle ([`torch_oracle_mode`][burn_torch.testing.oracle.torch_oracle_mode]) runs the
  twin instead of the entry's kernel, so torch autograd gives Burn's gradient there: correct Burn
  code passes and a rule that follows torch at that point fails;
* in the independent reference
  ([`assert_matches_torch`][burn_torch.testing.reference.assert_matches_torch]), a torch function
  written by the user follows torch's rules; where the inputs hit a row's point, write the torch
  side with ``twins`` (``twins.max(x)``, ``twins.leaky_relu(x, 0.01)``, ``twins.scatter_reduce(x,
  dim, index, values, "amax")``).

Every row is checked against the engine by ``tests/test_testing_kit_rules.py`` (Burn's value
passes, torch's value is what plain torch autograd gives) and listed in the migration guide
(``compat/testing/_guide.md``).
"""
from __future__ import annotations

import functools
from dataclasses import dataclass
from types import SimpleNamespace
from typing import Callable

import torch
import torch.nn.functional as F


@dataclass(frozen=True)
class BurnRule:
    """One point where Burn's gradient rule differs from torch's.

    ``id``: a stable name; ``ops``: the op-table entries concerned; ``point``: where; ``burn``
    and ``torch``: each library's gradient there; ``twin``: the torch function with Burn's rule
    (its name in ``twins``); ``derivative``: whether Burn's gradient there is a one-sided
    derivative of the function (finite differences cannot contradict it; otherwise pass
    ``numeric=False`` to checks whose inputs hit the point)."""

    id: str
    ops: tuple[str, ...]
    point: str
    burn: str
    torch: str
    twin: str
    derivative: bool = True


# -- the twins: torch functions with Burn's rules --------------------------------------------------
class _LeakyRelu(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x, slope):
        ctx.save_for_backward(x)
        ctx.slope = slope
        return F.leaky_relu(x, slope)

    @staticmethod
    def backward(ctx, g):
        (x,) = ctx.saved_tensors
        # Burn: mask_where(x, x < 0, x * slope): 1 at exactly 0
        return torch.where(x < 0, g * ctx.slope, g), None


def leaky_relu(x: torch.Tensor, slope: float) -> torch.Tensor:
    """``leaky_relu`` with Burn's gradient: 1 from 0 up (torch: ``slope`` at exactly 0)."""
    return _LeakyRelu.apply(x, slope)


def _first(x: torch.Tensor, largest: bool) -> torch.Tensor:
    flat = x.reshape(-1)
    i = torch.argmax(flat) if largest else torch.argmin(flat)
    return flat[i].reshape(1)


def max(x: torch.Tensor) -> torch.Tensor:  # noqa: A001 - Burn's name
    """Maximum of all elements, shape ``[1]``, with Burn's gradient: all to the first maximum in
    row-major order (torch's ``max()`` splits it evenly among ties)."""
    return _first(x, True)


def min(x: torch.Tensor) -> torch.Tensor:  # noqa: A001 - Burn's name
    """Minimum of all elements, shape ``[1]``; the gradient to the first minimum (as
    [`max`][burn_torch.testing.burn_rules.max])."""
    return _first(x, False)


_REDUCE = {"amax": "amax", "amin": "amin", "prod": "prod"}


class _ScatterReduce(torch.autograd.Function):
    """``x.scatter_reduce(dim, index, values, reduce, include_self=True)`` with Burn's rules."""

    @staticmethod
    def forward(ctx, x, dim, index, values, reduce, place):
        out = place.update(x, values, reduce) if place is not None else \
            x.scatter_reduce(dim, index, values, reduce, include_self=True)
        ctx.save_for_backward(x, values, out)
        ctx.spec = (dim, index, reduce, place)
        return out

    @staticmethod
    def backward(ctx, g):
        x, values, out = ctx.saved_tensors
        dim, index, reduce, place = ctx.spec
        take = place.take if place is not None else (lambda t: t.gather(dim, index))
        if reduce in ("amax", "amin") or getattr(reduce, "value", None) in ("max", "min"):
            # Burn: every side equal to the result gets the whole gradient, ties included
            gx = g * (x == out).to(g.dtype)
            gv = take(g) * (values == take(out)).to(g.dtype)
        else:
            # Burn: x's gradient is scaled by the product of the values hitting it; each value
            # gets the gradient times the entry of x it scaled, other values excluded
            ones = torch.ones_like(x)
            hit = place.update(ones, values, reduce) if place is not None else \
                ones.scatter_reduce(dim, index, values, "prod", include_self=True)
            gx = g * hit
            gv = take(g) * take(x)
        return gx, None, None, gv, None, None


def scatter_reduce(x: torch.Tensor, dim: int, index: torch.Tensor, values: torch.Tensor,
                   reduce: str) -> torch.Tensor:
    """``x.scatter_reduce(dim, index, values, reduce, include_self=True)`` (``reduce``: "amax",
    "amin" or "prod", Burn's scatter MAX, MIN and MUL) with Burn's gradients (table rows
    ``scatter_extremum_ties`` and ``scatter_mul_repeated``). Raises ValueError for another
    reduction."""
    if reduce not in _REDUCE:
        raise ValueError(f"reduce must be one of {sorted(_REDUCE)}, got {reduce!r}")
    return _ScatterReduce.apply(x, dim, index, values, reduce, None)


twins = SimpleNamespace(leaky_relu=leaky_relu, max=max, min=min, scatter_reduce=scatter_reduce)
"""The torch functions with Burn's rules, by name, for the torch side of a reference check."""


BURN_RULES: tuple[BurnRule, ...] = (
    BurnRule("leaky_relu_at_zero", ("leaky_relu",), "x == 0",
             "1 (Burn computes mask_where(x, x < 0, x * slope))", "the negative slope",
             "leaky_relu"),
    BurnRule("max_min_ties", ("max", "min"), "ties of the maximum (minimum) of all elements",
             "the whole gradient to the first extremum in row-major order",
             "split evenly among the tied elements", "max / min"),
    BurnRule("scatter_extremum_ties", ("scatter_max", "scatter_min", "select_assign_max",
                                       "select_assign_min", "scatter_nd_max", "scatter_nd_min"),
             "ties between an entry and the values scattered into it (MAX / MIN)",
             "the whole gradient to every tied side (entry and values)",
             "split evenly among the tied sides", "scatter_reduce(..., 'amax' / 'amin')",
             derivative=False),
    BurnRule("scatter_mul_repeated", ("scatter_mul", "select_assign_mul", "scatter_nd_mul"),
             "several values scattered (MUL) into the same entry",
             "each value: the gradient times the entry of x it scaled, the other values excluded",
             "each value: the gradient times the product of x's entry and every other value",
             "scatter_reduce(..., 'prod')", derivative=False),
)
"""The table. ``max_dim``/``min_dim``/``argmax``, ``sort``, ``topk``, ``median``, ``cummax``,
max pooling, ``relu``/``abs``/``clamp``/``hard_sigmoid`` at their kinks and bounds, ``sqrt``
at 0 and ``prod`` with zeros have the same rule in both libraries (first index of a tie, the
bounds included in the clamp's pass-through)."""


# -- the oracle's kernels: op-table forwards replaced by twins -------------------------------------
def _leaky_forward(x, slope):
    return leaky_relu(x, slope)


def _update_forward(kind: str) -> Callable:
    from ..ops.index import IndexingUpdateOp

    op = IndexingUpdateOp(kind)

    def forward(x, values, place):
        return _ScatterReduce.apply(x, None, None, values, op, place)
    return forward


def _qr_forward(x, reduced):
    """``qr``'s forward for torch autograd, whose kernel (``geqrf``) has no torch derivative:
    ``torch.linalg.qr`` with the signs of the entry's own kernel applied as constants (the two
    differ by signs of R's rows and Q's columns only), packed as the kernel packs. Torch has no
    gradient for the complete form of a tall matrix, so the oracle cannot check that one."""
    from ..ops.linalg import qr_forward, qr_packing

    m, n = x.shape[-2:]
    cols, dim = qr_packing(m, n, reduced)
    q, r = torch.linalg.qr(x, "reduced" if reduced else "complete")
    with torch.no_grad():
        burn_r = qr_forward(x.detach(), reduced).narrow(dim, m, r.shape[dim])
        k = m if m < n else n  # (this module's min is the twin)
        flip = torch.ones(*x.shape[:-2], cols, dtype=x.dtype, device=x.device)
        agree = burn_r.diagonal(0, -2, -1)[..., :k] * r.diagonal(0, -2, -1)[..., :k]
        flip[..., :k] = torch.where(agree < 0, -1.0, 1.0)
    return torch.cat([q * flip.unsqueeze(-2), r * flip.unsqueeze(-1)], dim)


def _batch_norm_stats_forward(datas, epsilon):
    """``batch_norm_stats``' forward for torch autograd, whose eval-form kernel treats the
    statistics as constants: Burn's formula, so the statistics get their gradients too."""
    x, gamma, beta, mean, var = datas
    shape = [1, x.shape[1]] + [1] * (x.dim() - 2)
    scale = gamma / torch.sqrt(var + epsilon)
    return (x - mean.reshape(shape)) * scale.reshape(shape) + beta.reshape(shape)


@functools.cache
def oracle_kernels() -> dict[str, Callable]:
    """Per op-table entry name: the forward the op-table oracle runs instead of the entry's own,
    so that torch autograd follows Burn's rule at the table's points. ``max``/``min`` need none:
    their entries take the element the method chose, so torch autograd already follows Burn.
    ``qr``'s runs ``torch.linalg.qr`` (its own kernel has no torch derivative) and
    ``batch_norm_stats``' Burn's formula (torch's kernel gives the statistics no gradient).
    Built once (callers must not change the dict)."""
    kernels: dict[str, Callable] = {"leaky_relu": _leaky_forward, "qr": _qr_forward,
                                    "batch_norm_stats": _batch_norm_stats_forward}
    for family in ("scatter", "select_assign", "scatter_nd"):
        for kind in ("max", "min", "mul"):
            kernels[f"{family}_{kind}"] = _update_forward(kind)
    return kernels
