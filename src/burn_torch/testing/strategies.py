"""Hypothesis strategies for property tests of burn_torch code (needs ``hypothesis``).

Two kinds of arrays:

* :func:`edge_arrays`, :func:`clamp_arrays`, :func:`repeated_indices`: every value drawn by
  hypothesis, so they contain the points where gradients are decided (zeros, exact ties, clamp
  bounds, kinks, repeated indices), hypothesis shrinks the values themselves (towards 0 and
  towards fewer distinct values) and a failing example shows the arrays;
* :func:`float_arrays`, :func:`index_arrays`, :func:`masks`: values from a numpy generator
  seeded by hypothesis (fast for any size, away from edges on request; hypothesis shrinks the
  shape and the seed).

Every strategy takes concrete shapes except :func:`float_arrays` and :func:`edge_arrays`, which
also accept a strategy of shapes.

Examples::

    float_arrays(shape)                         # values in [-2, 2)
    float_arrays(shape, 0.5, 2.0)               # log, sqrt, powf bases: away from 0
    float_arrays(shape, -2.0, 2.0, avoid=0.0)   # divisors, recip: |v| >= 0.25
    float_arrays(shape, distinct=True)          # max/min/sort: no ties
    edge_arrays(shape)                          # zeros and exact ties inside the array
    edge_arrays(shape, edges=(0.0, 1.0))        # ... and values at a kink at 1
    clamp_arrays(shape, -1.0, 1.0)              # values at the bounds
    repeated_indices(shape, dim)                # scatter/gather indices that repeat
"""
from __future__ import annotations

from typing import Sequence

import numpy as np
from hypothesis import strategies as st
from hypothesis.strategies import SearchStrategy

from burn_torch_pytest.profiles import register_hypothesis_profiles

register_hypothesis_profiles()  # settings.load_profile("burn_torch-ci") works once this is imported

Shape = tuple

_seeds = st.integers(0, 2**32 - 1)


def shapes(min_rank: int = 1, max_rank: int = 4, min_side: int = 1,
           max_side: int = 5) -> SearchStrategy[Shape]:
    """Tuples of ``min_rank..max_rank`` dims, each in ``min_side..max_side``."""
    return st.lists(st.integers(min_side, max_side), min_size=min_rank, max_size=max_rank).map(tuple)


def broadcastable_shapes(shape: Sequence[int]) -> SearchStrategy[Shape]:
    """Shapes of the same rank as ``shape`` that broadcast to it: each dim is ``shape``'s or 1
    (Burn broadcasts only between tensors of equal rank). Shrinks towards ``shape`` itself."""
    shape = tuple(shape)
    flags = st.lists(st.booleans(), min_size=len(shape), max_size=len(shape))
    return flags.map(lambda ones: tuple(1 if one else d for one, d in zip(ones, shape)))


@st.composite
def broadcastable_pairs(draw, min_rank: int = 1, max_rank: int = 4, min_side: int = 1,
                        max_side: int = 5) -> tuple[Shape, Shape]:
    """Two shapes of equal rank that broadcast together (either side may have the 1s)."""
    base = draw(shapes(min_rank, max_rank, min_side, max_side))
    return draw(broadcastable_shapes(base)), draw(broadcastable_shapes(base))


def dims(rank: int) -> SearchStrategy[int]:
    """A dim index of a rank-``rank`` tensor, negative (counted from the end) or not."""
    return st.integers(-rank, rank - 1)


def _allowed(low: float, high: float, avoid: Sequence[float], margin: float) -> list[tuple[float, float]]:
    intervals = [(low, high)]
    for a in avoid:
        cut = []
        for lo, hi in intervals:
            if lo < a - margin:
                cut.append((lo, min(hi, a - margin)))
            if hi > a + margin:
                cut.append((max(lo, a + margin), hi))
        intervals = cut
    if not intervals:
        raise ValueError(f"no values left in [{low}, {high}) avoiding {list(avoid)} by {margin}")
    return intervals


def _place(positions: np.ndarray, intervals: list[tuple[float, float]]) -> np.ndarray:
    """Maps positions in [0, total length) monotonically onto the allowed intervals."""
    out = np.empty_like(positions)
    offset = 0.0
    for i, (lo, hi) in enumerate(intervals):
        width = hi - lo
        last = i == len(intervals) - 1
        sel = (positions >= offset) & ((positions < offset + width) | last)
        out[sel] = lo + np.minimum(positions[sel] - offset, width)
        offset += width
    return out


def float_arrays(shape, low: float = -2.0, high: float = 2.0, *, avoid: float | Sequence[float] = (),
                 margin: float = 0.25, distinct: bool = False,
                 dtype=np.float64) -> SearchStrategy[np.ndarray]:
    """Float arrays of ``shape`` (a tuple or a strategy of tuples) with values in ``[low, high)``,
    at least ``margin`` away from every value in ``avoid`` (poles and zeros: ``avoid=0.0`` for
    divisors). ``distinct=True``: pairwise distinct values spread over the range (no ties for
    max/min/argmax). Raises ValueError when ``avoid`` leaves no values."""
    avoid = (avoid,) if isinstance(avoid, (int, float)) else tuple(avoid)
    intervals = _allowed(float(low), float(high), avoid, margin)
    total = sum(hi - lo for lo, hi in intervals)
    shape_st = shape if isinstance(shape, SearchStrategy) else st.just(tuple(shape))

    def build(args) -> np.ndarray:
        shape, seed = args
        rng = np.random.default_rng(seed)
        n = int(np.prod(shape, dtype=np.int64))
        if distinct:
            step = total / max(n, 1)
            positions = (rng.permutation(n) + 0.25 + 0.5 * rng.random(n)) * step
        else:
            positions = rng.random(n) * total
        return _place(positions, intervals).reshape(shape).astype(dtype)

    return st.tuples(shape_st, _seeds).map(build)


