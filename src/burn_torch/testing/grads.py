"""Checking burn_torch gradients: against torch autograd (oracle mode) and finite differences.

Both checks run the function once under Burn semantics: the loss is built from the function's
Float outputs (``"weighted"``: ``sum_i (out_i * W_i).sum()`` with standard-normal weights drawn
from ``numpy.random.default_rng(seed)`` in output order; ``"sum"``: ``sum_i out_i.sum()``;
``"direct"``: the single Float output itself, whose seed is ones), then ``loss.backward()`` and
``leaf.grad(grads)`` for every leaf argument (see :mod:`burn_torch.testing.inputs`). The finite
differences of that loss are in :mod:`burn_torch.testing.numeric`.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Callable, Sequence

import numpy as np
import torch

from ..autodiff.gradients import Gradients
from ..autodiff.graph import GRAD
from ..autodiff.recorder import wrap
from ..tensor import Tensor
from .inputs import Input, oracle_copies, outputs_of, prepare_all
from .numeric import EPS, directional_mismatch, partial_derivatives
from .oracle import torch_oracle_mode
from .report import difference

LOSSES = ("weighted", "sum", "direct")


@dataclass
class GradCheck:
    """What a check ran: the Burn run's outputs and, per argument, its gradient (None for
    constants and for leaves the loss does not reach)."""

    outputs: list[Tensor]
    grads: list[Tensor | None]


class _Failures:
    """Collects mismatches; :meth:`raise_if_any` raises them as one AssertionError."""

    def __init__(self, title: str) -> None:
        self.title = title
        self.lines: list[str] = []

    def check(self, line: str | None) -> None:
        if line is not None:
            self.lines.append(line)

    def raise_if_any(self) -> None:
        if self.lines:
            raise AssertionError("\n  ".join([self.title] + self.lines))


def _weights(outs: Sequence[Tensor], loss: str, seed: int) -> list[torch.Tensor | None]:
    """Per output: the loss weight (None for non-Float outputs)."""
    if loss not in LOSSES:
        raise ValueError(f"loss must be one of {LOSSES}, got {loss!r}")
    rng = np.random.default_rng(seed)
    ws = []
    for o in outs:
        d = o.to_torch()
        if not d.is_floating_point():
            ws.append(None)
        elif loss == "weighted":
            ws.append(torch.from_numpy(rng.standard_normal(tuple(d.shape))).to(d.dtype).to(d.device))
        else:
            ws.append(torch.ones_like(d))
    floats = sum(w is not None for w in ws)
    if loss == "direct" and floats != 1:
        raise ValueError(f"loss='direct' needs exactly one Float output, got {floats}")
    return ws


def _burn_run(fn: Callable, inputs: list[Input], loss: str, seed: int, failures: _Failures):
    """Runs ``fn`` under Burn semantics (torch autograd enabled, to show burn_torch does not need
    it off); returns (outputs, weights, per-argument gradients)."""
    with torch.enable_grad():
        outs = outputs_of(fn(*(inp.tensor for inp in inputs)))
    ws = _weights(outs, loss, seed)
    root = None
    for i, (o, w) in enumerate(zip(outs, ws)):
        data = o.to_torch()
        if data.requires_grad or data.grad_fn is not None:
            failures.check(f"output {i}: its storage carries a torch autograd graph")
        if o.is_tracked() and not o.is_autodiff():
            failures.check(f"output {i}: tracked without an autodiff association")
        if o.is_require_grad() and not o._node.is_leaf():
            failures.check(f"output {i}: an intermediate that retains its gradient")
        if w is None or not o.is_tracked():
            continue
        term = o if loss == "direct" else (o * wrap(w, None)).sum()
        root = term if root is None else root + term
    leaves = _leaf_ids(root)
    grads = root.backward() if root is not None else Gradients()
    per_input = []
    for i, inp in enumerate(inputs):
        g = inp.tensor.grad(grads)
        if not inp.leaf:
            if g is not None:
                failures.check(f"input {i}: a constant got a gradient")
            per_input.append(None)
            continue
        if g is not None and g.is_autodiff():
            failures.check(f"input {i}: its gradient carries an autodiff association")
        per_input.append(g)
    strays = set(grads._grads) - leaves
    if strays:
        failures.check(f"the Gradients container holds {len(strays)} gradients of tensors that are "
                       "not require_grad() leaves of the loss's graph")
    return outs, ws, per_input


def _leaf_ids(root: Tensor | None) -> set[int]:
    """The node ids of the ``require_grad()`` leaves in ``root``'s graph (before backward)."""
    if root is None:
        return set()
    seen, stack, leaves = set(), [root._node], set()
    while stack:
        node = stack.pop()
        if node is None or node.id in seen:
            continue
        seen.add(node.id)
        if node.requirement == GRAD:
            leaves.add(node.id)
        stack.extend(node.parents or ())
    return leaves


