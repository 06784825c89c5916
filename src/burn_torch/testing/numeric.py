"""Finite differences of a checked loss: float64 central differences along a direction.

The loss ``L`` is the one the Burn run differentiates (see :mod:`burn_torch.testing.grads`):
``sum_i (out_i * W_i).sum()`` over the Float outputs, summed in float64. Here it is evaluated on
untracked copies of the leaves (nothing is recorded), over every Float output, tracked or not (a
non-differentiable Float op is locally constant). A direction maps ``id(leaf tensor)`` to a step
of the leaf's shape; leaves it does not name stay where they are.
"""
from __future__ import annotations

import math
from typing import Callable, Sequence

import numpy as np
import torch

from .inputs import Input, outputs_of, untracked_copies

Direction = dict[int, torch.Tensor]
Weights = Sequence[torch.Tensor | None]  # per output: its loss weight, None for non-Float outputs

# The directional check: step size, and tolerance |burn - numeric| <= RTOL * scale + ATOL.
EPS = 1e-6
RTOL = 1e-6
ATOL = 1e-8


def loss_value(fn: Callable, inputs: list[Input], weights: Weights,
               values: dict[int, torch.Tensor]) -> float:
    """``L`` with each leaf's values replaced by ``values[id(leaf tensor)]`` where given."""
    outs = outputs_of(fn(*untracked_copies(inputs, values)))
    total = 0.0
    for o, w in zip(outs, weights):
        if w is not None:
            total += float((o.to_torch().double() * w.double()).sum())
    return total


def central_difference(fn: Callable, inputs: list[Input], weights: Weights, direction: Direction,
                       eps: float = EPS) -> float:
    """``(L(x + eps v) - L(x - eps v)) / (2 eps)`` for the direction ``v``: two runs of ``fn``."""
    bases = {id(inp.tensor): inp.storage for inp in inputs if inp.leaf}
    up = loss_value(fn, inputs, weights, {k: bases[k] + eps * v for k, v in direction.items()})
    down = loss_value(fn, inputs, weights, {k: bases[k] - eps * v for k, v in direction.items()})
    return (up - down) / (2 * eps)


def partial_derivatives(fn: Callable, inputs: list[Input], weights: Weights, leaf: Input,
                        eps: float = EPS) -> torch.Tensor:
    """Every ``dL/dx_j`` of ``leaf``: the central difference along each unit vector (two runs of
    ``fn`` per element)."""
    grad = torch.zeros_like(leaf.storage)
    unit = torch.zeros_like(leaf.storage)
    for j in range(unit.numel()):
        unit.view(-1)[j] = 1.0
        grad.view(-1)[j] = central_difference(fn, inputs, weights, {id(leaf.tensor): unit}, eps)
        unit.view(-1)[j] = 0.0
    return grad


def random_direction(inputs: list[Input], seed: int) -> Direction:
    """A standard-normal step per distinct leaf, from ``numpy.random.default_rng([seed, 1])``
    (independent of the loss weights, which use ``default_rng(seed)``)."""
    rng = np.random.default_rng([seed, 1])
    direction: Direction = {}
    for inp in inputs:
        key = id(inp.tensor)
        if inp.leaf and key not in direction:
            base = inp.storage
            direction[key] = torch.from_numpy(rng.standard_normal(tuple(base.shape))).to(base)
    return direction


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


def _compare(fn, inputs, weights, grads, direction, eps) -> tuple[float, float, float, float] | None:
    """None when the burn and numeric directional derivatives agree (or the loss is not finite
    near x: no derivative to compare); otherwise (burn, numeric, difference, tolerance)."""
    numeric = central_difference(fn, inputs, weights, direction, eps)
    if not math.isfinite(numeric):
        return None
    burn, scale = _directional_derivative(inputs, grads, direction)
    tol = RTOL * max(scale, abs(numeric)) + ATOL
    diff = abs(burn - numeric)
    return None if diff <= tol else (burn, numeric, diff, tol)


def _names(inputs: list[Input], keys) -> str:
    """"input i" or "inputs i, j" for the leaf arguments whose tensors' ids are in ``keys``."""
    idx = [str(i) for i, inp in enumerate(inputs) if inp.leaf and id(inp.tensor) in keys]
    return ("input " if len(idx) == 1 else "inputs ") + ", ".join(idx)


def directional_mismatch(fn: Callable, inputs: list[Input], weights: Weights, grads, seed: int,
                         eps: float = EPS) -> str | None:
    """Compares ``sum <grad_i, v_i>`` (``grads``: burn_torch's gradient per argument, None where
    absent) with the central difference of ``L`` along a random direction ``v`` of all leaves
    (:func:`random_direction`): two runs of ``fn`` when they agree. Returns None when they agree,
    when there is no leaf, or when the loss is not finite near x; otherwise one line with both
    numbers, naming the leaves that disagree on their own part of ``v`` (two more runs per
    leaf, only on failure)."""
    direction = random_direction(inputs, seed)
    if not direction:
        return None
    found = _compare(fn, inputs, weights, grads, direction, eps)
    if found is None:
        return None
    burn, numeric, diff, tol = found
    line = (f"finite differences along a random direction v (eps={eps:g}) of "
            f"{_names(inputs, direction)}: burn sum<grad, v> = {burn:.10g}, numeric "
            f"(L(x+eps v) - L(x-eps v))/(2 eps) = {numeric:.10g} (diff {diff:.3g} > tolerance "
            f"{tol:.3g})")
    if len(direction) > 1:
        alone = []
        for key, v in direction.items():
            own = _compare(fn, inputs, weights, grads, {key: v}, eps)
            if own is not None:
                alone.append(f"{_names(inputs, {key})} (burn {own[0]:.10g}, numeric {own[1]:.10g})")
        if alone:
            line += "; along its own part of v: " + "; ".join(alone)
    return line
