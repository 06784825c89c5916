"""The op-table oracle: burn_torch gradients against torch autograd over the same kernels, and
against finite differences.

Both checks run the function under Burn semantics
([`burn_torch.testing.runs`][burn_torch.testing.runs]: the loss, the backward pass, both
checkpointing strategies).
[`assert_grads_match_torch`][burn_torch.testing.grads.assert_grads_match_torch] replays the same
function in torch-oracle mode; it checks the op table's *backward rules* against its own forward
kernels, cheaply and for any burn_torch code, but a wrong forward kernel, wrong Burn semantics or a
wrong composite pass it: [`assert_matches_torch`][burn_torch.testing.reference.assert_matches_torch]
(the independent reference) catches those.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Callable, Iterator, Sequence

import torch

from ..autodiff.strategy import GradientCheckpointingStrategy as Strategy
from ..tensor import Tensor
from .inputs import Input, argument_names, oracle_copies, outputs_of, prepare_all, widened
from .localise import first_disagreeing_step
from .numeric import (EPS, FiniteDifferences, directional_mismatch, jacobian_mismatch,
                      partial_derivatives)
from .oracle import torch_oracle_mode
from .report import difference, gradient_difference, truth_difference
from .runs import BOTH, LOSSES, Failures, burn_run, burn_runs
from .threads import one_thread_when_small

__all__ = ["GradCheck", "assert_grads_match_torch", "check_grads_numerically", "LOSSES",
           "numeric_mismatch", "grad_or_zeros"]

LOW_PRECISION = (torch.float32, torch.float16, torch.bfloat16)


@dataclass
class GradCheck:
    """What a check ran: the Burn run's outputs and, per argument, its gradient (None for
    constants and for leaves the loss does not reach); ``notes``: checks skipped and why."""

    outputs: list[Tensor]
    grads: list[Tensor | None]
    notes: list[str] = field(default_factory=list)


def grad_or_zeros(g, leaf: Input) -> torch.Tensor:
    """A gradient as a torch tensor, zeros of the leaf's shape and dtype for an absent one."""
    if g is None:
        return torch.zeros_like(leaf.storage)
    return g.to_torch() if isinstance(g, Tensor) else g


def _oracle_run(fn: Callable, inputs: list[Input], weights, burn_rules: bool = True):
    """Runs ``fn`` in torch-oracle mode; returns (outputs, per-argument torch gradients)."""
    args = oracle_copies(inputs)
    with torch_oracle_mode(burn_rules):
        outs = outputs_of(fn(*args))
    root = None
    for o, w in zip(outs, weights):
        d = o.to_torch()
        if w is None or not d.requires_grad:
            continue
        term = (d * w.to(d.dtype)).sum()
        root = term if root is None else root + term
    leaves = [a.to_torch() for a, inp in zip(args, inputs) if inp.leaf]
    found: Iterator[torch.Tensor | None]
    if root is None or not leaves:
        found = iter([None] * len(leaves))
    else:
        found = iter(torch.autograd.grad(root, leaves, allow_unused=True))
    return outs, [next(found) if inp.leaf else None for inp in inputs]


def _floats(inputs: list[Input]) -> list[torch.dtype]:
    return [inp.storage.dtype for inp in inputs if inp.storage.is_floating_point()]


def is_low_precision(inputs: list[Input]) -> bool:
    """Whether some float argument is float32, float16 or bfloat16."""
    return any(d in LOW_PRECISION for d in _floats(inputs))


def numeric_mismatch(fn: Callable, inputs: list[Input], base, loss: str, seed: int,
                     fd: FiniteDifferences, names: Sequence[str], notes: list[str],
                     failures: Failures, jacobian: bool = False) -> str | None:
    """The directional finite-difference check, always in float64: ``base`` (the Burn run) is
    reused when every float argument and output is float64; otherwise ``fn`` runs once more on
    float64 copies of the arguments and that run's gradients are checked. Skipped (with a note)
    when an output of the float64 run is not float64 (the function rounds through a lower
    precision). ``jacobian``: the full-Jacobian check
    ([`jacobian_mismatch`][burn_torch.testing.numeric.jacobian_mismatch]) instead of the directional
    one."""
    if is_low_precision(inputs) or any(o.to_torch().dtype in LOW_PRECISION for o in base.outputs):
        inputs = widened(inputs)
        base = burn_run(fn, inputs, loss, seed, failures, names)
    if any(o.to_torch().dtype in LOW_PRECISION for o in base.outputs):
        notes.append("finite differences skipped: an output is not float64 on float64 inputs")
        return None
    if jacobian:
        return jacobian_mismatch(fn, inputs, fd, names)
    return directional_mismatch(fn, inputs, base.weights, base.grads, seed, fd, names, notes)


