"""Finite differences of a checked loss: float64 central differences along a direction.

The loss ``L`` is the one the Burn run differentiates (see
[`burn_torch.testing.grads`][burn_torch.testing.grads]): ``sum_i (out_i * W_i).sum()`` over the
Float outputs, summed in float64. Here it is evaluated on untracked copies of the leaves (nothing is
recorded), over every Float output, tracked or not (a non-differentiable Float op is locally
constant). A direction maps ``id(leaf tensor)`` to a step of the leaf's shape; leaves it does not
name stay where they are.

Steps are relative for large magnitudes: the random direction's entry for ``x_j`` is scaled by
``max(1, |x_j|)``, so ``x + 1e6`` is differenced with a step that still changes it. The
tolerance adds the rounding error of the two loss evaluations,
``16 * 2**-52 * (|L|(x+h v) + |L|(x-h v)) / (2h)`` (``|L|``: the sum of ``|out * W|``), to
``rtol * sum|grad * v| + atol``. Where the central difference disagrees, it is retried with
steps 10 and 100 times smaller (a kink or strong curvature closer to x than the step); then the
one-sided differences ``(L(x+hv) - L(x)) / h`` and ``(L(x) - L(x-hv)) / h`` tell a wrong
gradient from a non-smooth point: when they disagree by a gap that does not shrink with the
step (halving ``h`` keeps it), the point is a kink, a tie or a jump, where no finite difference
defines Burn's gradient: it is reported as a non-smooth point (a note), not as a wrong gradient.
"""
from __future__ import annotations

import functools
import math
from dataclasses import dataclass
from typing import Callable, Sequence

import numpy as np
import torch

from ..autodiff.recorder import wrap
from .inputs import Input, outputs_of, untracked_copies
from .report import index_of

Direction = dict[int, torch.Tensor]
Weights = Sequence[torch.Tensor | None]  # per output: its loss weight, None for non-Float outputs

# The directional check: step size, and tolerance |burn - numeric| <= RTOL * scale + ATOL.
EPS = 1e-6
RTOL = 1e-6
ATOL = 1e-8
_ROUNDOFF = 16 * 2.0 ** -52


@dataclass(frozen=True)
class FiniteDifferences:
    """The finite-difference settings: ``step`` (``h``), ``rtol`` and ``atol`` of the
    directional check, ``relative``: scale the direction by ``max(1, |x|)``."""

    step: float = EPS
    rtol: float = RTOL
    atol: float = ATOL
    relative: bool = True


def loss_value(fn: Callable, inputs: list[Input], weights: Weights,
               values: dict[int, torch.Tensor]) -> tuple[float, float]:
    """``(L, |L|)`` with each leaf's values replaced by ``values[id(leaf tensor)]`` where given;
    ``|L|`` is ``sum |out * W|``, the scale of its rounding error."""
    outs = outputs_of(fn(*untracked_copies(inputs, values)))
    total, magnitude = 0.0, 0.0
    for o, w in zip(outs, weights):
        if w is not None:
            prod = o.to_torch().double() * w.double()
            total += float(prod.sum())
            magnitude += float(prod.abs().nan_to_num(nan=0.0).sum())
    return total, magnitude


def _shifted(inputs: list[Input], direction: Direction, h: float) -> dict[int, torch.Tensor]:
    bases = {id(inp.tensor): inp.storage for inp in inputs if inp.leaf}
    return {k: bases[k] + h * v for k, v in direction.items()}


def central_difference(fn: Callable, inputs: list[Input], weights: Weights, direction: Direction,
                       eps: float = EPS) -> float:
    """``(L(x + eps v) - L(x - eps v)) / (2 eps)`` for the direction ``v``: two runs of ``fn``."""
    return _central(fn, inputs, weights, direction, eps)[0]


def _central(fn, inputs, weights, direction, eps) -> tuple[float, float]:
    """The central difference and its rounding error bound."""
    up, mag_up = loss_value(fn, inputs, weights, _shifted(inputs, direction, eps))
    down, mag_down = loss_value(fn, inputs, weights, _shifted(inputs, direction, -eps))
    return (up - down) / (2 * eps), _ROUNDOFF * (mag_up + mag_down) / (2 * eps)


