"""Argument validation at the public boundary, shared by every tensor method, constructor,
config and optimizer.

The exception-type rule, followed by the whole package:

- ``TypeError``: an argument of the wrong type: a float, bool, None or str where a dim, size or
  index is expected (``flip(1.5)``, ``zeros([2.5])``), a str where a number is expected
  (``powf_scalar("2")``), a numpy array or torch tensor where a Tensor is expected, a tensor of
  the wrong kind or dtype.
- ``ValueError``: a value of the right type that is not acceptable: a size below its minimum
  (``LinearConfig(0, 2).init(...)``), shapes or ranks that do not fit (a rank-2 input to
  ``Conv2d``), a malformed file.
- ``IndexError``: an int out of range: a dim beyond the rank, an index beyond a dim's size
  (``select``, ``gather``, ``scatter``, ``Embedding``).
- ``burn_torch.AutodiffError`` subclasses: autodiff misuse (see ``burn_torch.errors``).

Messages name the op, the argument and what was received. Every check runs before anything
is recorded or mutated. Fast paths stay fast: the operators (``a + b``, ``@``) and the layers'
forward passes check nothing beyond their type tests; a dim goes through an inline test
(``type(d) is int`` and a range comparison, in ``TensorBase._dim``) and reaches this module
only when that test fails; other arguments cost one O(1) call each (``integer`` returns at
once for a plain int). Index ranges cost one min/max reduction, on CPU indices only.
"""
from __future__ import annotations

import numbers
import operator
from typing import Any, Sequence

import torch

# Set by ``burn_torch.capture`` while it records a step: ``range_guard(indices, dim_size)`` notes
# that the host reads of the range check below are a guard replay must re-check (None otherwise).
range_guard = None


def _at_least(minimum: int) -> str:
    return {0: "non-negative", 1: "positive (at least 1)"}.get(minimum, f"at least {minimum}")


def _received(value: Any) -> str:
    text = repr(value)
    if len(text) > 60:
        text = text[:57] + "..."
    return f"{text} ({type(value).__name__})"


def type_name(value: Any) -> str:
    """How a message names what it received where a burn_torch Tensor was expected: a torch
    tensor or numpy array is named by its library, with the conversion to write ("got Tensor"
    would name neither library); anything else by its type's name."""
    if isinstance(value, torch.Tensor):
        return "a torch.Tensor (wrap it with burn_torch.compat.from_torch(t, device), zero-copy)"
    if type(value).__module__ == "numpy" and type(value).__name__ == "ndarray":
        return "a numpy.ndarray (convert it with Tensor.from_data(array, device))"
    return type(value).__name__


def integer(op: str, arg: str, value: Any) -> int:
    """``value`` as a Python int: ints and integer scalars (numpy, 0-d Int tensors) pass;
    TypeError for bools, floats, None, strings and anything else."""
    if value.__class__ is int:
        return value
    if isinstance(value, bool):
        raise TypeError(f"{op}: {arg} must be an int, got the bool {value!r}")
    try:
        return operator.index(value)
    except TypeError:
        raise TypeError(f"{op}: {arg} must be an int, got {_received(value)}") from None


def dim(op: str, rank: int, value: Any, arg: str = "dim", shape: Sequence[int] | None = None) -> int:
    """The dim ``value`` of a tensor of ``rank``, normalised to ``0..rank`` (negative dims count
    from the end, as Burn's). TypeError for a non-int, IndexError out of range."""
    d = integer(op, arg, value)
    if not -rank <= d < rank:
        where = f" (shape {list(shape)})" if shape is not None else ""
        allowed = f"-{rank}..{rank - 1}" if rank else "none: the tensor has rank 0"
        raise IndexError(f"{op}: dimension {d} is out of range for a tensor of rank {rank}{where} "
                         f"(argument {arg}; allowed: {allowed})")
    return d + rank if d < 0 else d


def size(op: str, arg: str, value: Any, minimum: int = 0) -> int:
    """An int ``>= minimum``: TypeError for a non-int, ValueError below ``minimum``."""
    n = integer(op, arg, value)
    if n < minimum:
        raise ValueError(f"{op}: {arg} must be {_at_least(minimum)}, got {n}")
    return n