def _grad_or_zeros(g, leaf: Input) -> torch.Tensor:
    if g is None:
        return torch.zeros_like(leaf.storage)
    return g.to_torch() if isinstance(g, Tensor) else g


def _oracle_run(fn: Callable, inputs: list[Input], weights, loss: str):
    """Runs ``fn`` in torch-oracle mode; returns (outputs, per-argument torch gradients)."""
    args = oracle_copies(inputs)
    with torch_oracle_mode():
        outs = outputs_of(fn(*args))
    root = None
    for o, w in zip(outs, weights):
        d = o.to_torch()
        if w is None or not d.requires_grad:
            continue
        term = (d * w).sum()
        root = term if root is None else root + term
    leaves = [a.to_torch() for a, inp in zip(args, inputs) if inp.leaf]
    if root is None or not leaves:
        found = iter([None] * len(leaves))
    else:
        found = iter(torch.autograd.grad(root, leaves, allow_unused=True))
    return outs, [next(found) if inp.leaf else None for inp in inputs]


def _all_float64(inputs: list[Input], outs: Sequence[Tensor]) -> bool:
    """Whether every float argument and every Float output is float64."""
    datas = [inp.storage for inp in inputs] + [o.to_torch() for o in outs]
    return all(d.dtype is torch.float64 for d in datas if d.is_floating_point())