def one_sided(fn: Callable, inputs: list[Input], weights: Weights, direction: Direction,
              eps: float = EPS) -> tuple[float, float]:
    """``((L(x+hv) - L(x)) / h, (L(x) - L(x-hv)) / h)``: the forward and backward differences."""
    here = loss_value(fn, inputs, weights, {})[0]
    up = loss_value(fn, inputs, weights, _shifted(inputs, direction, eps))[0]
    down = loss_value(fn, inputs, weights, _shifted(inputs, direction, -eps))[0]
    return (up - here) / eps, (here - down) / eps


def partial_derivatives(fn: Callable, inputs: list[Input], weights: Weights, leaf: Input,
                        eps: float = EPS) -> torch.Tensor:
    """Every ``dL/dx_j`` of ``leaf``: the central difference along each unit vector (two runs of
    ``fn`` per element)."""
    grad = torch.zeros_like(leaf.storage, memory_format=torch.contiguous_format)
    unit = torch.zeros_like(leaf.storage, memory_format=torch.contiguous_format)
    for j in range(unit.numel()):
        unit.view(-1)[j] = 1.0
        grad.view(-1)[j] = central_difference(fn, inputs, weights, {id(leaf.tensor): unit}, eps)
        unit.view(-1)[j] = 0.0
    return grad


def random_direction(inputs: list[Input], seed: int, relative: bool = False) -> Direction:
    """A standard-normal step per distinct leaf, from ``numpy.random.default_rng([seed, 1])``
    (independent of the loss weights, which use ``default_rng(seed)``); ``relative``: each entry
    scaled by ``max(1, |x|)``."""
    direction: Direction = {}
    leaves = []
    for inp in inputs:
        key = id(inp.tensor)
        if inp.leaf and key not in direction:
            direction[key] = None  # type: ignore[assignment]  # a placeholder, filled below
            leaves.append((key, inp.storage))
    steps = _normal_steps(seed, tuple((tuple(b.shape), b.dtype) for _, b in leaves))
    for (key, base), v in zip(leaves, steps):
        v = v.to(base.device)
        if relative:
            v = v * base.abs().nan_to_num(nan=1.0, posinf=1.0).clamp_min(1.0)
        direction[key] = v
    return direction


@functools.lru_cache(maxsize=256)
def _normal_steps(seed: int, specs: tuple) -> tuple:
    """Standard-normal tensors of the given ``(shape, dtype)``s from ``default_rng([seed, 1])``
    (cached; never written to)."""
    rng = np.random.default_rng([seed, 1])
    return tuple(torch.from_numpy(rng.standard_normal(shape)).to(dtype) for shape, dtype in specs)


def _directional_derivative(inputs: list[Input], grads, direction: Direction) -> tuple[float, float]:
    """``sum <grad, v>`` over the leaves in ``direction`` (an absent gradient counts as zeros),
    and its scale ``sum |grad * v|``."""
    value, scale, seen = 0.0, 0.0, set()
    for inp, g in zip(inputs, grads):
        key = id(inp.tensor)
        if key not in direction or key in seen or g is None:
            continue
        seen.add(key)
        prod = g.to_torch().double() * direction[key].double()
        value += float(prod.sum())
        scale += float(prod.abs().sum())
    return value, scale


@dataclass(frozen=True)
class _Found:
    burn: float
    numeric: float
    diff: float
    tol: float
    kink: tuple[float, float] | None  # the one-sided differences at a non-smooth point


def _compare(fn, inputs, weights, grads, direction, fd: FiniteDifferences) -> _Found | None:
    """None when the burn and numeric directional derivatives agree, when the loss is not
    finite near x (no derivative to compare), or at a non-smooth point where burn's lies between
    the one-sided differences; otherwise what disagrees."""
    numeric, roundoff = _central(fn, inputs, weights, direction, fd.step)
    if not math.isfinite(numeric):
        return None
    burn, scale = _directional_derivative(inputs, grads, direction)
    tol = fd.rtol * max(scale, abs(numeric)) + fd.atol + roundoff
    diff = abs(burn - numeric)
    if diff <= tol:
        return None
    for shrink in (10.0, 100.0):  # a kink or a curvature closer than the step: smaller steps agree
        smaller, small_roundoff = _central(fn, inputs, weights, direction, fd.step / shrink)
        if abs(burn - smaller) <= fd.rtol * max(scale, abs(smaller)) + fd.atol + small_roundoff:
            return None
    fwd, bwd = one_sided(fn, inputs, weights, direction, fd.step)
    kink = (fwd, bwd) if _is_kink(fn, inputs, weights, direction, fd.step, fwd, bwd,
                                  4 * roundoff) else None
    return _Found(burn, numeric, diff, tol, kink)


