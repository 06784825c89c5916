"""Backward: Burn's consuming, container-returning backward pass."""
from __future__ import annotations

import operator
import threading

import torch

from ..distributed import sync as _sync
from ..errors import GraphConsumedError
from .checkpoint import Checkpoint, Recomputer
from .graph import GRAD, Node

_grad_enabled = torch.is_grad_enabled
_set_grad = torch._C._set_grad_enabled
_lock = threading.Lock()
tracking = threading.local()  # ``observer``: set by burn_torch.memory.track() for its thread


_node_id = operator.attrgetter("id")


def claim(root: Node, check=None) -> list[Node]:
    """Returns the nodes reachable from ``root`` in reverse topological order, marked consumed.

    Raises GraphConsumedError, before marking anything, if ``root`` or any intermediate it
    depends on was consumed by an earlier backward; ``check(nodes)``, when given, runs then too
    and may raise as well. The checks and the marking happen under one lock, so two backward
    passes through the same step cannot both run it.
    """
    with _lock:
        if root.consumed:
            raise GraphConsumedError(
                "backward has already consumed this tensor's step; Burn has no retain_graph: "
                "combine losses that share intermediates into one loss before calling backward, "
                "or recompute the forward pass"
            )
        seen = {root}
        nodes = [root]
        stack = [root]
        pop = stack.pop
        push = stack.append
        while stack:
            parents = pop().parents
            if parents is None:
                continue
            for p in parents:
                if p is None or p in seen:
                    continue
                if p.consumed:
                    raise GraphConsumedError(
                        f"backward needs intermediate step #{p.id} ({p.op.name}), which an earlier "
                        "backward consumed; recompute the forward pass from its leaves, or detach() "
                        "the intermediate to start a new lineage"
                    )
                seen.add(p)
                nodes.append(p)
                push(p)
        if check is not None:
            check(nodes)
        for n in nodes:
            if n.op is not None:
                n.consumed = True
    nodes.sort(key=_node_id, reverse=True)
    return nodes


def run_backward(root: Node, seed: torch.Tensor) -> dict[int, torch.Tensor]:
    """Runs backward from ``root`` seeded with ``seed``; returns {leaf node id: gradient}.

    Steps run in reverse topological order. Each step's saved tensors and its parent links are
    released as soon as its rule has run, and each intermediate gradient is dropped once it has
    been propagated. A gradient reached by several paths is summed, in place once the engine owns
    the only reference to the sum. A BALANCED step's recomputed values are filled in just before
    its rule runs (see ``checkpoint``). While leaves marked distributed exist, the gradients of
    those the graph reaches are averaged across ranks (see ``distributed.sync``).
    """
    if _sync.registry:
        nodes, sync = _sync.plan(root, seed, claim)
    else:
        nodes, sync = claim(root), None
    grads = {root: seed}
    owned = set()
    result = {}
    recomputer = None
    observer = getattr(tracking, "observer", None)
    if observer is not None:
        observer.begin(nodes, grads)
    prev = _grad_enabled()
    _set_grad(False)
    try:
        pop = grads.pop
        get = grads.get
        for node in nodes:
            g = pop(node, None)
            op = node.op
            if op is None:
                if g is not None and node.requirement == GRAD:
                    if sync is not None and sync.submit(node, g):
                        continue
                    # a view (a cat/stack part, an expanded seed) would keep the whole
                    # intermediate buffer alive in the container: compact it into its own storage
                    base = g._base
                    if base is not None and (base.numel() != g.numel() or not g.is_contiguous()):
                        g = g.clone(memory_format=torch.contiguous_format)
                    result[node.id] = g
                continue
            if g is None:
                if node.saved.__class__ is Checkpoint:
                    recomputer = recomputer or Recomputer(nodes)
                    recomputer.release(node)
                node.parents = node.saved = node.attrs = None
                continue
            if node.saved.__class__ is Checkpoint:
                recomputer = recomputer or Recomputer(nodes)
                node.saved = recomputer.resolve(node)
            pgs = op.backward(g, node)
            if observer is not None:
                observer.step(node, g, pgs, grads, recomputer)
            parents = node.parents
            node.parents = node.saved = node.attrs = None
            g = None
            i = 0
            for p in parents:
                if p is not None:
                    pg = pgs[i]
                    if pg is not None:
                        cur = get(p)
                        if cur is None:
                            grads[p] = pg
                        elif p in owned:
                            cur.add_(pg)
                        else:
                            grads[p] = cur + pg
                            owned.add(p)
                i += 1
    finally:
        _set_grad(prev)
    if sync is not None:
        sync.finish(result)
    return result