def assert_grads_match_torch(fn: Callable, *inputs, rtol: float | None = None,
                             atol: float | None = None, loss: str = "weighted",
                             seed: int = 0, numeric: bool = True) -> GradCheck:
    """Asserts ``fn``'s outputs and every leaf argument's gradient equal torch autograd's, and
    (``numeric``) finite differences along a random direction.

    ``fn`` is written once against the burn_torch Tensor API and returns a Tensor or a tuple of
    Tensors. It runs under Burn semantics (module docstring) and once in torch-oracle mode
    (:func:`~burn_torch.testing.oracle.torch_oracle_mode`), on leaves whose storages are
    ``requires_grad=True`` copies, with ``torch.autograd.grad`` of the same loss on the output
    storages as the reference. A gradient Burn does not produce (unreached leaf) counts as zeros,
    as does one torch does not. Tolerances default by dtype (``report.DEFAULT_TOLERANCES``).

    Also asserts: output storages carry no torch graph, tracked outputs have an autodiff
    association, intermediates do not retain gradients, gradients carry no autodiff
    association, constants get no gradient, and the Gradients container holds only gradients
    of ``require_grad()`` leaves.

    ``numeric=True`` (the default) also checks the gradients against the loss itself,
    independently of torch's derivatives: with a standard-normal direction ``v`` per leaf
    (seeded by ``seed``, independent of the loss weights), ``sum_i <grad_i, v_i>`` from
    burn_torch's gradients must equal the float64 central difference
    ``(L(x + eps v) - L(x - eps v)) / (2 eps)``, ``eps = 1e-6``, within ``1e-6`` of
    ``sum_i |grad_i * v_i|`` plus ``1e-8`` (constants in :mod:`burn_torch.testing.numeric`). It
    costs two runs of ``fn`` on untracked copies of the leaves (nothing recorded). It is skipped
    when some float argument or Float output is not float64 (finite differences need float64),
    when there is no leaf, and when the loss is not finite near x. Pass ``numeric=False`` where
    the derivative of the loss is not the gradient Burn defines on purpose: at non-smooth points
    hit deliberately (ties of max/min/sort/median, relu/abs/clamp kinks at exactly 0 or at the
    bounds, jumps of floor/round/sign), in functions that cut the graph (``detach``,
    ``without_autodiff``, ``set_require_grad(False)``) or round through a lower precision.

    Returns a :class:`GradCheck`. Raises AssertionError listing every mismatch (per output and
    per leaf: worst absolute and relative difference and where; for finite differences: the
    leaves perturbed, both directional derivatives, and which leaves disagree on their own part
    of ``v``); ValueError for an unknown ``loss`` or a tracked intermediate argument.
    """
    prepared = prepare_all(inputs)
    failures = _Failures(f"burn_torch disagrees with torch autograd or finite differences "
                         f"(loss={loss!r}, seed={seed}):")
    outs, weights, grads = _burn_run(fn, prepared, loss, seed, failures)
    ref_outs, ref_grads = _oracle_run(fn, prepared, weights, loss)
    if len(ref_outs) != len(outs):
        failures.check(f"{len(outs)} outputs, {len(ref_outs)} in torch-oracle mode")
    for i, (o, r) in enumerate(zip(outs, ref_outs)):
        failures.check(difference(f"output {i}", o.to_torch(), r.to_torch(), rtol, atol, "torch"))
        if o.is_tracked() and not r.to_torch().requires_grad:
            failures.check(f"output {i}: tracked by burn_torch but without a torch graph in oracle "
                           "mode (a kernel ran with torch autograd off outside the recorder?)")
    for i, (inp, g, ref) in enumerate(zip(prepared, grads, ref_grads)):
        if inp.leaf:
            failures.check(difference(f"gradient of input {i}", _grad_or_zeros(g, inp),
                                      _grad_or_zeros(ref, inp), rtol, atol, "torch"))
    if numeric and _all_float64(prepared, outs):
        failures.check(directional_mismatch(fn, prepared, weights, grads, seed))
    failures.raise_if_any()
    return GradCheck(outs, grads)


def check_grads_numerically(fn: Callable, *inputs, eps: float = EPS, rtol: float = 1e-5,
                            atol: float = 1e-7, loss: str = "weighted", seed: int = 0) -> GradCheck:
    """Asserts every leaf argument's burn_torch gradient equals float64 central finite
    differences ``(L(x + eps) - L(x - eps)) / (2 eps)`` of the same loss (module docstring),
    element by element (:func:`burn_torch.testing.numeric.partial_derivatives`).

    Float arguments (and given leaves' values) are converted to float64. The loss for the
    differences sums every Float output, tracked or not (a non-differentiable Float op is
    locally constant). Costs two runs of ``fn`` per leaf element: keep inputs small. Returns a
    :class:`GradCheck`; raises AssertionError with the per-leaf report as
    :func:`assert_grads_match_torch` does.
    """
    prepared = prepare_all(inputs, float64=True)
    failures = _Failures(f"burn_torch gradients disagree with finite differences (eps={eps:g}, "
                         f"loss={loss!r}, seed={seed}):")
    outs, weights, grads = _burn_run(fn, prepared, loss, seed, failures)
    done: dict[int, torch.Tensor] = {}
    for i, (inp, g) in enumerate(zip(prepared, grads)):
        if not inp.leaf:
            continue
        key = id(inp.tensor)
        if key not in done:
            done[key] = partial_derivatives(fn, prepared, weights, inp, eps)
        failures.check(difference(f"gradient of input {i}", _grad_or_zeros(g, inp), done[key],
                                  rtol, atol, "numeric"))
    failures.raise_if_any()
    return GradCheck(outs, grads)
