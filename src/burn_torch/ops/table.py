"""The op table: every differentiable operation declared once.

An :class:`OpDef` names the torch forward kernel, the backward rule (a vector-Jacobian product),
what the rule needs saved, and whether the op is memory-bound or compute-bound (Burn's BALANCED
checkpointing recomputes memory-bound outputs instead of keeping them). Public Tensor methods,
the recording layer, the torch-oracle tests and checkpoint recomputation all read this table.

A backward rule is ``rule(g, node) -> tuple`` with one entry per input: the gradient with respect
to that input (already reduced to the input's shape and dtype), or ``None`` where the input is
untracked (``node.parents[i] is None``) and no gradient is needed. It reads ``node.saved`` (what
``save`` returned), ``node.attrs`` and ``node.parents``; it runs with torch autograd off and
must not mutate ``g`` or anything saved.
"""
from __future__ import annotations

import enum
from typing import Callable


class Bound(enum.Enum):
    """Whether an op's cost is dominated by memory traffic or by arithmetic."""

    MEMORY = "memory"
    COMPUTE = "compute"


MEMORY = Bound.MEMORY
COMPUTE = Bound.COMPUTE


# What a rule needs saved. Each takes (input storages, output storage, parent nodes).
def save_nothing(datas, out, parents):
    return None


def save_inputs(datas, out, parents):
    return datas


def save_output(datas, out, parents):
    return out


def save_input(datas, out, parents):
    return datas[0]


def save_other_input(datas, out, parents):
    """For bilinear ops (mul, matmul): input i is kept only when the other input is tracked."""
    a, b = datas
    pa, pb = parents
    return (a if pb is not None else None, b if pa is not None else None)


class OpDef:
    """One op-table entry. ``backward`` is None for non-differentiable ops."""

    __slots__ = ("name", "forward", "backward", "bound", "save")

    def __init__(self, name: str, forward: Callable, backward: Callable | None, bound: Bound,
                 save: Callable = save_nothing) -> None:
        self.name = name
        self.forward = forward
        self.backward = backward
        self.bound = bound
        self.save = save

    def __repr__(self) -> str:
        return f"OpDef({self.name}, {self.bound.value}-bound)"


OPS: dict[str, OpDef] = {}


def defop(name: str, forward: Callable, backward: Callable | None, bound: Bound,
          save: Callable = save_nothing) -> OpDef:
    """Declares an op in the table and returns its entry; a name can be declared only once."""
    if name in OPS:
        raise ValueError(f"op {name!r} is already declared")
    op = OpDef(name, forward, backward, bound, save)
    OPS[name] = op
    return op
