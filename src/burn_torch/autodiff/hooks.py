"""Backward hooks: how the rest of burn_torch takes part in a backward pass without the engine
importing it (Burn plugs distributed gradient sync in the same way).

A *hook factory* is registered once (``register``); at the start of every backward the
engine calls each factory with the root node and the seed, and each returns a
``BackwardHook`` for that pass, or None to stay out of it. ``burn_torch.distributed``
registers the gradient sync of distributed parameters, ``burn_torch.memory`` the accounting of
[`burn_torch.memory.track`][burn_torch.memory.track], the testing kit its per-step comparison.
"""
from __future__ import annotations

import threading
from typing import Callable

__all__ = ["BackwardHook", "register", "registered", "for_pass"]


class BackwardHook:
    """One backward pass seen from outside the engine. Every method is a no-op here; a hook
    overrides what it needs. The engine calls ``step`` and ``leaf`` only on hooks that
    override them: a hook that only checks or reorders the pass leaves its per-step work (and
    its kernels) as without hooks. Exceptions raised by a hook propagate out of ``backward()``."""

    __slots__ = ()

    def check(self, nodes: list) -> None:
        """Runs while the graph is being claimed, under the claim's lock: raising here leaves the
        graph untouched (the claim's marks are undone). ``nodes``: the steps and leaves the pass will visit."""

    def begin(self, nodes: list, grads: dict) -> list:
        """The pass starts (``grads`` holds the seed); returns the order to run ``nodes`` in: the
        same nodes, in an order that is still reverse topological."""
        return nodes

    def leaf(self, node, grad) -> bool:
        """A retaining leaf's gradient is complete; True when the hook takes it over (it then
        puts it into the result itself, in ``finish``)."""
        return False

    def step(self, node, grad, input_grads: tuple, grads: dict, recomputer) -> None:
        """``node``'s rules ran on ``grad`` and gave ``input_grads`` (one per parent, None where
        none), before they were reduced to the parents' shapes; ``grads``: the gradients waiting
        for their steps; ``recomputer``: BALANCED recomputation state or None."""

    def finish(self, result: dict) -> None:
        """The pass completed; ``result`` maps leaf node ids to gradients (may be edited)."""


registered: list = []
"""The registered factories, in registration order (read-only outside this module)."""
_lock = threading.Lock()


def register(factory: Callable) -> Callable[[], None]:
    """Registers ``factory(root, seed) -> BackwardHook | None``, called at the start of every
    backward pass in every thread; returns a function that unregisters it."""
    with _lock:
        registered.append(factory)

    def unregister() -> None:
        with _lock:
            if factory in registered:
                registered.remove(factory)

    return unregister


def for_pass(root, seed) -> list:
    """The hooks taking part in the backward pass from ``root`` (usually none)."""
    hooks = []
    for factory in tuple(registered):
        hook = factory(root, seed)
        if hook is not None:
            hooks.append(hook)
    return hooks
