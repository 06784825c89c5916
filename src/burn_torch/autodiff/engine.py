"""Backward: Burn's consuming, container-returning backward pass.

The engine owns what every op shares: it visits the steps in reverse topological order, calls
the rules of each step's tracked inputs (the op table's per-input ``vjp`` rules, or its fused
rule), reduces every gradient of an entry that is not ``exact`` to its input's shape and dtype
(``unbroadcast``), sums gradients reached by several paths (a slicing op's gradients,
``ops.region.Region``, are collected per input and made dense once: see ``ops.region``), frees
saved values and intermediate gradients as soon as they are used, and hands the gradients of
retaining leaves back. Distributed sync and memory tracking take part through ``hooks``; the
engine imports neither.
"""
from __future__ import annotations

import operator
import threading
from typing import Any

import torch

from ..errors import GraphConsumedError
from . import hooks as _hooks
from .checkpoint import Checkpoint, Recomputer
from ..ops.region import Region as _Region, Regions as _Regions
from ..ops.table import PASS
from .graph import Node
from .unbroadcast import unbroadcast

_grad_enabled = torch.is_grad_enabled
_set_grad = torch._C._set_grad_enabled
_lock = threading.Lock()
_node_id = operator.attrgetter("id")
_pass = PASS.fn  # the rule that passes the output gradient through: used as is, not called


def _consumed_error(p) -> GraphConsumedError:
    return GraphConsumedError(
        f"backward needs intermediate step #{p.id} ({p.op.name}), which an earlier backward "
        "consumed; recompute the forward pass from its leaves, or detach() the intermediate to "
        "start a new lineage")


class _Claim:
    """The mark of one claim's walk (truthy, as ``consumed`` is read as a flag elsewhere)."""

    __slots__ = ()


def claim(root: Node, check=None) -> list[Node]:
    """Returns the nodes reachable from ``root`` in reverse topological order, marked consumed.

    Raises GraphConsumedError, leaving every mark as it was, if ``root`` or any intermediate it
    depends on was consumed by an earlier backward; ``check(nodes)``, when given, runs then too
    and may raise as well (the marks are then undone too). The walk and the marking happen under
    one lock, so two backward passes through the same step cannot both run it; an interruption
    (KeyboardInterrupt) un-marks what was marked, so the graph is either claimed whole or
    untouched.
    """
    with _lock:
        if root.consumed:
            raise GraphConsumedError(
                "backward has already consumed this tensor's step; Burn has no retain_graph: "
                "combine losses that share intermediates into one loss before calling backward, "
                "or recompute the forward pass"
            )
        # a step is marked with this walk's token when first reached (its mark tells "seen in
        # this walk" from "consumed before" in one read); leaves are never marked: collected
        # with repeats, made unique once at the end
        token = _Claim()
        nodes = [root]
        leaves: list[Node] = []
        stack = [] if root.parents is None else [root]  # a leaf root has nothing to walk
        pop = stack.pop
        push = stack.append
        append = nodes.append
        leaf = leaves.append
        try:
            if stack:
                root.consumed = token
            while stack:
                for p in pop().parents:
                    if p is None:
                        continue
                    if p.op is None:
                        leaf(p)
                        continue
                    c = p.consumed
                    if c is token:
                        continue
                    if c:
                        raise _consumed_error(p)
                    p.consumed = token
                    append(p)
                    push(p)
            if leaves:
                nodes.extend(set(leaves))
            if check is not None:
                check(nodes)
        except BaseException:
            # marked while walking: un-marked, so a refused or interrupted claim leaves the
            # graph as it was (leaves were never marked)
            for n in nodes:
                n.consumed = False
            raise
    nodes.sort(key=_node_id, reverse=True)
    return nodes


def step_error(node: Node, g, err: Exception) -> Exception:
    """``err`` raised by ``node``'s rule, itself (its class, message and attributes kept, so
    ``except torch.OutOfMemoryError`` around backward catches it), with a note naming the op,
    the step and the shapes (and, in debug mode, the source line that recorded the step)."""
    origin = getattr(node, "origin", None)
    where = f", recorded at {origin}" if origin else ""
    parents = node.parents or ()
    err.add_note(f"in backward of {node.op.name} (step #{node.id}{where}): output gradient "
                 f"{list(g.shape)} {g.dtype}; input shapes: "
                 f"{', '.join('-' if p is None else str(list(p.shape)) for p in parents)}")
    return err


def _release_steps(nodes) -> None:
    """After a failed pass: drops what the steps not yet run hold (they are consumed)."""
    for node in nodes:
        if node.op is not None:
            node.parents = node.saved = None


