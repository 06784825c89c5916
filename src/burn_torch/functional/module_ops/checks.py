"""Argument checks shared by the ``tensor::module`` functions: each raises TypeError for a
wrong kind or type and ValueError naming the shapes, before anything is recorded.
"""
from __future__ import annotations

from collections import abc

from ...autodiff.recorder import apply3, applyn
from ...tensor import Tensor


def _ints(owner: str, field: str, value, minimum: int) -> tuple[int, ...]:
    """``value`` (a list or other sequence of ints, each ≥ ``minimum``) as a tuple; TypeError or
    ValueError naming ``owner`` and ``field`` otherwise. Plain lists and tuples take a fast path
    (this runs on every module-op call)."""
    kind = type(value)
    if kind is not tuple and kind is not list and (
            isinstance(value, (str, bytes)) or not isinstance(value, abc.Sequence)):
        raise TypeError(f"{owner}: {field} must be a list of ints, got {value!r}")
    for v in value:
        if type(v) is not int and (isinstance(v, bool) or not isinstance(v, int)):
            raise TypeError(f"{owner}: {field} must be a list of ints, got {value!r}")
    _check_min(owner, field, value, minimum)
    return value if kind is tuple else tuple(value)


def _check_min(owner: str, field: str, values, minimum: int) -> None:
    if min(values, default=minimum) < minimum:
        rule = "non-zero" if minimum == 1 else "non-negative"
        raise ValueError(f"{owner}: {field} must be {rule}, got {list(values)}")


def _same_length(owner: str, fields: dict) -> None:
    lengths = {len(v) for v in fields.values()}
    if len(lengths) != 1 or 0 in lengths:
        desc = ", ".join(f"{k}={list(v)}" for k, v in fields.items())
        raise ValueError(f"{owner}: {', '.join(fields)} must have the same non-zero length, "
                         f"got {desc}")


def _count(owner: str, field: str, value) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise TypeError(f"{owner}: {field} must be an int, got {value!r}")
    _check_min(owner, field, [value], 1)
    return value


def _freeze(obj, owner: str, spec: dict) -> None:
    """Normalises each list field (name → minimum) to a tuple and checks their lengths agree."""
    for field, minimum in spec.items():
        object.__setattr__(obj, field, _ints(owner, field, getattr(obj, field), minimum))
    _same_length(owner, {f: getattr(obj, f) for f in spec})


# ============================================================================ validation ====
def _float(what: str, name: str, t, rank: int | None, layout: str = "") -> None:
    """TypeError unless ``t`` is a Float Tensor; ValueError unless it has rank ``rank``."""
    if not isinstance(t, Tensor):
        raise TypeError(f"{what}: {name} must be a Tensor, got {type(t).__name__}")
    if not t._data.is_floating_point():
        raise TypeError(f"{what}: {name} must be a Float tensor, got {t.kind}")
    if rank is not None and t._data.dim() != rank:
        raise ValueError(f"{what}: {name} must have rank {rank}{layout}, "
                         f"got shape {list(t._data.shape)}")


def _shape(t) -> list[int]:
    return list(t._data.shape)


def _sizes(what: str, field: str, value, n: int, minimum: int) -> list[int]:
    """``value`` as a list of ``n`` ints ≥ ``minimum`` (an int is accepted when ``n`` is 1)."""
    if n == 1 and isinstance(value, int) and not isinstance(value, bool):
        value = [value]
    out = list(_ints(what, field, value, minimum))
    if len(out) != n:
        raise ValueError(f"{what}: {field} must have {n} entries, got {out}")
    return out


def _flag(what: str, field: str, value) -> bool:
    if not isinstance(value, bool):
        raise TypeError(f"{what}: {field} must be a bool, got {value!r}")
    return value


def _bias(what: str, bias, channels: int) -> None:
    if bias is None:
        return
    _float(what, "bias", bias, 1)
    if bias._data.shape[0] != channels:
        raise ValueError(f"{what}: bias must have shape [{channels}] (the output channels), "
                         f"got {_shape(bias)}")


def _biased(op, x, weight, bias, attrs=()):
    """Applies ``op`` to ``(x, weight)`` or, with a bias, to ``(x, weight, bias)``."""
    if bias is None:
        return applyn(op, (x, weight), attrs)
    return apply3(op, x, weight, bias, attrs)


def _describe(t) -> str:
    return f"a {t.kind} tensor" if isinstance(t, Tensor) else type(t).__name__


# ========================================================================== convolution ====
_SPATIAL = {1: " [batch, channels, length]", 2: " [batch, channels, height, width]",
            3: " [batch, channels, depth, height, width]"}
