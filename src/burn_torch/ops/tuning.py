"""The op table's tunable kernels: the mechanism behind ``burn_torch.autotune`` (which holds the
controls, the persistence and the documentation of what is tuned and why).

A ``Tunable`` is an op's set of interchangeable kernels; calling it with a key runs the
kernel chosen for that key, timing every candidate on the first call's own arguments. Keys hold
input shapes ``anchored`` to powers of two. The module globals ``enabled`` (tuning on or off)
and ``TUNABLES`` (every tunable by name) are read and set by ``burn_torch.autotune``, which
increments ``generation`` whenever a key's kernel may change (switching tuning, clearing or
loading choices): ``burn_torch.capture`` keys its plans on it (and on torch's deterministic mode,
under which every tunable runs torch's default), so that a replay never runs a kernel that eager
would no longer choose.
"""
from __future__ import annotations

import os
import time
from typing import Callable

import torch
from torch.utils._python_dispatch import _disable_current_modes

_TorchTensor = torch.Tensor
_deterministic = torch.are_deterministic_algorithms_enabled
_clock = time.perf_counter
_MAX_ROUNDS = 20  # timed rounds after one warm-up run of each candidate (the minimum counts)
_BUDGET_S = 0.02  # rounds fill about this long per candidate (at least one; short kernels: 20)
_INF = float("inf")
_MARGIN = 0.9  # another kernel replaces torch's default only when at least 10% faster
# the most temporary memory a candidate may need beyond torch's default kernel (an im2col buffer,
# a channels-last copy): ops offer their other candidates only below it, so that tuning never
# costs a large input more memory than torch would use
MAX_EXTRA_BYTES = 16 << 20
TUNABLES: dict[str, "Tunable"] = {}
generation = 0
enabled = os.environ.get("BURN_TORCH_AUTOTUNE", "1").strip().lower() not in ("0", "false", "off",
                                                                               "no")


def anchored(shape) -> tuple:
    """``shape`` with every size rounded up to a power of two: the key part for an input's
    shape, so that inputs of similar sizes (a variable sequence length, a last smaller batch)
    share one tuning instead of each paying for its own, as Burn's autotune anchors its keys."""
    return tuple([1 << (n - 1).bit_length() if n > 1 else n for n in shape])


class Tunable:
    """An op's interchangeable kernels: ``candidates`` maps a name to a function, all taking the
    same arguments and returning the same values; the first is torch's default, run whenever
    tuning is off, torch's deterministic mode is on (``torch.use_deterministic_algorithms``: a
    choice made by timing could differ between runs) or the arguments are not plain CPU
    tensors. Calling the tunable runs the cached choice for ``key`` (tuning on a miss)."""

    __slots__ = ("name", "names", "kernels", "cache")

    def __init__(self, name: str, candidates: dict[str, Callable]) -> None:
        if name in TUNABLES:
            raise ValueError(f"autotune: a tunable named {name!r} already exists")
        self.name = name
        self.names = tuple(candidates)
        self.kernels = tuple(candidates.values())
        self.cache: dict[tuple, int] = {}
        TUNABLES[name] = self

    def __call__(self, key: tuple, *args):
        """Runs the chosen kernel on ``args``; returns what it returns. ``key`` must hold every
        property of ``args`` that the kernels' speed depends on (hashable values only). A chosen
        kernel that raises RuntimeError is replaced by torch's default for the key (whose error,
        if it raises too, propagates)."""
        if not enabled or _deterministic():
            return self.kernels[0](*args)
        choice = self.cache.get(key)
        if choice is None:
            choice = self._tune(key, args)
        if choice:
            try:
                return self.kernels[choice](*args)
            except RuntimeError:  # a choice that cannot run these arguments (a loaded cache's):
                self.cache[key] = 0  # torch's default from now on, which raises if they are bad
        return self.kernels[0](*args)

    def _tune(self, key: tuple, args: tuple) -> int:
        """Times every candidate on ``args`` (torch function and dispatch modes suspended, so
        nothing records the trial runs), caches and returns the fastest one's index (torch's
        default unless another is at least 10% faster). A candidate that raises RuntimeError is
        out; if the default raises, its error propagates (the op would have raised it anyway).
        Arguments other than plain CPU tensors are not tuned: index 0, not cached."""
        for a in args:
            if isinstance(a, _TorchTensor) and (a.__class__ is not _TorchTensor
                                                or a.device.type != "cpu"):
                return 0
        with torch._C.DisableTorchFunction(), _disable_current_modes():
            seconds = _time(self.kernels, args)
        best = min(range(len(seconds)), key=seconds.__getitem__)
        if seconds[best] > _MARGIN * seconds[0]:
            best = 0  # a near tie: torch's default (timings of big kernels vary by more)
        self.cache[key] = best
        return best


def _time(kernels: tuple, args: tuple) -> list[float]:
    """Each kernel's fastest run on ``args``, in seconds (infinite for a kernel that raises
    RuntimeError; the first kernel's error propagates). Every kernel runs once to warm up, then
    the kernels run in turn, round after round, so that each is timed in the same state of the
    memory allocator (a kernel timed alone may pay for fresh pages that a step would not)."""
    runnable = []
    slowest = 0.0
    for i, kernel in enumerate(kernels):
        t0 = _clock()
        try:
            kernel(*args)
        except RuntimeError:
            if i == 0:
                raise
            continue
        runnable.append(i)
        slowest = max(slowest, _clock() - t0)
    seconds = [_INF] * len(kernels)
    for _ in range(max(1, min(_MAX_ROUNDS, int(_BUDGET_S / max(slowest, 1e-9))))):
        for i in runnable:
            t0 = _clock()
            kernels[i](*args)
            seconds[i] = min(seconds[i], _clock() - t0)
    return seconds