def _is_kink(fn, inputs, weights, direction, h, fwd, bwd, noise) -> bool:
    """Whether the one-sided differences disagree as at a kink, a tie or a jump: by more than
    the rounding ``noise``, and by a gap that does not shrink with the step (a smooth
    function's gap ``h v'Hv`` halves with ``h``; two more runs of ``fn``)."""
    gap = abs(fwd - bwd)
    if not (math.isfinite(gap) and gap > noise):
        return False
    fwd2, bwd2 = one_sided(fn, inputs, weights, direction, h / 2)
    return abs(fwd2 - bwd2) > 0.75 * gap


def _names(inputs: list[Input], keys, names: Sequence[str] | None = None) -> str:
    """The names of the leaf arguments whose tensors' ids are in ``keys``."""
    idx = [i for i, inp in enumerate(inputs) if inp.leaf and id(inp.tensor) in keys]
    if names is not None:
        return ", ".join(names[i] for i in idx)
    return ("input " if len(idx) == 1 else "inputs ") + ", ".join(map(str, idx))


def _describe(found: _Found) -> str:
    return f"burn {found.burn:.10g}, numeric {found.numeric:.10g}"


def directional_mismatch(fn: Callable, inputs: list[Input], weights: Weights, grads, seed: int,
                         eps: float | FiniteDifferences = EPS,
                         names: Sequence[str] | None = None,
                         notes: list[str] | None = None) -> str | None:
    """Compares ``sum <grad_i, v_i>`` (``grads``: burn_torch's gradient per argument, None where
    absent) with the central difference of ``L`` along a random direction ``v`` of all leaves
    ([`random_direction`][burn_torch.testing.numeric.random_direction]): two runs of ``fn`` when
    they agree. Returns None when they agree, when there is no leaf, or when the loss is not finite
    near x; at a non-smooth point (the one-sided differences disagree, see the module docstring) the
    comparison is inconclusive: None, and a line saying so is appended to ``notes``. Otherwise one
    line with both numbers, naming the leaves that disagree on their own part of ``v`` (more runs,
    only on failure). ``eps``: a step, or the full
    [`FiniteDifferences`][burn_torch.testing.numeric.FiniteDifferences] settings (a plain step keeps
    the absolute direction)."""
    fd = eps if isinstance(eps, FiniteDifferences) else FiniteDifferences(step=eps, relative=False)
    direction = random_direction(inputs, seed, fd.relative)
    if not direction:
        return None
    found = _compare(fn, inputs, weights, grads, direction, fd)
    if found is None:
        return None
    step = f"eps={fd.step:g}" + (", relative" if fd.relative else "")
    where = f"finite differences along a random direction v ({step}) of {_names(inputs, direction, names)}"
    if found.kink is not None:
        fwd, bwd = found.kink
        if notes is not None:
            notes.append(f"non-smooth point: {where}: one-sided differences {fwd:.10g} (forward) "
                         f"and {bwd:.10g} (backward) disagree, burn {found.burn:.10g}; not "
                         f"compared (a kink, tie or jump: the oracle and the reference judge it)")
        return None
    line = (f"{where}: burn sum<grad, v> = {found.burn:.10g}, numeric "
            f"(L(x+eps v) - L(x-eps v))/(2 eps) = {found.numeric:.10g} (diff {found.diff:.3g} "
            f"> tolerance {found.tol:.3g})")
    if len(direction) > 1:
        alone = []
        for key, v in direction.items():
            own = _compare(fn, inputs, weights, grads, {key: v}, fd)
            if own is not None and own.kink is None:
                alone.append(f"{_names(inputs, {key}, names)} ({_describe(own)})")
        if alone:
            line += "; along its own part of v: " + "; ".join(alone)
    return line


