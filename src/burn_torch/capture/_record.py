"""Recording: every torch kernel a call runs, seen through a ``TorchDispatchMode``.

Each kernel call becomes one entry ``(kernel, argument template, output slots)``. A template
names a tensor by its *slot* (an input of the call, or an earlier kernel's output) or holds a
constant (a tensor the call did not produce, such as a constant captured by ``fn``, or any
non-tensor argument). A kernel whose result is a Python value (``.item()``, ``.tolist()``,
comparisons read on the host) makes the recording data-dependent: it is marked unreplayable.
"""
from __future__ import annotations

import torch
from torch.utils._python_dispatch import TorchDispatchMode
from torch.utils._pytree import tree_flatten

_TorchTensor = torch.Tensor


class Slot:
    """A tensor produced or received during the recorded call (index into the replay's values)."""

    __slots__ = ("index",)

    def __init__(self, index: int) -> None:
        self.index = index

    def __eq__(self, other) -> bool:
        return other.__class__ is Slot and other.index == self.index

    def __hash__(self) -> int:
        return hash(("slot", self.index))


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


class Recording(TorchDispatchMode):
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

    def __torch_dispatch__(self, func, types, args=(), kwargs=None):
        kwargs = kwargs or {}
        out = func(*args, **kwargs)
        if self.unreplayable is None:
            self._record(func, args, kwargs, out)
        return out

    def _record(self, func, args, kwargs, out) -> None:
        if func.namespace != "aten":
            self.unreplayable = f"kernel {func} is not an aten kernel"
            return
        targs = tuple(self.template(a) for a in args)
        tkwargs = {k: self.template(v) for k, v in kwargs.items()}
        leaves, _ = tree_flatten(out)
        outs = []
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
            elif leaf is not None:
                self.unreplayable = (f"kernel {func} returned a Python value ({type(leaf).__name__})"
                                     ": the call reads tensor data on the host")
                return
            else:
                outs.append(None)
        shape = "single" if isinstance(out, _TorchTensor) else "seq"
        self.entries.append((func, targs, tkwargs, tuple(outs), shape))


def signature(entries) -> tuple:
    """What two recordings must share to be the same plan (kernels, wiring, constants)."""
    return tuple((func, targs, tuple(sorted(tkwargs.items())), outs)
                 for func, targs, tkwargs, outs, _ in entries)
