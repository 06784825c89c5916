"""The plan optimizer: what a replay may leave out of a recording without changing one bit of
what it returns or of any state it leaves behind.

* ``torch.ones_like``/``zeros_like``/``empty_like`` of a contiguous tensor read only its shape,
  dtype and device, which the plan's key fixes: they become ``torch.ones(shape, dtype=,
  device=)`` (and so on), so that the kernels computing their argument can go too. Backward's
  seed is ``ones_like(loss)``: a step returning gradients alone no longer computes its loss.
* A pure kernel all of whose arguments are constants runs once, when the plan is made, and its
  results become constants of the plan, when each is small (``FOLD_MAX_BYTES`` of storage: an
  expanded scalar is), and neither it nor any tensor sharing its storage is part of the result
  or written to in place: backward's seed and what the loss's backward makes of it (``ones``,
  divided by the element count, expanded) are computed once.
* Kernels whose results nothing reads (no later kernel, no guard, not the result) are dropped,
  when they are pure: not in place (a name ending in ``_``, an ``out=`` argument, a result that
  is an earlier tensor, a call for its effect such as ``__setitem__``) and not random (a random
  kernel advances the generator that later draws and the caller's next draws read).

What is dropped is the plan's business only: a plan's signature (what ``check_every`` compares)
is that of the recording as made.
"""
from __future__ import annotations

import torch

from ._record import Const, Slot, slot_uses

_LIKE = {"ones_like": torch.ones, "zeros_like": torch.zeros, "empty_like": torch.empty}
# substrings of the names of torch's random kernels (their draws advance a generator)
_RANDOM = ("rand", "bernoulli", "dropout", "normal", "multinomial", "poisson", "uniform",
           "exponential", "cauchy", "geometric", "rrelu")


def _name(func) -> str:
    return getattr(func, "__name__", "") or ""


def pure(entry) -> bool:
    """Whether a kernel entry ``(func, args, kwargs, outs, shape)`` only computes new tensors
    from its arguments (see the module docstring)."""
    func, _, kwargs, outs, _ = entry
    name = _name(func).split(".")[0]
    if not outs or any(s is not None and s < 0 for s in outs):
        return False          # a call for its effect, or one returning an earlier tensor
    if "out" in kwargs or "generator" in kwargs:
        return False
    if name.endswith("_") and not name.endswith("__"):
        return False          # in place (add_, copy_, _foreach_mul_ ...)
    if name.startswith("__i") or name == "__setitem__":
        return False          # augmented assignment, item assignment
    return not any(r in name for r in _RANDOM)


def _metadata_only(entry, values: dict):
    """``entry`` as a factory of its argument's metadata when it is a ``*_like`` call of a
    contiguous tensor with no other argument, else ``entry`` itself."""
    func, args, kwargs, outs, shape = entry
    factory = _LIKE.get(_name(func))
    if factory is None or kwargs or len(args) != 1 or args[0].__class__ is not Slot:
        return entry
    t = values.get(args[0].index)
    if t is None or t.layout is not torch.strided or not t.is_contiguous():
        return entry
    return (factory, (Const(tuple(t.shape)),), {"dtype": Const(t.dtype), "device": Const(t.device)},
            outs, shape)


# a constant folded into a plan holds its storage as long as the plan: only small ones (a
# kernel's per-call cost matters where its tensors are small; an expanded scalar always is)
FOLD_MAX_BYTES = 1 << 16


def _substitute(t, folded: dict):
    cls = t.__class__
    if cls is Slot:
        value = folded.get(t.index)
        return t if value is None else Const(value)
    if cls is tuple or cls is list:
        return cls(_substitute(x, folded) for x in t)
    return t


def _unsafe(entries, values: dict, result_slots) -> set:
    """The slots an entry may write to (the first argument of an impure call, its ``out=``, a
    result that is an earlier tensor), the result's, and every slot sharing storage with one
    (its views and bases: the recording keeps every tensor alive, so no two storages share an
    address): a constant must neither change nor reach the caller, who owns what it returns."""
    written: set = set(result_slots)
    for entry in entries:
        if entry[0] in ("range", "equal") or pure(entry):
            continue
        func, args, kwargs, outs, _ = entry
        hit: list = []
        if args:
            slot_uses(args[0], hit)
        slot_uses(kwargs.get("out", ()), hit)
        written.update(hit)
        written.update(-1 - s for s in outs if s is not None and s < 0)
    ptrs = {values[s].untyped_storage().data_ptr() for s in written if s in values}
    ptrs.discard(0)  # storage-less (empty) tensors share nothing
    return written | {s for s, t in values.items() if t.untyped_storage().data_ptr() in ptrs}


def _fold(entries: list, grad_modes: list, values: dict, n_inputs: int,
          result_slots) -> tuple[list, list]:
    """``entries`` less the pure kernels of constants (see the module docstring), later entries
    reading their results as constants."""
    unsafe = _unsafe(entries, values, result_slots)
    folded: dict = {}
    out_entries, out_modes = [], []
    for entry, mode in zip(entries, grad_modes):
        if entry[0] in ("range", "equal"):
            out_entries.append((entry[0], _substitute(entry[1], folded), *entry[2:]))
            out_modes.append(mode)
            continue
        func, args, kwargs, outs, shape = entry
        args = _substitute(args, folded)
        kwargs = {k: _substitute(v, folded) for k, v in kwargs.items()}
        entry = (func, args, kwargs, outs, shape)
        results = [values.get(o) for o in outs if o is not None]
        if (not _reads(entry) and pure(entry) and all(
                o is not None and o >= n_inputs and o not in unsafe
                for o in outs)
                and all(t is not None and t.untyped_storage().nbytes() <= FOLD_MAX_BYTES
                        for t in results)):
            for o in outs:
                folded[o] = values[o]
            continue
        out_entries.append(entry)
        out_modes.append(mode)
    return out_entries, out_modes


def _reads(entry) -> list:
    """The slots an entry reads (a guard's template, a kernel's arguments)."""
    used: list = []
    slot_uses(entry[1], used)
    if entry[0] not in ("range", "equal"):
        slot_uses(tuple(entry[2].values()), used)
    return used


def optimize(entries: list, grad_modes: list, values: dict, n_inputs: int,
             result_slots) -> tuple[list, list]:
    """The entries (and their grad modes) a replay runs: ``entries`` with ``*_like`` calls made
    metadata-only, kernels of constants folded and dead pure kernels dropped. ``values``: slot
    -> the tensor the recording saw there (slots below ``n_inputs`` are the call's inputs);
    ``result_slots``: the slots the result is built from."""
    entries = [e if e[0] in ("range", "equal") else _metadata_only(e, values) for e in entries]
    entries, grad_modes = _fold(entries, grad_modes, values, n_inputs, result_slots)
    live = set(result_slots)
    kept = []
    for pos in range(len(entries) - 1, -1, -1):
        entry = entries[pos]
        if entry[0] not in ("range", "equal") and pure(entry) and not any(
                s is not None and s in live for s in entry[3]):
            continue
        live.update(_reads(entry))
        kept.append(pos)
    kept.reverse()
    return [entries[i] for i in kept], [grad_modes[i] for i in kept]
