"""Step counts held as tensors, so that one captured plan serves every optimizer step.

A rule such as Adam keeps a step count ``t`` per parameter (its ``counters``, e.g. ``("time",)``)
and derives numbers from it each step (bias corrections). Eagerly they are Python ints and
floats. Inside a captured function (``burn_torch.capture``) a Python number is a constant of the
plan, so a count read on the host would make a plan per step; there the optimizer holds its
counts as 0-d int64 CPU tensors instead (as torch's ``capturable`` optimizers hold ``step``), and
the numbers a rule derives from a count are looked up, as float64 0-d tensors, in a table of the
very floats the eager code computes: ``fn(*args, t)`` for every ``t`` up to the count from which
they no longer change (both bias corrections round to exactly 1.0). A kernel given such a 0-d
tensor computes what it computes given the Python float (both are CPU scalars cast to the
kernel's dtype), so steps with tensor counts are bit-equal to eager steps with int counts.

Parameters stepped together share one count tensor: its increment and lookups run once per
step, and flat batches (``optim.flat``) tell counts apart by identity, without a host read.
"""
from __future__ import annotations

import functools
import math
from typing import Callable

import torch

# the most rows a table may have: numbers that still change past this count (a beta_2 closer to
# 1 than about 1 - 4e-5) cannot be held as tensors, and the optimizer is not capturable
TABLE_CAP = 1 << 20


@functools.lru_cache(maxsize=32)
def table(fn: Callable, args: tuple) -> torch.Tensor | None:
    """The float64 table whose row ``t`` holds ``fn(*args, t)`` (row 0 unused) for ``t`` from 1
    to the first count whose numbers equal every later count's (both ``args[0] ** t`` and
    ``args[1] ** t`` below half an ulp of 1.0, so that ``1 - beta ** t`` is exactly 1.0), or
    None when that count is above ``TABLE_CAP``."""
    b1, b2 = args[0], args[1]
    if not (0.0 <= b1 < 1.0 and 0.0 <= b2 < 1.0):
        return None
    slowest = max(b1, b2)
    if slowest > 0.0 and math.log(2.0 ** -55) / math.log(slowest) > TABLE_CAP:
        return None  # (about where beta ** t falls below half an ulp of 1.0)
    rows = [fn(*args, 1)]
    t = 1
    while 1.0 - b1 ** t != 1.0 or 1.0 - b2 ** t != 1.0:
        t += 1
        if t > TABLE_CAP:
            return None
        rows.append(fn(*args, t))
    return torch.tensor([rows[0], *rows], dtype=torch.float64)


def capturable(fn: Callable, args: tuple) -> str | None:
    """None when counts of a rule deriving ``fn(*args, t)`` can be held as tensors, else why not."""
    if table(fn, args) is None:
        return (f"its numbers from the step count ({fn.__name__}{args}) keep changing past "
                f"{TABLE_CAP} steps: betas in [0, 1) not closer to 1 than about 1 - 4e-5")
    return None


def step(fn: Callable, args: tuple, old: list) -> tuple[list, list[tuple]]:
    """The new count of each state whose count is ``old`` (``old + 1``) and ``fn(*args, new)``.

    An int count gives an int and Python floats, as eager computes them; a count held as a
    tensor gives, once per distinct tensor (states stepped together keep sharing their count),
    a new 0-d int64 tensor and float64 0-d tensors read from ``table(fn, args)``: the same
    floats. A ``torch._foreach_*`` kernel takes a list of them as it takes a list of floats
    (its per-tensor path, on any device: the 0-d tensors are CPU scalars)."""
    counts: list = []
    values: list[tuple] = []
    done: dict = {}
    for t in old:
        if t.__class__ is int:
            counts.append(t + 1)
            values.append(fn(*args, t + 1))
            continue
        hit = done.get(id(t))
        if hit is None:
            rows = table(fn, args)
            assert rows is not None, "a count is held as a tensor only for a capturable rule"
            new = t + 1
            hit = done[id(t)] = (new, tuple(rows[new.clamp_max(len(rows) - 1)].unbind()))
        counts.append(hit[0])
        values.append(hit[1])
    return counts, values


def held(state: dict, counters: tuple, made: dict) -> dict:
    """``state`` with its int ``counters`` as 0-d int64 CPU tensors (one per value, kept in
    ``made``: states converted together share it); ``state`` itself when there is none."""
    if not any(state.get(k).__class__ is int for k in counters):
        return state
    out = dict(state)
    for k in counters:
        v = out.get(k)
        if v.__class__ is int:
            t = made.get(v)
            if t is None:
                t = made[v] = torch.tensor(v, dtype=torch.int64)
            out[k] = t
    return out


def released(state: dict, counters: tuple) -> dict:
    """``state`` with its counters as Python ints (for records: Burn's counts are integers)."""
    if not any(isinstance(state.get(k), torch.Tensor) for k in counters):
        return state
    return {k: int(v) if k in counters and isinstance(v, torch.Tensor) else v
            for k, v in state.items()}
