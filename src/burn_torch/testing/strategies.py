"""Hypothesis strategies for property tests of burn_torch code (needs ``hypothesis``).

Every array is drawn by hypothesis entry by entry (``hypothesis.extra.numpy.arrays``), so a
failing example shows the array itself and hypothesis shrinks its values; shapes come from
``hypothesis.extra.numpy.array_shapes`` and ``broadcastable_shapes``. Two kinds of arrays:

* [`edge_arrays`][burn_torch.testing.strategies.edge_arrays],
  [`clamp_arrays`][burn_torch.testing.strategies.clamp_arrays],
  [`repeated_indices`][burn_torch.testing.strategies.repeated_indices]: the points where gradients
  are decided (zeros, exact ties, clamp bounds, kinks, repeated indices) are drawn often; values
  shrink towards 0 and towards fewer distinct values;
* [`float_arrays`][burn_torch.testing.strategies.float_arrays]: values on a fine grid strictly
  inside ``[low, high)`` and away from the values to avoid, never exactly at a kink, a bound or a
  half-integer (values shrink towards the middle of the range);
  [`index_arrays`][burn_torch.testing.strategies.index_arrays] and
  [`masks`][burn_torch.testing.strategies.masks]: indices and Bool masks.

Every strategy takes concrete shapes except
[`float_arrays`][burn_torch.testing.strategies.float_arrays] and
[`edge_arrays`][burn_torch.testing.strategies.edge_arrays], which also accept a strategy of shapes.

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

from typing import Literal, Sequence

import numpy as np

from ..optional import missing

try:
    from hypothesis import strategies as st
    from hypothesis.extra import numpy as hnp
    from hypothesis.strategies import SearchStrategy
except ImportError as e:
    raise missing("hypothesis", "burn_torch.testing.strategies") from e

from burn_torch_pytest.profiles import register_hypothesis_profiles

register_hypothesis_profiles()  # settings.load_profile("burn_torch-ci") works once this is imported

Shape = tuple

#: float_arrays' grid: ``2**16`` points per range, each at the middle of its cell
_GRID = 2 ** 16


def shapes(min_rank: int = 1, max_rank: int = 4, min_side: int = 1,
           max_side: int = 5) -> SearchStrategy[Shape]:
    """Tuples of ``min_rank..max_rank`` dims, each in ``min_side..max_side``
    (``hypothesis.extra.numpy.array_shapes``)."""
    return hnp.array_shapes(min_dims=min_rank, max_dims=max_rank, min_side=min_side,
                            max_side=max_side)


def broadcastable_shapes(shape: Sequence[int]) -> SearchStrategy[Shape]:
    """Shapes of the same rank as ``shape`` that broadcast to it: each dim is ``shape``'s or 1
    (Burn broadcasts only between tensors of equal rank; ``hypothesis.extra.numpy.
    broadcastable_shapes``)."""
    shape = tuple(shape)
    # hypothesis lets a dim where ``shape`` has 1 take any size: those become 1 here, so that two
    # draws for the same ``shape`` broadcast together too
    return hnp.broadcastable_shapes(shape, min_dims=len(shape), max_dims=len(shape), min_side=1,
                                    max_side=max(shape, default=1)).map(
        lambda drawn: tuple(d if d == s else 1 for d, s in zip(drawn, shape)))


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


def _shape_strategy(shape) -> SearchStrategy[Shape]:
    return shape if isinstance(shape, SearchStrategy) else st.just(tuple(shape))


def float_arrays(shape, low: float = -2.0, high: float = 2.0, *, avoid: float | Sequence[float] = (),
                 margin: float = 0.25, distinct: bool = False,
                 dtype=np.float64) -> SearchStrategy[np.ndarray]:
    """Float arrays of ``shape`` (a tuple or a strategy of tuples) with values in ``[low, high)``,
    at least ``margin`` away from every value in ``avoid`` (poles and zeros: ``avoid=0.0`` for
    divisors). Each value is drawn by hypothesis as a cell of a grid of ``2**16`` cells over the
    allowed values and placed at the middle of its cell: never exactly at ``low``, at a value to
    avoid, at 0 or at a half-integer. ``distinct=True``: pairwise distinct values, each at the
    middle of its own cell of a grid of ``4 n`` cells over the range (``n`` values: at least
    ``(high - low) / 4n`` apart, no ties for max/min/argmax; they shrink towards the lowest
    cells). Raises ValueError when ``avoid`` leaves no values."""
    avoid = (avoid,) if isinstance(avoid, (int, float)) else tuple(avoid)
    intervals = _allowed(float(low), float(high), avoid, margin)
    total = sum(hi - lo for lo, hi in intervals)
    shape_st = _shape_strategy(shape)
    half = _GRID // 2

    @st.composite
    def build(draw) -> np.ndarray:
        shp = draw(shape_st)
        n = int(np.prod(shp, dtype=np.int64))
        if distinct:  # distinct cells of a grid of 4 n cells: values at least a cell apart
            cells = draw(hnp.arrays(np.int64, n, elements=st.integers(0, 4 * n - 1), unique=True))
            positions = (cells + 0.5) * (total / max(4 * n, 1))
        else:  # cells counted from the middle of the range: values shrink towards it
            cells = draw(hnp.arrays(np.int64, n, elements=st.integers(-half, half - 1), fill=st.nothing()))
            positions = (cells + half + 0.5) * (total / _GRID)
        return _place(positions, intervals).reshape(shp).astype(dtype)

    return build()


def index_arrays(shape: Sequence[int], dim: int, *, mode: str = "gather", min_len: int = 1,
                 max_len: int = 5) -> SearchStrategy[np.ndarray]:
    """Int64 indices into dim ``dim`` (negative allowed) of a tensor of ``shape``, repeats allowed,
    each drawn by hypothesis (shrinking towards 0).

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

    @st.composite
    def build(draw) -> np.ndarray:
        k = draw(st.integers(min_len, max_len))
        ishape = (k,) if mode == "select" else shape[:dim] + (k,) + shape[dim + 1:]
        return draw(hnp.arrays(np.int64, ishape, elements=st.integers(0, size - 1), fill=st.nothing()))

    return build()


