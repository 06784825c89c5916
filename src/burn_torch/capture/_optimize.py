"""The plan optimizer: what a replay may leave out of a recording without changing one bit of
what it returns or of any state it leaves behind.

* ``torch.ones_like``/``zeros_like``/``empty_like`` of a contiguous tensor read only its shape,
  dtype and device, which the plan's key fixes: they become ``torch.ones(shape, dtype=,
  device=)`` (and so on), so that the kernels computing their argument can go too. Backward's
  seed is ``ones_like(loss)``: a step returning gradients alone no longer computes its loss.
* Kernels whose results nothing reads (no later kernel, no guard, not the result) are dropped,
  when they are pure: not in place (a name ending in ``_``, an ``out=`` argument, a result that
  is an earlier tensor, a call for its effect such as ``__setitem__``) and not random (a random
  kernel advances the generator that later draws and the caller's next draws read).

What is dropped is the plan's business only: a plan's signature (what ``check_every`` compares)
is that of the recording as made.
"""
from __future__ import annotations

import torch

from ._record import Const, Slot

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


def _reads(entry, into: set) -> None:
    def walk(t):
        cls = t.__class__
        if cls is Slot:
            into.add(t.index)
        elif cls is tuple or cls is list:
            for x in t:
                walk(x)
    walk(entry[1])
    if entry[0] not in ("range", "equal"):
        walk(tuple(entry[2].values()))


def optimize(entries: list, grad_modes: list, values: dict, result_slots) -> tuple[list, list]:
    """The entries (and their grad modes) a replay runs: ``entries`` with ``*_like`` calls made
    metadata-only and dead pure kernels dropped. ``values``: slot -> the tensor the recording
    saw there; ``result_slots``: the slots the result is built from."""
    entries = [e if e[0] in ("range", "equal") else _metadata_only(e, values) for e in entries]
    live = set(result_slots)
    kept = []
    for pos in range(len(entries) - 1, -1, -1):
        entry = entries[pos]
        if entry[0] not in ("range", "equal") and pure(entry) and not any(
                s is not None and s in live for s in entry[3]):
            continue
        _reads(entry, live)
        kept.append(pos)
    kept.reverse()
    return [entries[i] for i in kept], [grad_modes[i] for i in kept]
