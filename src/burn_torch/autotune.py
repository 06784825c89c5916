"""Kernel autotuning, as Burn's autotune: where torch has several kernels computing the same
values, the first call with a given key times each of them on that call's own arguments, and
every later call with the key runs the fastest.

The op table declares the choices (``Tunable``): today 1-D and 2-D convolutions (torch's
default ``convolution`` dispatch, which runs oneDNN on CPU float32, or the ``_slow_conv2d``
im2col+GEMM kernels, several times faster for few input channels or small images), their
backward likewise, 1-D and 2-D max pooling and average pooling, average pooling's backward (the
NCHW kernel, or the channels-last kernel behind a layout conversion: both give identical values
and indices), and ``linear`` on an input whose leading dims are not contiguous (a batch-first
RNN output: torch's per-batch GEMM, or a copy and one GEMM). Candidates compute the same
mathematical values; a convolution's candidates may
round float32 sums in a different order, like torch's own backend choices. Pooling is exact
whichever runs.

A candidate that needs temporary memory torch's kernel does not (an im2col buffer, a
channels-last copy) is offered only when that memory is at most 16 MiB, so tuning never costs a
large input more memory. The first call of each key pays for the timing: one warm-up run of every
candidate, then alternating rounds filling about 20 ms per candidate (at most 20 rounds, at
least one), as Burn's autotune pays on its cold start.

Tuning happens only for plain CPU tensors (not tensor subclasses, not other devices: CUDA has
its own ``cudnn.benchmark``); it runs with torch function and dispatch modes suspended, so a
capture recording (``burn_torch.capture``) or a user's mode sees only the chosen kernel. Choices
are cached per process, keyed on what decides the speed (input shapes rounded up to powers of
two, so that similar sizes — a variable sequence length, a smaller last batch — share one
tuning, as Burn anchors its keys; weight shapes, strides where the kernel depends on them, the
op's attributes, dtype, torch's thread count); gradients of a captured step and of
BALANCED checkpointing's recomputation use the same cached choice as eager, so they stay
bit-equal to it (switching tuning, clearing or loading choices makes a captured step record
again). The cache can be saved and loaded ([`save`][burn_torch.autotune.save],
[`load`][burn_torch.autotune.load]: Burn caches its choices on disk so that a deployment does not
re-tune), inspected ([`choices`][burn_torch.autotune.choices]), cleared
([`clear`][burn_torch.autotune.clear]), and tuning switched off
([`set_enabled`][burn_torch.autotune.set_enabled], or the environment variable
``BURN_TORCH_AUTOTUNE=0`` at import): every op then runs torch's default kernel, bit-equal to the
same torch call. Tuning is also off while torch's deterministic mode is on
(``torch.use_deterministic_algorithms(True)``): a choice made by timing could differ from one run to
the next, which that mode promises not to do.
"""
from __future__ import annotations

import json
import os

import torch

from .atomic_file import atomic_write_bytes
from .ops import tuning

__all__ = ["enabled", "set_enabled", "choices", "clear", "save", "load"]

_FORMAT = "burn_torch-autotune-1"


def enabled() -> bool:
    """Whether tunable ops pick their kernel by timing (the default) or always run torch's
    default kernel."""
    return tuning.enabled


def set_enabled(flag: bool) -> None:
    """Switches tuning on or off for the whole process. Off, every tunable op runs torch's default
    kernel (results bit-equal to the same torch call); cached choices are kept for when it is
    switched on again. Raises TypeError for a non-bool."""
    if flag.__class__ is not bool:
        raise TypeError(f"autotune.set_enabled: flag must be a bool, got {flag!r}")
    if flag is not tuning.enabled:
        tuning.enabled = flag
        tuning.generation += 1


def choices() -> dict[str, dict[tuple, str]]:
    """The cached choices: tunable name → {key: chosen kernel's name}."""
    return {t.name: {k: t.names[i] for k, i in t.cache.items()}
            for t in tuning.TUNABLES.values()}


def clear() -> None:
    """Forgets every cached choice: the next call of each key tunes again."""
    for t in tuning.TUNABLES.values():
        t.cache.clear()
    tuning.generation += 1


def save(path: "str | os.PathLike") -> None:
    """Writes every cached choice to ``path`` (JSON, written atomically), for
    [`load`][burn_torch.autotune.load] in another process. Raises OSError when the file cannot be
    written (the old file is then untouched)."""
    entries = [{"op": t.name, "key": _encode(k), "kernel": t.names[i]}
               for t in tuning.TUNABLES.values() for k, i in t.cache.items()]
    atomic_write_bytes(path, json.dumps({"format": _FORMAT, "torch": torch.__version__,
                                         "entries": entries}).encode())


def load(path: "str | os.PathLike") -> int:
    """Adds the choices saved in ``path`` to the cache (replacing choices for the same keys);
    returns how many were loaded. Choices made with another torch version load too (the kernels'
    speeds rarely change ranks); re-tune with [`clear`][burn_torch.autotune.clear] if they did.

    Raises OSError when the file cannot be read, and ValueError naming the file when it is not a
    saved autotune cache or names an op or kernel this version does not have (nothing is loaded
    then)."""
    raw = open(path, "rb").read()
    try:
        doc = json.loads(raw)
        if doc.get("format") != _FORMAT:
            raise ValueError("not a burn_torch autotune cache")
        staged = []
        for e in doc["entries"]:
            tunable = tuning.TUNABLES.get(e["op"])
            if tunable is None or e["kernel"] not in tunable.names:
                raise ValueError(f"unknown op or kernel {e['op']!r}/{e['kernel']!r}")
            staged.append((tunable, _decode(e["key"]), tunable.names.index(e["kernel"])))
    except (ValueError, KeyError, TypeError, AttributeError) as err:
        raise ValueError(f"autotune.load: {os.fspath(path)!r}: {err}") from None
    for tunable, key, index in staged:
        tunable.cache[key] = index
    tuning.generation += 1
    return len(staged)


def _encode(value):
    """A key as JSON: tuples as lists, dtypes as ``{"dtype": name}``."""
    if isinstance(value, tuple):
        return [_encode(v) for v in value]
    if isinstance(value, torch.dtype):
        return {"dtype": str(value).removeprefix("torch.")}
    return value


def _decode(value):
    """The inverse of ``_encode``; raises ValueError for what no key holds."""
    if isinstance(value, list):
        return tuple(_decode(v) for v in value)
    if isinstance(value, dict):
        dtype = getattr(torch, str(value.get("dtype")), None)
        if not isinstance(dtype, torch.dtype):
            raise ValueError(f"bad dtype in key: {value!r}")
        return dtype
    if value is None or isinstance(value, (bool, int, str)):
        return value
    raise ValueError(f"bad key value {value!r}")