@one_thread_when_small
def assert_grads_match_torch(fn: Callable, *inputs, rtol: float | None = None,
                             atol: float | None = None, loss: str = "weighted",
                             seed: int = 0, numeric: bool = True,
                             strategies: Sequence[Strategy] = BOTH, burn_rules: bool = True,
                             fd: FiniteDifferences | None = None, slack: float = 2.0,
                             names: Sequence[str] | None = None, jacobian: bool = False) -> GradCheck:
    """The op-table oracle: asserts ``fn``'s outputs and every leaf argument's gradient equal
    torch autograd's over the same kernels, and (``numeric``) finite differences along a random
    direction.

    ``fn`` is written once against the burn_torch Tensor API and returns a Tensor or a tuple of
    Tensors. It runs under Burn semantics once per checkpointing strategy in ``strategies``
    (DISABLED and BALANCED by default; their outputs and gradients must be bit-equal; ``()``
    runs the arguments as given) and once in torch-oracle mode
    ([`torch_oracle_mode`][burn_torch.testing.oracle.torch_oracle_mode], with the twins of Burn's
    table where ``burn_rules``), with ``torch.autograd.grad`` of the same loss as the reference. A
    gradient one side does not produce is reported "missing" unless the other side's is all zeros.
    Tolerances default by dtype (``report.DEFAULT_TOLERANCES``). For float32, float16 and bfloat16
    arguments the oracle also runs on float64 copies: a value outside the tolerances passes when
    burn_torch is at most ``slack`` times as far from that float64 truth as torch (2 by default: in
    float16/bfloat16 two correct kernels' rounding errors differ by that much; 1 asks for "at least
    as close" strictly).

    Also asserts: output storages carry no torch graph, tracked outputs have an autodiff
    association, intermediates do not retain gradients, gradients carry no autodiff
    association, constants get no gradient, and the Gradients container holds only gradients
    of ``require_grad()`` leaves.

    ``numeric=True`` also checks the gradients against the loss itself, in float64 whatever the
    arguments' dtype ([`numeric_mismatch`][burn_torch.testing.grads.numeric_mismatch]; settings
    ``fd``, a [`FiniteDifferences`][burn_torch.testing.numeric.FiniteDifferences]: step 1e-6
    relative to ``max(1, |x|)``, rtol 1e-6, atol 1e-8 plus the loss's rounding error). At non-smooth
    points (ties, kinks, jumps: the one-sided differences disagree) the check is inconclusive and a
    note says so (``GradCheck.notes``). Pass ``numeric=False`` in functions that cut the graph on
    purpose (``detach``...) and where Burn's rule is not a derivative (rows of Burn's table with
    ``numeric=False``: scatter ties, MUL with repeated indices). ``jacobian=True`` replaces the
    directional difference by the full Jacobian, entry by entry (as ``torch.autograd.gradcheck``;
    one backward per output element and two runs per input element: small inputs only).

    Reports name arguments by ``fn``'s parameter names (or ``names``) and, when a gradient
    differs, the first recorded op whose rule disagrees with torch autograd of its own kernel
    ([`burn_torch.testing.localise`][burn_torch.testing.localise]). Returns a
    [`GradCheck`][burn_torch.testing.grads.GradCheck]. Raises AssertionError listing every mismatch;
    ValueError for an unknown ``loss`` or a tracked intermediate argument.
    """
    __tracebackhide__ = True  # pytest shows the caller's line, not the kit's
    prepared = prepare_all(inputs)
    labels = argument_names(fn, len(prepared), names)
    failures = Failures(f"burn_torch disagrees with the op-table oracle (torch autograd over the "
                        f"same kernels) or finite differences (loss={loss!r}, seed={seed}):",
                        prepared, labels)
    run = burn_runs(fn, prepared, loss, seed, failures, labels, strategies)
    ref_outs, ref_grads = _oracle_run(fn, prepared, run.weights, burn_rules)
    truth = None
    if is_low_precision(prepared):
        wide = widened(prepared)
        truth = _oracle_run(fn, wide, [None if w is None else w.double() for w in run.weights],
                            burn_rules)
    if len(ref_outs) != len(run.outputs):
        failures.check(f"{len(run.outputs)} outputs, {len(ref_outs)} in torch-oracle mode")
    grad_failed = False
    for i, (o, r) in enumerate(zip(run.outputs, ref_outs)):
        t = truth[0][i].to_torch() if truth is not None and i < len(truth[0]) else None
        failures.check(_compare(f"output {i}", o.to_torch(), r.to_torch().detach(), t, rtol, atol, slack))
        if o.is_tracked() and not r.to_torch().requires_grad:
            failures.check(f"output {i}: tracked by burn_torch but without a torch graph in oracle "
                           "mode (a kernel ran with torch autograd off outside the recorder?)")
    for i, (inp, g, ref) in enumerate(zip(prepared, run.grads, ref_grads)):
        if inp.leaf:
            t = None if truth is None else grad_or_zeros(truth[1][i], inp).double()
            line = gradient_difference(f"gradient of {labels[i]}", g, ref, inp.storage, t, rtol,
                                       atol, slack)
            grad_failed |= line is not None
            failures.check(line)
    notes: list[str] = []
    if numeric:
        failures.check(numeric_mismatch(fn, prepared, run, loss, seed, fd or FiniteDifferences(),
                                        labels, notes, failures, jacobian))
    failures.raise_if_any(
        lambda: first_disagreeing_step(fn, prepared, run.weights, burn_rules) if grad_failed else None)
    return GradCheck(run.outputs, run.grads, notes)


