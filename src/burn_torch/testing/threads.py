"""Small checks run on one torch intra-op thread.

Torch parallelises some kernels over rows whatever the size (layer norm, some reductions and
their backward kernels): on tensors of a few elements each such call opens a parallel region
whose other threads must each get a core. On a machine busy with other work (a CI runner, a
parallel test session) a core comes back only after a scheduler time slice, so one small check
of a layer norm took 28 ms of CPU and 115-195 ms of wall time with two threads against 1.5 ms
and 14-18 ms with one (benchmarks/testing_kit_speed.py, load 15 on 2 cores). The kit's checks
therefore run with ``torch.set_num_threads(1)`` (restored afterwards) when their arguments hold at
most ``SMALL_CHECK_ELEMENTS`` elements in all (a module's parameters included); larger checks
keep the process's setting. The setting is process-wide: checks run concurrently from several
Python threads see each other's.
"""
from __future__ import annotations

import functools
from typing import Callable, TypeVar

import numpy as np
import torch

from ..module import Module
from ..tensor import Tensor
from .inputs import Const

#: Arguments with at most this many elements in all run on one intra-op thread.
SMALL_CHECK_ELEMENTS = 1 << 16

_get_threads = torch.get_num_threads
_set_threads = torch.set_num_threads
Check = TypeVar("Check", bound=Callable)


def elements(value) -> int:
    """How many elements an argument of a check holds: an array, nested lists, a torch or
    burn_torch tensor, a [`Const`][burn_torch.testing.inputs.Const], a module's parameters; 0 for
    anything else (functions)."""
    if isinstance(value, Const):
        value = value.value
    if isinstance(value, torch.Tensor):
        return value.numel()
    if isinstance(value, Tensor):
        return value.to_torch().numel()
    if isinstance(value, torch.nn.Module):
        return sum(p.numel() for p in value.parameters())
    if isinstance(value, Module):
        return value.num_params()
    if isinstance(value, (np.ndarray, list, tuple, float, int)):
        return int(np.size(value))
    return 0


def one_thread_when_small(check: Check) -> Check:
    """``check`` run with one torch intra-op thread when its positional arguments hold at most
    ``SMALL_CHECK_ELEMENTS`` elements (see the module docstring); returns what it returns
    and raises what it raises."""
    @functools.wraps(check)
    def run(*args, **kwargs):
        __tracebackhide__ = True
        threads = _get_threads()
        if threads == 1 or sum(elements(a) for a in args) > SMALL_CHECK_ELEMENTS:
            return check(*args, **kwargs)
        _set_threads(1)
        try:
            return check(*args, **kwargs)
        finally:
            _set_threads(threads)
    return run  # type: ignore[return-value]  # functools.wraps keeps check's signature