def jacobian_mismatch(fn: Callable, inputs: list[Input], fd: FiniteDifferences | None = None,
                      names: Sequence[str] | None = None) -> str | None:
    """The full-Jacobian check (as ``torch.autograd.gradcheck``), on float64 ``inputs``: every
    entry ``d out_k[i] / d x[j]`` of burn_torch's Jacobian (one backward per output element)
    against the float64 central difference along ``x[j]`` (two runs of ``fn`` per input element,
    the step relative to ``max(1, |x_j|)`` when ``fd.relative``). Returns None when every entry
    is within ``fd.rtol * |numeric| + fd.atol`` plus the rounding error of the difference (or
    not finite), otherwise one line with the count and the worst entry (output, its index, the
    argument, its index, both values)."""
    fd = fd or FiniteDifferences()
    base = outputs_of(fn(*untracked_copies(inputs, {})))
    floats = [k for k, o in enumerate(base) if o.to_torch().is_floating_point()]
    leaves, seen = [], set()
    for i, inp in enumerate(inputs):
        if inp.leaf and id(inp.tensor) not in seen:
            seen.add(id(inp.tensor))
            leaves.append((i, inp))
    numeric = {i: _numeric_jacobian(fn, inputs, inp, floats, fd) for i, inp in leaves}
    worst, bad = None, 0
    for k in floats:
        out_shape = base[k].to_torch().shape
        for flat in range(base[k].to_torch().numel()):
            outs = outputs_of(fn(*(inp.tensor for inp in inputs)))
            if not outs[k].is_tracked():
                continue
            onehot = torch.zeros(out_shape, dtype=outs[k].to_torch().dtype)
            onehot.view(-1)[flat] = 1.0
            grads = (outs[k] * wrap(onehot, None)).sum().backward()
            for i, inp in leaves:
                g = inp.tensor.grad(grads)
                row = torch.zeros(inp.storage.numel(), dtype=torch.float64) if g is None \
                    else g.to_torch().double().reshape(-1)
                col, err = numeric[i][k][0][flat], numeric[i][k][1][flat]
                diff = (row - col).abs()
                over = (diff > fd.rtol * col.abs() + fd.atol + err) & col.isfinite()
                bad += int(over.sum())
                if over.any():
                    j = int((diff * over).argmax())
                    if worst is None or diff[j] > worst[0]:
                        worst = (float(diff[j]), k, flat, out_shape, i, j, inp, float(row[j]),
                                 float(col[j]))
    if worst is None:
        return None
    diff, k, flat, out_shape, i, j, inp, b, n = worst
    name = names[i] if names is not None else f"input {i}"
    return (f"full Jacobian: {bad} entries differ from finite differences; worst d output {k}"
            f"{index_of(flat, out_shape)} / d {name}{index_of(j, inp.storage.shape)}: burn "
            f"{b:.10g}, numeric {n:.10g} (diff {diff:.3g})")


def _numeric_jacobian(fn, inputs, leaf: Input, floats: list[int], fd: FiniteDifferences) -> dict:
    """Per Float output ``k``: ``(J, E)``, ``J[i, j] = d out_k[i] / d leaf[j]`` by central
    differences and ``E`` its rounding error bound (two runs of ``fn`` per element of leaf)."""
    x = leaf.storage
    cols: dict[int, list] = {k: [] for k in floats}
    errs: dict[int, list] = {k: [] for k in floats}
    flat_x = x.reshape(-1)
    for j in range(x.numel()):
        step = torch.zeros_like(x, memory_format=torch.contiguous_format)
        h = fd.step * (max(1.0, abs(float(flat_x[j]))) if fd.relative else 1.0)
        step.view(-1)[j] = h
        key = id(leaf.tensor)
        up = outputs_of(fn(*untracked_copies(inputs, {key: x + step})))
        down = outputs_of(fn(*untracked_copies(inputs, {key: x - step})))
        for k in floats:
            u = up[k].to_torch().double().reshape(-1)
            d = down[k].to_torch().double().reshape(-1)
            cols[k].append((u - d) / (2 * h))
            errs[k].append(_ROUNDOFF * (u.abs() + d.abs()) / (2 * h))
    return {k: (torch.stack(cols[k], 1), torch.stack(errs[k], 1)) for k in floats}