def _compare(what, got, ref, truth, rtol, atol, slack) -> str | None:
    """[`difference`][burn_torch.testing.report.difference] for float64 (no truth),
    [`truth_difference`][burn_torch.testing.report.truth_difference] when a truth is given and the
    plain comparison fails."""
    line = difference(what, got, ref, rtol, atol, "torch")
    if line is None or truth is None or not got.is_floating_point():
        return line
    return truth_difference(what, got, ref, truth.to(torch.float64), rtol, atol, slack)


@one_thread_when_small
def check_grads_numerically(fn: Callable, *inputs, eps: float = EPS, rtol: float = 1e-5,
                            atol: float = 1e-7, loss: str = "weighted", seed: int = 0,
                            names: Sequence[str] | None = None) -> GradCheck:
    """Asserts every leaf argument's burn_torch gradient equals float64 central finite
    differences ``(L(x + eps) - L(x - eps)) / (2 eps)`` of the same loss (module docstring),
    element by element
    ([`burn_torch.testing.numeric.partial_derivatives`][burn_torch.testing.numeric.partial_derivatives]).

    Float arguments (and given leaves' values) are converted to float64. The loss for the
    differences sums every Float output, tracked or not (a non-differentiable Float op is
    locally constant). Costs two runs of ``fn`` per leaf element: keep inputs small. Returns a
    [`GradCheck`][burn_torch.testing.grads.GradCheck]; raises AssertionError with the per-leaf
    report as [`assert_grads_match_torch`][burn_torch.testing.grads.assert_grads_match_torch] does.
    """
    __tracebackhide__ = True  # pytest shows the caller's line, not the kit's
    prepared = prepare_all(inputs, float64=True)
    labels = argument_names(fn, len(prepared), names)
    failures = Failures(f"burn_torch gradients disagree with finite differences (eps={eps:g}, "
                        f"loss={loss!r}, seed={seed}):", prepared, labels)
    run = burn_run(fn, prepared, loss, seed, failures, labels)
    done: dict[int, torch.Tensor] = {}
    for i, (inp, g) in enumerate(zip(prepared, run.grads)):
        if not inp.leaf:
            continue
        key = id(inp.tensor)
        if key not in done:
            done[key] = partial_derivatives(fn, prepared, run.weights, inp, eps)
        failures.check(difference(f"gradient of {labels[i]}", grad_or_zeros(g, inp), done[key],
                                  rtol, atol, "numeric"))
    failures.raise_if_any()
    return GradCheck(run.outputs, run.grads)
