"""Recording: every torch call a step makes, seen through a ``TorchFunctionMode``.

The recording sits at torch's Python API (``torch.matmul``, ``Tensor.sum_to_size``,
``torch.ops.aten.*_backward``...), the level burn_torch's op table and engine call, so a replay
calls exactly what eager called (a dispatch-level recording would see composite functions
decomposed differently than eager runs them, and lose bit-equality). Each call that returns
tensors becomes one entry ``(function, argument template, output slots)``. A template names a
tensor by its *slot* (an input of the call, or an earlier call's output) or holds a constant (a
tensor the call did not produce, such as a constant captured by ``fn``, or any non-tensor
argument). A call returning None (``__setitem__``) is an entry for its effect. Calls returning
only metadata (shapes, dtypes, strides, ``numel``) or reading a property that holds no tensor
(``_base`` of a non-view) are not entries;
a call that reads tensor data on the host (``item``, ``tolist``, ``__bool__``...) makes the
recording data-dependent: it is marked unreplayable.
"""
from __future__ import annotations

import threading

import torch
from torch.overrides import TorchFunctionMode
from torch.utils._pytree import tree_flatten

from .. import validate

_TorchTensor = torch.Tensor
# calls that return a Python value computed from tensor *data*: replay could not see it
HOST_READS = frozenset({"item", "tolist", "__bool__", "__int__", "__float__", "__index__",
                        "__complex__", "equal", "allclose", "is_nonzero", "numpy", "__array__",
                        "__format__", "__repr__", "__str__", "__reduce_ex__", "__getstate__"})


class Slot:
    """A tensor produced or received during the recorded call (index into the replay's values)."""

    __slots__ = ("index",)

    def __init__(self, index: int) -> None:
        self.index = index

    def __eq__(self, other) -> bool:
        return other.__class__ is Slot and other.index == self.index

    def __hash__(self) -> int:
        return hash(("slot", self.index))


def slot_uses(t, into: list) -> None:
    """Appends the index of every ``Slot`` in template ``t`` (nested tuples and lists) to
    ``into``, in order."""
    cls = t.__class__
    if cls is Slot:
        into.append(t.index)
    elif cls is tuple or cls is list:
        for x in t:
            slot_uses(x, into)


class Const:
    """A value the recorded call used but did not produce (held by reference)."""

    __slots__ = ("value",)

    def __init__(self, value) -> None:
        self.value = value

    def __eq__(self, other) -> bool:
        if other.__class__ is not Const:
            return False
        a, b = self.value, other.value
        if isinstance(a, _TorchTensor) or isinstance(b, _TorchTensor):
            return (isinstance(a, _TorchTensor) and isinstance(b, _TorchTensor)
                    and a.shape == b.shape and a.dtype == b.dtype and a.device == b.device
                    and bool(torch.equal(a, b)))
        return type(a) is type(b) and a == b

    def __hash__(self) -> int:
        return 0


# host reads replay can re-check: the same value means the step took the same path
GUARDABLE = frozenset({"item", "__bool__", "__int__", "__float__", "__index__", "is_nonzero",
                       "tolist"})
# calls whose result's *shape* depends on tensor values: later shapes would go unguarded
DATA_SHAPED = frozenset({"masked_select", "nonzero", "unique", "unique_consecutive",
                         "argwhere", "nonzero_static", "repeat_interleave"})

_active = threading.local()
_set_grad = torch._C._set_grad_enabled
_grad_enabled = torch.is_grad_enabled


def _range_guard(indices, dim_size) -> None:
    """``validate.range_guard`` while recording: the two host reads of an index range check
    become one guard (``0 <= indices < dim_size``) the replay re-checks."""
    rec = getattr(_active, "rec", None)
    if rec is not None and rec.unreplayable is None:
        rec.add(("range", rec.template(indices), dim_size))
        rec.covered_reads += 2


validate.range_guard = _range_guard


