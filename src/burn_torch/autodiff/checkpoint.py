"""BALANCED gradient checkpointing: memory-bound outputs are recomputed in backward, not kept.

Recording (:func:`record`, the BALANCED counterpart of ``recorder.apply1/apply2/applyn``) sorts
every step into one of two kinds, from its op-table entry alone:

* *recomputable*: a memory-bound op whose parents are all tracked. Its node keeps a
  :class:`Checkpoint` instead of what its rule needs: the recipe to recompute its output (the
  op-table entry, parents and attrs already on the node, plus ``inputs``: each parent's output
  where that output is kept, None where the parent is itself recomputable) and the states of the
  ``torch.Generator`` attrs captured before the forward ran, so random ops replay identically
  (a random op must therefore take its generator as an attr, not draw from a global one).
* *kept*: everything else: compute-bound ops, leaves, and (Burn's fallback) memory-bound ops
  with an untracked parent. Their outputs stay available: a recomputable child keeps them among
  its ``inputs``, any other child in its saved values.

In either kind, the saved structure the rule reads (``op.save``'s result) is stored with every
tensor that is the output of a recomputable step (an input, or the step's own output) replaced
by that step's :class:`Node`, and every view of one (``save`` may reshape an input) by a
:class:`View`; a kept step whose saved structure needed no replacement keeps it as is, exactly
as under DISABLED.

Backward (:class:`Recomputer`, one per pass, created by the engine at the first checkpointed
step) first counts how many times each recomputable output will be read: once per reference in
a saved structure, plus once per recomputable child whose own recomputation is needed. Before a
checkpointed step's rule runs, its references are replaced by the outputs, each recomputed
(from the nearest kept values, same kernels as the forward) at its first read, cached while
further reads are pending, and dropped after its last one. Gradients are therefore bit-identical
to DISABLED's.
"""
from __future__ import annotations

import torch

from ..ops.table import MEMORY
from . import recorder as _recorder
from .graph import GRAD_IN_BACKWARD, Node

_Tensor = torch.Tensor
_Generator = torch.Generator


class Checkpoint:
    """What a BALANCED step keeps in ``node.saved`` (see the module docstring).

    ``saved``: the rule's saved structure with node references; ``refs``: the nodes those
    references read, in order, with repeats; ``inputs``: per parent, its kept output or None
    (recomputable steps only; None for kept steps); ``packed``: whether the forward takes its
    inputs as one tuple (``applyn``); ``rng``: ``(attr index, generator state)`` pairs, or None.
    """

    __slots__ = ("saved", "refs", "inputs", "packed", "rng")

    def __init__(self, saved, refs: tuple, inputs, packed: bool, rng) -> None:
        self.saved = saved
        self.refs = refs
        self.inputs = inputs
        self.packed = packed
        self.rng = rng

    def __repr__(self) -> str:
        kind = "kept" if self.inputs is None else "recomputable"
        return f"Checkpoint({kind}, {len(self.refs)} references)"


def _recomputable(node) -> bool:
    if node is None:
        return False
    ck = node.saved
    return ck.__class__ is Checkpoint and ck.inputs is not None


class View:
    """A saved view (a reshape, a transpose, ...) of a recomputable step's output, re-taken on
    the recomputed output: ``base`` and ``view`` are (size, stride, storage offset) triples."""

    __slots__ = ("node", "base", "view")

    def __init__(self, node: Node, base: torch.Tensor, view: torch.Tensor) -> None:
        self.node = node
        self.base = _layout(base)
        self.view = _layout(view)

    def take(self, value: torch.Tensor) -> torch.Tensor:
        """The view of the recomputed ``value``; RuntimeError if its layout changed."""
        if _layout(value) != self.base:
            raise RuntimeError(f"checkpointing: step #{self.node.id} ({self.node.op.name}) was "
                               f"recomputed with layout {_layout(value)}, recorded {self.base}")
        return value.as_strided(*self.view)


def _layout(t: torch.Tensor):
    return tuple(t.shape), t.stride(), t.storage_offset()


def _shares_storage(a: torch.Tensor, b: torch.Tensor) -> bool:
    sa = a.untyped_storage()
    return sa.nbytes() > 0 and sa.data_ptr() == b.untyped_storage().data_ptr() and a.device == b.device


def _substitute(obj, sources, refs: list):
    """``obj`` with each recomputable output replaced by its node and each view of one by a
    :class:`View`, appending the nodes read to ``refs``; ``obj`` itself when nothing changed.

    ``sources``: (output, node) pairs, the node None where that output is kept.
    """
    if isinstance(obj, _Tensor):
        for data, node in sources:
            if obj is data:
                if node is None:
                    return obj
                refs.append(node)
                return node
        for data, node in sources:
            if node is not None and _shares_storage(obj, data):
                refs.append(node)
                return View(node, data, obj)
        return obj
    if type(obj) is tuple or type(obj) is list:
        items = []
        changed = False
        for o in obj:
            new = _substitute(o, sources, refs)
            changed = changed or new is not o
            items.append(new)
        return type(obj)(items) if changed else obj
    return obj