def masks(shape: Sequence[int]) -> SearchStrategy[np.ndarray]:
    """Bool arrays of ``shape``, every entry drawn by hypothesis (all False, all True and mixed
    masks among them; shrinking towards all False)."""
    return hnp.arrays(np.bool_, tuple(shape), elements=st.booleans(), fill=st.nothing())


def edge_floats(low: float = -2.0, high: float = 2.0, edges: Sequence[float] = (0.0,),
                width: Literal[16, 32, 64] = 64) -> SearchStrategy[float]:
    """Finite floats in ``[low, high]``, drawing the ``edges`` inside that range often."""
    inside = [float(e) for e in edges if low <= e <= high]
    values = st.floats(low, high, allow_nan=False, allow_infinity=False, width=width)
    return st.one_of(st.sampled_from(inside), values) if inside else values


def edge_arrays(shape, low: float = -2.0, high: float = 2.0, *, edges: Sequence[float] = (0.0,),
                ties: bool = True, dtype=np.float64) -> SearchStrategy[np.ndarray]:
    """Float arrays of ``shape`` (a tuple or a strategy of tuples) whose values hypothesis draws
    one by one in ``[low, high]``: often one of ``edges`` (kinks, bounds, poles: 0 by default),
    and with ``ties`` some entries copied onto others (exact ties for max/min/sort/scatter).
    Values shrink towards 0 and towards more ties; a failing example prints the array. Values
    are rounded to ``dtype`` (ties and edges stay exact when representable)."""
    width: Literal[16, 32, 64] = (16 if np.dtype(dtype).itemsize == 2
                                  else 32 if np.dtype(dtype) == np.float32 else 64)

    @st.composite
    def build(draw) -> np.ndarray:
        shp = draw(_shape_strategy(shape))
        n = int(np.prod(shp, dtype=np.int64))
        flat = draw(hnp.arrays(np.float64, n, elements=edge_floats(low, high, edges, width),
                               fill=st.nothing()))
        if ties and n > 1:
            for src, dst in draw(st.lists(st.tuples(st.integers(0, n - 1), st.integers(0, n - 1)),
                                          max_size=n // 2)):
                flat[dst] = flat[src]
        return flat.reshape(shp).astype(dtype)

    return build()


def clamp_arrays(shape, min: float, max: float, *, margin: float = 1.0,
                 dtype=np.float64) -> SearchStrategy[np.ndarray]:
    """[`edge_arrays`][burn_torch.testing.strategies.edge_arrays] for ``clamp(min, max)``: values in
    ``[min - margin, max + margin]``, often exactly at ``min``, ``max`` or 0 (the bounds included in
    the gradient's range)."""
    return edge_arrays(shape, min - margin, max + margin, edges=(min, max, 0.0), dtype=dtype)


def repeated_indices(shape: Sequence[int], dim: int, *, mode: str = "gather", min_len: int = 1,
                     max_len: int = 4) -> SearchStrategy[np.ndarray]:
    """[`index_arrays`][burn_torch.testing.strategies.index_arrays] of at most 4 along ``dim`` by
    default: every index is drawn by hypothesis and shrinks towards 0, so repeated indices (every
    index 0) are among the first examples tried. Raises ValueError for an unknown mode or an
    out-of-range dim."""
    return index_arrays(shape, dim, mode=mode, min_len=min_len, max_len=max_len)
