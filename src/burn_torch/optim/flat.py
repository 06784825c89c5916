"""Small parameters updated as one flat tensor, for rules whose step is elementwise.

An optimizer step over many small parameters spends its time per tensor: each multi-tensor
kernel of a rule (nine for Adam) handles every parameter separately, at about a microsecond
each. For a rule whose ``step_fused`` is ``elementwise`` — every entry of its results depends
only on the same entry of the parameter, the gradient and the state's tensors, and on the
state's numbers — [`ModuleOptimizer`][burn_torch.optim.base.ModuleOptimizer] updates the small
parameters (``FLAT_MAX_NUMEL`` entries at most) whose states hold the same numbers as one flat
tensor: the same operations on the same entries, so the same values, bit for bit, with one kernel
call per operation. Their new states stay flat ([`FlatStates`][burn_torch.optim.flat.FlatStates])
while the next steps update the same parameters, so a step copies the parameters and the gradients
into flat tensors and the new parameters out of one, and nothing else.
"""
from __future__ import annotations

from typing import Any

import torch

State = dict[str, Any]

# A parameter with more entries is updated on its own: copying it in and out of a flat tensor
# would cost more than the per-tensor work of the rule's kernels (an Adam step of 20 parameters,
# flat against on their own: 256 entries each 0.65x the time, 4096 0.81x, 16384 0.95x, 65536 1.28x)
FLAT_MAX_NUMEL = 1 << 14
# Fewer parameters are updated on their own: the flat copies' fixed cost is not repaid (Adam
# over parameters of 256 entries, flat against on their own: 2 of them 1.07x the time, 3 0.93x,
# 6 0.75x; next to two large parameters updated on their own, 2 1.11x, 4 1.04x, 8 0.94x)
FLAT_MIN_COUNT = 6

_flatten = torch._C._nn.flatten_dense_tensors  # one 1-D copy of the tensors' entries, in order
_unflatten = torch._C._nn.unflatten_dense_tensors  # views of a flat tensor in the tensors' shapes


def numbers(state: State | None, counters: tuple = ()) -> tuple:
    """The non-tensor part of a state (its names and numbers; none without a state) and which
    step-count tensor it holds (``counters``: the rule's, see
    [`SimpleOptimizer.counters`][burn_torch.optim.base.SimpleOptimizer]): what the parameters of
    one flat batch share. A count held as a tensor is told apart by identity (parameters stepped
    together share one tensor), so reading it costs no host sync."""
    return tuple((k, id(v) if k in counters else None) if isinstance(v, torch.Tensor) else (k, v)
                 for k, v in (state or {}).items())


class FlatStates:
    """The states of parameters last updated together: their ``ids`` in order, their
    ``shapes``, and ``state``, their shared numbers and per tensor name one flat tensor of
    their entries, one parameter after the other; its ``counters`` (step counts) one tensor for
    the batch."""

    __slots__ = ("ids", "shapes", "state", "numbers", "device", "counters", "_parts")

    def __init__(self, ids: tuple, shapes: list[torch.Size], state: State,
                 device: torch.device, counters: tuple = ()) -> None:
        self.ids = ids
        self.shapes = shapes
        self.state = state
        self.numbers = numbers(state, counters)
        self.device = device
        self.counters = counters
        self._parts: list[State] | None = None

    def part(self, i: int) -> State:
        """Parameter ``i``'s own state: the numbers and views of the flat tensors."""
        if self._parts is None:
            sizes = [s.numel() for s in self.shapes]
            split = {k: [t.view(shape) for t, shape in zip(v.split(sizes), self.shapes)]
                     for k, v in self.state.items()
                     if isinstance(v, torch.Tensor) and k not in self.counters}
            self._parts = [{k: split[k][j] if k in split else v for k, v in self.state.items()}
                           for j in range(len(self.ids))]
        return self._parts[i]


Slot = tuple  # (FlatStates, index): where a parameter's state lives while it is flat


