"""The recorded graph: one ``Node`` per tracked tensor.

A node is Burn's node and step in one object. ``requirement`` is ``GRAD`` for a leaf that retains
its gradient (registered by ``require_grad()``) and ``GRAD_IN_BACKWARD`` for an intermediate whose
gradient only lives during backward. An untracked tensor has no node at all (Burn's
``Requirement::None``).

An intermediate's step is its op-table entry, its parents' nodes and what the backward rule
saved (under BALANCED, a ``checkpoint.Checkpoint`` the engine resolves before the rule runs). Backward consumes the step: it sets ``consumed`` and drops ``parents`` and ``saved`` so their memory is freed. Leaves have no step and are never consumed, so parameter
leaves can be reused in fresh forwards. Node ids grow monotonically, so every node's id exceeds
its parents' ids and decreasing id order is a reverse topological order.
"""
from __future__ import annotations

import itertools

GRAD = 1
GRAD_IN_BACKWARD = 2

_next_id = itertools.count(1).__next__


class Node:
    """A tracked tensor's place in the graph (see the module docstring)."""

    __slots__ = ("id", "requirement", "op", "parents", "saved", "shape", "dtype", "consumed")

    def __init__(self, op, parents, saved, shape, dtype):
        """A recorded step's node (requirement ``GRAD_IN_BACKWARD``); leaves: ``new_leaf``."""
        self.id = _next_id()
        self.requirement = GRAD_IN_BACKWARD
        self.op = op
        self.parents = parents
        self.saved = saved
        self.shape = shape
        self.dtype = dtype
        self.consumed = False

    def is_leaf(self) -> bool:
        return self.op is None

    def __repr__(self) -> str:
        kind = "leaf" if self.op is None else self.op.name
        state = ", consumed" if self.consumed else ""
        return f"Node(#{self.id} {kind}{state})"


def new_leaf(shape, dtype) -> Node:
    """Returns a fresh leaf node that retains its gradient."""
    node = Node(None, None, None, shape, dtype)
    node.requirement = GRAD
    return node
