"""Memory accounting for the autodiff graph, without a profiler.

[`graph_bytes`][burn_torch.memory.graph_bytes] says how many bytes a recorded graph holds for its
backward pass right now; [`track`][burn_torch.memory.track] measures the most bytes held at once
while backward runs. Both count torch storages, each once however many tensors (views, repeated
saves) share it, at the storage's full size. What the graph holds: the tensors the steps saved for
their rules, the kept outputs BALANCED steps hold to recompute from (``autodiff.checkpoint``),
tensors among the steps' attrs (index tensors, masks) and captured generator states. Leaf values
count only where a step saved them (a weight a matmul needs): the graph does not otherwise hold its
leaves.

    with burn_torch.memory.track() as m:
        grads = loss.backward()
    m.peak_bytes, m.start_bytes
"""
from __future__ import annotations

import contextlib
from typing import Callable, Iterator

import torch

import threading

from . import validate
from .autodiff import hooks
from .autodiff.checkpoint import Checkpoint
from .tensor import Tensor

__all__ = ["graph_bytes", "track", "MemoryTrace"]


def _tensors(obj, out: list) -> list:
    """Appends the torch tensors in ``obj`` (nested tuples/lists, Checkpoints) to ``out``."""
    if isinstance(obj, torch.Tensor):
        out.append(obj)
    elif isinstance(obj, (tuple, list)):
        for o in obj:
            _tensors(o, out)
    elif obj.__class__ is Checkpoint:
        _tensors(obj.saved, out)
        _tensors(obj.inputs, out)
        _tensors(obj.rng, out)
        _tensors(obj.attrs, out)
    return out


def _held(node) -> list:
    """The tensors a node holds for backward."""
    return _tensors(node.saved, [])


def _storage(t: torch.Tensor):
    """(identity, bytes) of the storage under ``t``."""
    s = t.untyped_storage()
    return (t.device, s.data_ptr()), s.nbytes()


def graph_bytes(*tensors: Tensor) -> int:
    """Bytes the graph reachable from ``tensors`` holds for backward now, each storage once.

    0 for untracked tensors and for graphs a backward pass already consumed. Raises TypeError
    for anything but burn_torch Tensors.
    """
    stack = []
    for t in tensors:
        if not isinstance(t, Tensor):
            raise TypeError(f"graph_bytes expects burn_torch Tensors, got {validate.type_name(t)}")
        if t._node is not None:
            stack.append(t._node)
    seen = set()
    sizes = {}
    while stack:
        node = stack.pop()
        if node in seen:
            continue
        seen.add(node)
        for t in _held(node):
            key, nbytes = _storage(t)
            sizes[key] = nbytes
        if node.parents is not None:
            stack.extend(p for p in node.parents if p is not None)
    return sum(sizes.values())


class MemoryTrace:
    """What the backward passes run inside one [`track`][burn_torch.memory.track] block held.

    ``peak_bytes``: the most bytes held at once by the graph's saved state, the values
    recomputed for checkpointing and the gradients in flight (the incoming and outgoing
    gradients of the running step and those waiting for their step; the leaf gradients being
    returned are not counted), sampled while each step's rule has just run. ``start_bytes``: what
    the graph held when a pass started (``graph_bytes`` of its root). Both are maxima over the
    ``passes`` backward passes measured.
    """

    __slots__ = ("peak_bytes", "start_bytes", "passes")

    def __init__(self) -> None:
        self.peak_bytes = 0
        self.start_bytes = 0
        self.passes = 0

    def __repr__(self) -> str:
        return (f"MemoryTrace(peak_bytes={self.peak_bytes}, start_bytes={self.start_bytes}, "
                f"passes={self.passes})")


class _Observer(hooks.BackwardHook):
    """The engine's view of a trace (a backward hook): ``begin`` once per pass, ``step`` after
    each rule ran.

    Keeps a reference count per storage the graph holds, so the bytes still held are known
    without rescanning the graph; a step's holdings are released once the engine moved past it.
    """

    __slots__ = ("trace", "nodes", "held", "refs", "live", "next")

    def __init__(self, trace: MemoryTrace) -> None:
        self.trace = trace

    def begin(self, nodes, grads) -> list:
        refs: dict[object, list[int]] = {}
        held = []
        live = 0
        for node in nodes:
            keys = []
            for t in _held(node):
                key, nbytes = _storage(t)
                entry = refs.get(key)
                if entry is None:
                    refs[key] = [1, nbytes]
                    live += nbytes
                else:
                    entry[0] += 1
                keys.append(key)
            held.append(keys)
        self.nodes, self.held, self.refs, self.live, self.next = nodes, held, refs, live, 0
        trace = self.trace
        trace.passes += 1
        trace.start_bytes = max(trace.start_bytes, live)
        self._measure(list(grads.values()))
        return nodes

    def step(self, node, g, pgs, grads, recomputer) -> None:
        while self.nodes[self.next] is not node:  # leaves and skipped steps since the last step
            self._release()
        extra = _tensors((g, pgs, list(grads.values())), [])
        _tensors(node.saved, extra)
        if recomputer is not None:
            extra.extend(recomputer.values.values())
        self._measure(extra)
        self._release()

    def _release(self) -> None:
        refs = self.refs
        for key in self.held[self.next]:
            entry = refs[key]
            entry[0] -= 1
            if entry[0] == 0:
                self.live -= entry[1]
                del refs[key]
        self.next += 1

    def _measure(self, extra: list) -> None:
        total = self.live
        seen = set()
        for t in extra:
            key, nbytes = _storage(t)
            if key not in self.refs and key not in seen:
                seen.add(key)
                total += nbytes
        self.trace.peak_bytes = max(self.trace.peak_bytes, total)


@contextlib.contextmanager
def track() -> Iterator[MemoryTrace]:
    """Measures the backward passes this thread runs inside the block; yields their MemoryTrace.

    In nested blocks the innermost one measures. Adds a per-step cost to backward while active.
    """
    trace = MemoryTrace()
    previous = getattr(_tracking, "trace", None)
    _tracking.trace = trace
    _open_block()
    try:
        yield trace
    finally:
        _tracking.trace = previous
        _close_block()


_tracking = threading.local()  # ``trace``: the innermost track() block of this thread


class _Blocks:
    """The track() blocks open in all threads, and the hook's registration, held only while one
    is open (guarded by ``_blocks_lock``)."""
    open = 0
    unregister: Callable[[], None] | None = None


_blocks_lock = threading.Lock()


def _open_block() -> None:
    with _blocks_lock:
        _Blocks.open += 1
        if _Blocks.unregister is None:
            _Blocks.unregister = hooks.register(_observer_for)


def _close_block() -> None:
    with _blocks_lock:
        _Blocks.open -= 1
        if _Blocks.open == 0 and _Blocks.unregister is not None:
            _Blocks.unregister()
            _Blocks.unregister = None


def _observer_for(root, seed):
    """The backward-hook factory: an observer for passes run inside a ``track()`` block."""
    trace = getattr(_tracking, "trace", None)
    return None if trace is None else _Observer(trace)