class Recording(TorchFunctionMode):
    """Records the kernels run while it is active. ``inputs``: the call's input storages
    (slots ``0..n-1``). After the call: ``entries``, ``slot_of`` (id of a live tensor → slot)
    and ``unreplayable`` (why replay cannot stand for this call, or None)."""

    def __init__(self, inputs) -> None:
        super().__init__()
        self.keep = list(inputs)          # every recorded tensor stays alive: ids stay unique
        self.slot_of = {id(t): i for i, t in enumerate(inputs)}
        self.n_slots = len(self.keep)
        self.entries: list = []
        self.unreplayable: str | None = None
        self.covered_reads = 0
        self.grad_modes: list = []        # torch's grad mode at each entry (kernels may branch on it)

    def __enter__(self):
        _active.rec = self
        return super().__enter__()

    def __exit__(self, *exc):
        _active.rec = None
        return super().__exit__(*exc)

    def template(self, value):
        if isinstance(value, _TorchTensor):
            s = self.slot_of.get(id(value))
            if s is None:
                self.keep.append(value)
                return Const(value)
            return Slot(s)
        if value.__class__ in (list, tuple):
            return value.__class__(self.template(v) for v in value)
        return Const(value)

    def __torch_function__(self, func, types, args=(), kwargs=None):
        kwargs = kwargs or {}
        out = func(*args, **kwargs)
        if self.unreplayable is None:
            self._record(func, args, kwargs, out)
        return out

    def _record(self, func, args, kwargs, out) -> None:
        leaves, _ = tree_flatten(out)
        if not any(isinstance(leaf, _TorchTensor) for leaf in leaves):
            name = getattr(func, "__name__", "")
            if name in HOST_READS:
                if self.covered_reads:
                    self.covered_reads -= 1         # part of a range guard
                elif name in GUARDABLE and len(args) == 1 and not kwargs:
                    # the step branched on this value: replay re-reads it and must see the same
                    self.add(("equal", self.template(args[0]), name, out))
                else:
                    self.unreplayable = (f"{name}() reads tensor data on the host: replay "
                                         "could not see what the step does with it")
                return
            if out is not None or func is _set_grad or name == "__get__":
                return                      # metadata (shape, dtype, numel...), grad mode (the
                                            # replay's tensors never require grad), a property
                                            # read that found no tensor (``t._base``)
            # None: a call for its effect (``out[idx] = values``): an entry without outputs
        if getattr(func, "__name__", "") in DATA_SHAPED:
            self.unreplayable = (f"{func.__name__}() gives a result whose shape depends on tensor "
                                 "values")
            return
        targs = tuple(self.template(a) for a in args)
        tkwargs = {k: self.template(v) for k, v in kwargs.items()}
        outs: list[int | None] = []
        for leaf in leaves:
            if isinstance(leaf, _TorchTensor):
                s = self.slot_of.get(id(leaf))
                if s is None:               # a new tensor (not an in-place result)
                    s = self.slot_of[id(leaf)] = self.n_slots
                    self.n_slots += 1
                    self.keep.append(leaf)
                    outs.append(s)
                else:
                    outs.append(-1 - s)     # the same object as an earlier slot
            else:
                outs.append(None)           # a non-tensor part of a mixed result
        shape = "single" if isinstance(out, _TorchTensor) or out is None else (
            "seq" if isinstance(out, (tuple, list)) and len(leaves) == len(out) else "tree")
        self.add((func, targs, tkwargs, tuple(outs), shape))

    def add(self, entry) -> None:
        self.entries.append(entry)
        self.grad_modes.append(_grad_enabled())


def signature(entries) -> tuple:
    """What two recordings must share to be the same plan (kernels, wiring, constants,
    guards; not the values guards read)."""
    return tuple(e[:3] if e[0] in ("range", "equal") else
                 (e[0], e[1], tuple(sorted(e[2].items())), e[3]) for e in entries)