def run_backward(root: Node, seed: torch.Tensor) -> dict[int, torch.Tensor]:
    """Runs backward from ``root`` seeded with ``seed``; returns {leaf node id: gradient}.

    Steps run in reverse topological order. Each step's saved values and its parent links are
    released as soon as its rules have run, and each intermediate gradient is dropped once it
    has been propagated. A gradient reached by several paths is summed, in place once the
    engine owns the only reference to the sum. A BALANCED step's recomputed values are filled
    in just before its rules run (see ``checkpoint``).

    Raises GraphConsumedError (nothing consumed) when the graph was consumed before, what a
    hook's ``check`` raises (nothing consumed), and what a failing rule raises, of its own class,
    with a note naming the op, the step and the shapes (the graph is then consumed whole).
    """
    hooks = _hooks.for_pass(root, seed) if _hooks.registered else None
    stepping = leafing = None  # the hooks that see every step / every leaf's gradient
    if hooks:
        nodes = claim(root, lambda ns: [h.check(ns) for h in hooks])
        grads: dict[Any, Any] = {root: seed}  # a node's gradient: a Tensor or its _Regions
        for h in hooks:
            nodes = h.begin(nodes, grads)
        stepping = [h for h in hooks if type(h).step is not _hooks.BackwardHook.step]
        leafing = [h for h in hooks if type(h).leaf is not _hooks.BackwardHook.leaf]
    else:
        nodes = claim(root)
        grads = {root: seed}
    owned = set()
    result = {}
    recomputer = None
    pop = grads.pop
    get = grads.get
    passthrough = _pass
    checkpoint = Checkpoint
    prev = _grad_enabled()
    _set_grad(False)
    try:
        for node in nodes:
            g = pop(node, None)
            if g.__class__ is _Regions:
                g = g.dense()
            op = node.op
            if op is None:
                if g is not None:  # a leaf a walk reaches retains its gradient (GRAD)
                    if leafing and any([h.leaf(node, g) for h in leafing]):
                        continue
                    # a view (a cat/stack part, an expanded seed) would keep the whole
                    # intermediate buffer alive in the container: compact it into its own storage
                    base = g._base
                    if base is not None and (base.numel() != g.numel() or not g.is_contiguous()):
                        g = g.clone(memory_format=torch.contiguous_format)
                    result[node.id] = g
                continue
            saved = node.saved
            if g is None:
                if saved.__class__ is checkpoint:
                    recomputer = recomputer or Recomputer(nodes)
                    recomputer.release(node)
                node.parents = node.saved = None
                continue
            if saved.__class__ is checkpoint:
                recomputer = recomputer or Recomputer(nodes)
                saved = recomputer.resolve(node)
            parents = node.parents
            rules = op.rules
            exact = op.exact  # its rules give every gradient in its input's shape and dtype
            computed = None  # every input gradient at once: a fused rule, or for hooks
            try:
                if rules is None or stepping:
                    computed = op.fused(g, saved, parents) if rules is None else tuple(
                        [None if p is None else g if r is passthrough else r(g, saved)
                         for p, r in zip(parents, rules)])
                    if stepping:  # hooks see dense gradients
                        computed = tuple([pg.dense() if pg.__class__ is _Region else pg
                                          for pg in computed])
            except Exception as e:
                raise step_error(node, g, e)
            if stepping:
                for h in stepping:
                    h.step(node, g, computed, grads, recomputer)
            try:
                i = -1
                for p in parents:  # indexing the rules: a zip per step costs more
                    i += 1
                    if p is None:
                        continue
                    if computed is None:
                        r = rules[i]
                        pg = g if r is passthrough else r(g, saved)
                    else:
                        pg = computed[i]
                    if pg is None:
                        continue
                    if pg.__class__ is _Region:  # collected, or added into p's dense gradient
                        cur = get(p)
                        if cur is None:
                            grads[p] = _Regions(pg)
                        elif cur.__class__ is _Regions:
                            cur.parts.append(pg)
                        else:
                            if p not in owned:
                                cur = grads[p] = cur.clone()
                                owned.add(p)
                            pg.add_to(cur)
                        continue
                    if not exact:
                        # a rule's gradient has the output's shape and dtype: only a parent of
                        # another shape or dtype can need reducing or casting
                        shape = p.shape
                        if shape != node.shape:
                            gshape = pg.shape
                            if gshape != shape:
                                pg = unbroadcast(pg, gshape, shape)
                        if p.dtype is not node.dtype and pg.dtype is not p.dtype:
                            pg = pg.to(p.dtype)
                    if p not in grads:
                        grads[p] = pg
                    elif p in owned:
                        grads[p].add_(pg)
                    else:
                        cur = get(p)
                        if cur.__class__ is _Regions:  # fresh: summed in place
                            cur = cur.dense()
                            cur.add_(pg)
                            grads[p] = cur
                        else:
                            grads[p] = cur + pg
                        owned.add(p)
            except Exception as e:
                raise step_error(node, g, e)
            node.parents = node.saved = None
    except BaseException:
        _release_steps(nodes)
        raise
    finally:
        _set_grad(prev)
    if hooks:
        for h in hooks:
            h.finish(result)
    return result