def batches(rule, ids: list, params: list[torch.Tensor], states: dict, slots: dict,
            device: torch.device) -> tuple[list[tuple[list[int], State]], list[int]]:
    """Splits one device-and-dtype group of a step: ``(batches, rest)``.

    A batch is ``(indices, flat state)``: ``FLAT_MIN_COUNT`` or more small parameters whose
    states (in ``states`` or, while flat, in ``slots``) the rule's ``step_fused`` takes and hold
    the same numbers; its flat state is the one they were last updated with when they are
    exactly that batch's parameters, else their states concatenated. ``rest``: the other
    indices, in order. No batch and no rest for a group of fewer than ``FLAT_MIN_COUNT`` small
    parameters.
    """
    small = [p.numel() <= FLAT_MAX_NUMEL for p in params]
    if sum(small) < FLAT_MIN_COUNT:
        return [], []
    by_numbers: dict[tuple, list[int]] = {}
    rest = []
    for i, pid in enumerate(ids):
        if small[i]:
            slot = slots.get(pid)
            if slot is not None and slot[0].device == device:
                by_numbers.setdefault(slot[0].numbers, []).append(i)
                continue
            state = states.get(pid) if slot is None else None
            if slot is None and rule.fusable(state):
                by_numbers.setdefault(numbers(state, rule.counters), []).append(i)
                continue
        rest.append(i)
    found = []
    for indices in by_numbers.values():
        if len(indices) < FLAT_MIN_COUNT:
            rest.extend(indices)
            continue
        found.append((indices, _flat_state([ids[i] for i in indices], states, slots, device,
                                           rule.counters)))
    rest.sort()
    return found, rest


def _flat_state(ids: list, states: dict, slots: dict, device: torch.device,
                counters: tuple) -> State:
    """The flat state of parameters ``ids`` on ``device``: the one they were last updated with
    as exactly this batch (reused as is), else their states' tensors concatenated (their
    ``counters``, which they share, taken as they are: step counts stay on the host, see
    ``optim.counts``)."""
    first = slots.get(ids[0])
    if first is not None and first[0].ids == tuple(ids) and all(
            slots.get(pid) == (first[0], j) for j, pid in enumerate(ids)):
        return first[0].state
    own = [state_of(pid, states, slots) for pid in ids]
    return {k: v if k in counters else _flatten([s[k].to(device) for s in own])
            if isinstance(v, torch.Tensor) else v for k, v in (own[0] or {}).items()}


def state_of(pid, states: dict, slots: dict) -> State | None:
    """The state of parameter ``pid``, its own part while it is flat."""
    slot = slots.get(pid)
    return states.get(pid) if slot is None else slot[0].part(slot[1])


def step(rule, lr: float, ids: list, params: list[torch.Tensor], grads: list[torch.Tensor],
         rest: list[int], rest_states: list, found: list[tuple[list[int], State]],
         device: torch.device) -> tuple[list[torch.Tensor], list]:
    """One ``rule.step_many`` over the ``rest`` parameters (states ``rest_states``) and each
    batch of ``found`` as one flat tensor: per index, the new value (each in its own storage)
    and the new state, for a batch's members their [`FlatStates`][burn_torch.optim.flat.FlatStates]
    slot."""
    flats = [[params[i] for i in indices] for indices, _ in found]
    values, states = rule.step_many(
        lr, [params[i] for i in rest] + [_flatten(ps) for ps in flats],
        [grads[i] for i in rest] + [_flatten([grads[i] for i in indices]) for indices, _ in found],
        list(rest_states) + [state for _, state in found])
    new_values: list = [None] * len(params)
    new_states: list = [None] * len(params)
    for i, value, state in zip(rest, values, states):
        new_values[i], new_states[i] = value, state
    n = len(rest)
    for (indices, _), ps, value, state in zip(found, flats, values[n:], states[n:]):
        kept = FlatStates(tuple(ids[i] for i in indices), [p.shape for p in ps], state, device,
                          rule.counters)
        for j, (i, part) in enumerate(zip(indices, _unflatten(value, ps))):
            new_values[i], new_states[i] = part.clone(), (kept, j)
    return new_values, new_states