def index_arrays(shape: Sequence[int], dim: int, *, mode: str = "gather", min_len: int = 1,
                 max_len: int = 5) -> SearchStrategy[np.ndarray]:
    """Int64 indices into dim ``dim`` (negative allowed) of a tensor of ``shape``, repeats allowed.

    ``mode="gather"``: ``shape`` with dim ``dim`` resized to ``min_len..max_len`` (gather,
    scatter). ``mode="select"``: 1-D of length ``min_len..max_len`` (select, select_assign).
    Raises ValueError for an unknown mode or an out-of-range dim.
    """
    shape = tuple(shape)
    if mode not in ("gather", "select"):
        raise ValueError(f"mode must be 'gather' or 'select', got {mode!r}")
    if not -len(shape) <= dim < len(shape):
        raise ValueError(f"dim {dim} out of range for shape {list(shape)}")
    dim %= len(shape)
    size = shape[dim]

    def build(args) -> np.ndarray:
        k, seed = args
        ishape = (k,) if mode == "select" else shape[:dim] + (k,) + shape[dim + 1:]
        return np.random.default_rng(seed).integers(0, size, ishape, dtype=np.int64)

    return st.tuples(st.integers(min_len, max_len), _seeds).map(build)


def masks(shape: Sequence[int]) -> SearchStrategy[np.ndarray]:
    """Bool arrays of ``shape``; the share of True values is drawn (half, few, many, none, all)."""
    shape = tuple(shape)

    def build(args) -> np.ndarray:
        p, seed = args
        return np.random.default_rng(seed).random(shape) < p

    return st.tuples(st.sampled_from([0.5, 0.2, 0.8, 0.0, 1.0]), _seeds).map(build)


def edge_floats(low: float = -2.0, high: float = 2.0, edges: Sequence[float] = (0.0,),
                width: int = 64) -> SearchStrategy[float]:
    """Finite floats in ``[low, high]``, drawing the ``edges`` inside that range often."""
    inside = [float(e) for e in edges if low <= e <= high]
    values = st.floats(low, high, allow_nan=False, allow_infinity=False, width=width)
    return st.one_of(st.sampled_from(inside), values) if inside else values


def _shape_strategy(shape) -> SearchStrategy[Shape]:
    return shape if isinstance(shape, SearchStrategy) else st.just(tuple(shape))


def edge_arrays(shape, low: float = -2.0, high: float = 2.0, *, edges: Sequence[float] = (0.0,),
                ties: bool = True, dtype=np.float64) -> SearchStrategy[np.ndarray]:
    """Float arrays of ``shape`` (a tuple or a strategy of tuples) whose values hypothesis draws
    one by one in ``[low, high]``: often one of ``edges`` (kinks, bounds, poles: 0 by default),
    and with ``ties`` some entries copied onto others (exact ties for max/min/sort/scatter).
    Values shrink towards 0 and towards more ties; a failing example prints the array. Values
    are rounded to ``dtype`` (ties and edges stay exact when representable)."""
    width = 16 if np.dtype(dtype).itemsize == 2 else 32 if np.dtype(dtype) == np.float32 else 64

    @st.composite
    def build(draw) -> np.ndarray:
        shp = draw(_shape_strategy(shape))
        n = int(np.prod(shp, dtype=np.int64))
        values = draw(st.lists(edge_floats(low, high, edges, width), min_size=n, max_size=n))
        flat = np.array(values, dtype=np.float64)
        if ties and n > 1:
            for src, dst in draw(st.lists(st.tuples(st.integers(0, n - 1), st.integers(0, n - 1)),
                                          max_size=n // 2)):
                flat[dst] = flat[src]
        return flat.reshape(shp).astype(dtype)

    return build()


def clamp_arrays(shape, min: float, max: float, *, margin: float = 1.0,
                 dtype=np.float64) -> SearchStrategy[np.ndarray]:
    """:func:`edge_arrays` for ``clamp(min, max)``: values in ``[min - margin, max + margin]``,
    often exactly at ``min``, ``max`` or 0 (the bounds included in the gradient's range)."""
    return edge_arrays(shape, min - margin, max + margin, edges=(min, max, 0.0), dtype=dtype)


def repeated_indices(shape: Sequence[int], dim: int, *, mode: str = "gather", min_len: int = 1,
                     max_len: int = 4) -> SearchStrategy[np.ndarray]:
    """Int64 indices as :func:`index_arrays` (``mode`` ``"gather"`` or ``"select"``), each drawn
    by hypothesis: they shrink towards 0, so repeated indices (every index 0) are among the first
    examples tried. Raises ValueError for an unknown mode or an out-of-range dim."""
    shape = tuple(shape)
    if mode not in ("gather", "select"):
        raise ValueError(f"mode must be 'gather' or 'select', got {mode!r}")
    if not -len(shape) <= dim < len(shape):
        raise ValueError(f"dim {dim} out of range for shape {list(shape)}")
    dim %= len(shape)

    @st.composite
    def build(draw) -> np.ndarray:
        k = draw(st.integers(min_len, max_len))
        ishape = (k,) if mode == "select" else shape[:dim] + (k,) + shape[dim + 1:]
        n = int(np.prod(ishape, dtype=np.int64))
        values = draw(st.lists(st.integers(0, shape[dim] - 1), min_size=n, max_size=n))
        return np.array(values, dtype=np.int64).reshape(ishape)

    return build()