def shape(op: str, dims: Any, arg: str = "shape", minimum: int = 0) -> list[int]:
    """A shape: a sequence of ints ``>= minimum``. TypeError for a non-sequence or a non-int
    entry (``[2.5]``), ValueError for an entry below ``minimum``."""
    cls = dims.__class__
    if cls is list or cls is tuple or cls is torch.Size:
        for d in dims:
            if d.__class__ is not int or d < minimum:
                break
        else:
            return list(dims)  # the common case: plain ints, nothing to convert or report
    if isinstance(dims, (str, bytes)) or not hasattr(dims, "__iter__"):
        raise TypeError(f"{op}: {arg} must be a sequence of ints, got {_received(dims)}")
    dims = list(dims)
    out = []
    for i, d in enumerate(dims):
        n = integer(op, f"{arg}[{i}]", d)
        if n < minimum:
            raise ValueError(f"{op}: {arg}[{i}] must be {_at_least(minimum)}, got {n} "
                             f"({arg} {list(dims)})")
        out.append(n)
    return out


def reshape_dims(op: str, dims: Any, current: Sequence[int]) -> list[int]:
    """Burn's signed reshape arguments resolved against the ``current`` shape: ``0`` keeps the
    size of the dim at the same position, one ``-1`` is inferred (left for the kernel). TypeError
    for a non-int entry, ValueError for an entry below -1, a second -1, or a 0 past the current
    rank."""
    out = shape(op, dims, "dims", minimum=-1)
    if out.count(-1) > 1:
        raise ValueError(f"{op}: at most one -1 is allowed in dims, got {out}")
    if 0 not in out:
        return out
    for i, n in enumerate(out):
        if n == 0:
            if i >= len(current):
                raise ValueError(f"{op}: dims[{i}] is 0 (keep the current size), but the tensor "
                                 f"has only {len(current)} dims (shape {list(current)})")
            out[i] = current[i]
    return out


def real(op: str, arg: str, value: Any) -> float | int:
    """A real Python number (bools count as ints, as in Python). TypeError otherwise (strings,
    complex numbers, tensors, None)."""
    if isinstance(value, numbers.Real):
        # a Real is an int or a float here (numpy's and torch's scalars have item())
        return value.item() if hasattr(value, "item") else value  # type: ignore[return-value]
    raise TypeError(f"{op}: {arg} must be a real number, got {_received(value)}")


def optional_real(op: str, arg: str, value: Any) -> float | int | None:
    """``real``, or None."""
    return None if value is None else real(op, arg, value)


def indices_in_range(op: str, d: int, indices: torch.Tensor, dim_size: int,
                     shape: Sequence[int] | None = None) -> None:
    """IndexError unless every entry of ``indices`` lies in ``0..dim_size`` (one min/max
    reduction). Checked for CPU indices only: on an accelerator the check would stall the
    stream, and torch's own device assertion applies."""
    if not indices.is_cpu or not indices.numel():
        return
    if range_guard is not None:
        range_guard(indices, dim_size)
    lowest, highest = torch.aminmax(indices)
    low, high = int(lowest), int(highest)
    if low < 0 or high >= dim_size:
        bad = low if low < 0 else high
        where = f"; tensor shape {list(shape)}" if shape is not None else ""
        raise IndexError(f"{op}: index {bad} is out of range for dim {d} of size {dim_size}: "
                         f"indices must lie in 0..{dim_size} (got {low}..{high}{where})")


def rank(op: str, arg: str, t: Any, expected: int, layout: str = "") -> None:
    """ValueError unless the tensor ``t`` has rank ``expected``."""
    got = t._data.dim()
    if got != expected:
        raise ValueError(f"{op}: {arg} must have rank {expected}{layout}, got rank {got} "
                         f"(shape {list(t._data.shape)})")


def config_sizes(config: Any, *fields: str, minimum: int = 1) -> None:
    """Checks that each of ``config``'s ``fields`` is an int ``>= minimum`` (or a sequence of
    them), naming ``<ConfigClass>.init`` and the field in the error."""
    op = f"{type(config).__name__}.init"
    for field in fields:
        value = getattr(config, field)
        if isinstance(value, (list, tuple)):
            shape(op, value, field, minimum)
        else:
            size(op, field, value, minimum)


def probability(op: str, arg: str, value: Any) -> float:
    """A real number in ``[0, 1]``: TypeError for a non-number, ValueError outside."""
    p = real(op, arg, value)
    if not 0.0 <= p <= 1.0:
        raise ValueError(f"{op}: {arg} must be between 0 and 1, got {p}")
    return p