def _rng_states(attrs):
    states = tuple((i, a.get_state()) for i, a in enumerate(attrs) if isinstance(a, _Generator))
    return states or None


def _replay_attrs(attrs, rng):
    """``attrs`` with each captured generator replaced by a fresh one in its captured state."""
    attrs = list(attrs)
    for i, state in rng:
        gen = _Generator(device=attrs[i].device)
        gen.set_state(state)
        attrs[i] = gen
    return attrs


def record(op, tensors, attrs, ctx, packed: bool):
    """Applies ``op`` to ``tensors`` under BALANCED; returns the result tensor.

    ``packed``: the forward takes the input storages as one tuple (as ``recorder.applyn``). Same
    contract and errors as ``recorder.apply1/apply2/applyn``; only what the node keeps differs.
    """
    datas = tuple([t._data for t in tensors])
    parents = tuple([t._node for t in tensors])
    if op.backward is None or parents.count(None) == len(parents):
        return _recorder.wrap(_recorder.run(op, (datas,) if packed else datas, *attrs), ctx)
    recomputable = op.bound is MEMORY and None not in parents
    rng = _rng_states(attrs) if recomputable and attrs else None
    out = _recorder.run(op, (datas,) if packed else datas, *attrs)
    node = Node(GRAD_IN_BACKWARD, op, parents, None, attrs, out.shape, out.dtype)
    saved = op.save(datas, out, parents)
    sources = [(d, p if _recomputable(p) else None) for d, p in zip(datas, parents)]
    refs = []
    if saved is not None:
        if recomputable:
            sources.append((out, node))
        saved = _substitute(saved, sources, refs)
    if recomputable:
        inputs = tuple([None if m is not None else d for d, m in sources[:len(datas)]])
        node.saved = Checkpoint(saved, tuple(refs), inputs, packed, rng)
    elif refs:
        node.saved = Checkpoint(saved, tuple(refs), None, packed, None)
    else:
        node.saved = saved
    return _recorder.wrap(out, ctx, node)


def _needed_parents(node) -> list:
    """The recomputable parents ``node``'s recomputation reads (one entry per read)."""
    return [p for d, p in zip(node.saved.inputs, node.parents) if d is None]


class Recomputer:
    """One backward pass's recomputation state.

    ``pending``: recomputable node -> reads still to come; ``values``: outputs recomputed and
    still pending. Every entry leaves both maps at its last read (or release), so after a pass
    in which every step got a gradient both are empty.
    """

    __slots__ = ("pending", "values")

    def __init__(self, nodes) -> None:
        """Counts the reads the checkpointed steps among ``nodes`` will make."""
        pending = {}
        for n in nodes:
            if n.saved.__class__ is not Checkpoint:
                continue
            stack = list(n.saved.refs)
            while stack:
                m = stack.pop()
                count = pending.get(m, 0)
                pending[m] = count + 1
                if count == 0:
                    stack.extend(_needed_parents(m))
        self.pending = pending
        self.values = {}

    def resolve(self, node):
        """Returns ``node``'s saved structure with every reference replaced by that output."""
        return self._fill(node.saved.saved)

    def release(self, node) -> None:
        """Gives up the reads of ``node``'s saved structure (its rule will not run)."""
        pending = self.pending
        stack = list(node.saved.refs)
        while stack:
            m = stack.pop()
            left = pending[m] - 1
            if left:
                pending[m] = left
                continue
            del pending[m]
            if self.values.pop(m, None) is None:  # never recomputed: neither will its inputs be
                stack.extend(_needed_parents(m))

    def _fill(self, obj):
        if obj.__class__ is Node:
            return self._read(obj)
        if obj.__class__ is View:
            return obj.take(self._read(obj.node))
        if type(obj) is tuple or type(obj) is list:
            return type(obj)(self._fill(o) for o in obj)
        return obj

    def _read(self, node):
        out = self.values.get(node)
        if out is None:
            out = self._recompute(node)
        self._done(node, out)
        return out

    def _done(self, node, out) -> None:
        """Counts one read of ``node``'s output; drops the output after its last read."""
        left = self.pending[node] - 1
        if left:
            self.pending[node] = left
            self.values[node] = out
        else:
            del self.pending[node]
            self.values.pop(node, None)

    def _recompute(self, target):
        """Recomputes ``target``'s output, and first the recomputable outputs it is made from."""
        values = self.values
        stack = [target]
        while stack:
            node = stack[-1]
            if node in values:
                stack.pop()
                continue
            ck = node.saved
            missing = [p for d, p in zip(ck.inputs, node.parents) if d is None and p not in values]
            if missing:
                stack.extend(missing)
                continue
            stack.pop()
            datas = tuple(d if d is not None else values[p] for d, p in zip(ck.inputs, node.parents))
            attrs = node.attrs if ck.rng is None else _replay_attrs(node.attrs, ck.rng)
            values[node] = _recorder.run(node.op, (datas,) if ck.packed else datas, *attrs)
            for d, p, v in zip(ck.inputs, node.parents, datas):
                if d is None:
                    self._done(p, v)
        return values[target]
