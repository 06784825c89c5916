"""Shape, slicing and indexing ops: Burn's semantics, shapes and gradients.

Property tests check each differentiable op's values against an independent numpy reference and
its gradients against torch autograd (``burn_torch.testing``), on inputs where Burn's rule and
torch's agree (no ties for MIN/MAX updates, no repeated indices for MUL/ASSIGN updates). Where
Burn routes a gradient differently from torch (ties in MIN/MAX updates) Burn's rule is checked
with exact values, as are Burn's own examples. Also: edge cases (empty and size-1 dims,
negative dims), non-differentiable results, and bad input raising before anything is recorded.
"""
from __future__ import annotations

import numpy as np
import pytest
import torch
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from burn_torch import Device, IndexingUpdateOp, Int, Tensor, debug_mode
from burn_torch.autodiff import hooks
from burn_torch.autodiff.graph import new_leaf
from burn_torch.capture import capture
from burn_torch.testing import assert_grads_match_torch, covers
from burn_torch.testing.strategies import dims, float_arrays, masks, shapes

CPU = Device.cpu()
AD = CPU.autodiff()
SETTINGS = settings(deadline=None, max_examples=25,
                    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
UPDATE_SETTINGS = settings(SETTINGS, max_examples=40)  # five update ops share each test
seeds = st.integers(0, 2**32 - 1)
ADD, ASSIGN, MUL, MIN, MAX = (IndexingUpdateOp.ADD, IndexingUpdateOp.ASSIGN, IndexingUpdateOp.MUL,
                              IndexingUpdateOp.MIN, IndexingUpdateOp.MAX)
UPDATE = {ADD: np.add, ASSIGN: lambda old, new: new, MUL: np.multiply, MIN: np.minimum, MAX: np.maximum}


def values(t: Tensor):
    return t.to_data().to_list()


def leaf(arr) -> Tensor:
    return Tensor.from_data(np.asarray(arr, dtype=np.float64), AD).require_grad()


def grads_of(y: Tensor, *xs: Tensor, weights=None):
    """Gradients of ``(y * weights).sum()`` (weights default to ones) for each of ``xs``."""
    w = Tensor.from_data(np.ones(y.dims()) if weights is None else np.asarray(weights, np.float64), AD)
    g = (y * w).sum().backward()
    return [values(x.grad(g)) for x in xs]


def outputs(check) -> list[np.ndarray]:
    return [o.to_torch().numpy() for o in check.outputs]


def rejects(error, call, *fragments):
    """Asserts that calling ``call()``'s method with its arguments (``call`` returns
    ``(method, *args)``, built first) raises ``error`` whose message contains every fragment, and
    that no graph node is created on the way (node ids are consecutive)."""
    method, *args = call()
    before = new_leaf((1,), torch.float32).id
    with pytest.raises(error) as info:
        method(*args)
    assert new_leaf((1,), torch.float32).id == before + 1, "a node was recorded before the error"
    for fragment in fragments:
        assert fragment in str(info.value), f"{fragment!r} not in {str(info.value)!r}"


# -- independent references ------------------------------------------------------------------------
def burn_range(r, n):
    """The indices a Burn range selects in a dim of size ``n``: bounds are clamped to the dim,
    step k walks a, a+k, ... < b; step -k walks b-1, b-1-k, ... >= a."""
    if isinstance(r, int):
        return [r + n if r < 0 else r]
    start, stop, _ = slice(r.start, r.stop).indices(n)
    step = 1 if r.step is None else r.step
    picked = list(range(start, stop))
    return picked[::step] if step > 0 else picked[::-1][::-step]


def region(shape, ranges):
    """A numpy index (``np.ix_``) of the entries ``ranges`` select, in Burn's order."""
    lists = [burn_range(r, n) for r, n in zip(ranges, shape)]
    lists += [list(range(n)) for n in shape[len(ranges):]]
    return np.ix_(*lists), [len(li) for li in lists]


def reference_update(x, positions, op):
    """``x`` updated entry by entry: ``positions`` yields (target index in x, value)."""
    out = x.copy()
    for target, v in positions:
        out[target] = UPDATE[op](out[target], v)
    return out


def line_targets(shape, dim, index):
    """(target, source) pairs of a scatter: each index position aims at itself with ``dim``
    replaced by the index value."""
    for pos in np.ndindex(*index.shape):
        target = list(pos)
        target[dim] = index[pos]
        yield tuple(target), pos


# -- strategies ------------------------------------------------------------------------------------
@st.composite
def burn_ranges(draw, shape, allow_empty=False):
    """Burn ranges for a leading part of ``shape``: slices with clamped/negative bounds and
    positive or negative steps, or ints."""
    count = draw(st.integers(1, len(shape)))
    out = []
    for n in shape[:count]:
        if draw(st.integers(0, 5)) == 0:
            i = draw(st.integers(0, n - 1))
            out.append(i - n if draw(st.booleans()) else i)
            continue
        start = draw(st.one_of(st.none(), st.integers(-n - 1, n)))
        stop = draw(st.one_of(st.none(), st.integers(-n - 1, n + 2)))
        step = draw(st.one_of(st.none(), st.integers(1, 3), st.integers(-3, -1)))
        r = slice(start, stop, step)
        if not allow_empty and not burn_range(r, n):
            r = slice(None, None, step)
        out.append(r)
    return out


def distinct_pair(shape_a, shape_b):
    """Two float arrays whose values are all different from each other (no ties between them)."""
    na = int(np.prod(shape_a))
    both = float_arrays((na + int(np.prod(shape_b)),), distinct=True)
    return both.map(lambda flat: (flat[:na].reshape(shape_a), flat[na:].reshape(shape_b)))


def needs_distinct_indices(op):
    """Where Burn's rule equals torch's and the reference is well defined: MUL and ASSIGN need
    distinct indices (a repeated index multiplies several values / keeps an unspecified one);
    MIN/MAX need distinct values instead (see ``update_operands``)."""
    return op in (MUL, ASSIGN)


# ==================================================================================================
# Shape ops: values against numpy, gradients against torch autograd
# ==================================================================================================
@covers("narrow")
@SETTINGS
@given(data=st.data())
def test_narrow_selects_the_range_and_routes_gradients_back(data):
    shape = data.draw(shapes())
    dim = data.draw(dims(len(shape)))
    start = data.draw(st.integers(0, shape[dim] - 1))
    length = data.draw(st.integers(1, shape[dim] - start))
    x = data.draw(float_arrays(shape))
    (out,) = outputs(assert_grads_match_torch(lambda t: t.narrow(dim, start, length), x))
    np.testing.assert_array_equal(out, np.take(x, range(start, start + length), axis=dim))


@covers("narrow")
@SETTINGS
@given(data=st.data())
def test_split_and_chunk_pieces_tile_the_dim_and_carry_gradients(data):
    shape = data.draw(shapes(max_side=7))
    dim = data.draw(dims(len(shape)))
    size = data.draw(st.integers(1, 8))
    x = data.draw(float_arrays(shape))
    pieces = outputs(assert_grads_match_torch(lambda t: tuple(t.split(size, dim)), x))
    assert [p.shape[dim] for p in pieces][:-1] == [size] * (len(pieces) - 1)
    np.testing.assert_array_equal(np.concatenate(pieces, axis=dim), x)
    chunks = outputs(assert_grads_match_torch(lambda t: tuple(t.chunk(size, dim)), x))
    assert len(chunks) <= size
    np.testing.assert_array_equal(np.concatenate(chunks, axis=dim), x)


@covers("flip")
@SETTINGS
@given(data=st.data())
def test_flip_reverses_the_dims(data):
    shape = data.draw(shapes())
    axes = data.draw(st.lists(st.integers(0, len(shape) - 1), unique=True, max_size=len(shape)))
    axes = [a - len(shape) if data.draw(st.booleans()) else a for a in axes]
    x = data.draw(float_arrays(shape))
    (out,) = outputs(assert_grads_match_torch(lambda t: t.flip(axes), x))
    np.testing.assert_array_equal(out, np.flip(x, axes) if axes else x)


@covers("repeat", "repeat_dim")
@SETTINGS
@given(data=st.data())
def test_repeat_tiles_and_sums_gradients_over_copies(data):
    shape = data.draw(shapes(max_rank=3, max_side=3))
    sizes = data.draw(st.lists(st.integers(0, 3), min_size=1, max_size=len(shape)))
    dim = data.draw(dims(len(shape)))
    times = data.draw(st.integers(0, 3))
    x = data.draw(float_arrays(shape))
    rep, rep_dim = outputs(assert_grads_match_torch(
        lambda t: (t.repeat(sizes), t.repeat_dim(dim, times)), x))
    np.testing.assert_array_equal(rep, np.tile(x, sizes + [1] * (len(shape) - len(sizes))))
    reps = [1] * len(shape)
    reps[dim] = times
    np.testing.assert_array_equal(rep_dim, np.tile(x, reps))


@covers("movedim")
@SETTINGS
@given(data=st.data())
def test_movedim_moves_dims_and_keeps_the_others_in_order(data):
    shape = data.draw(shapes())
    rank = len(shape)
    src = data.draw(st.lists(st.integers(0, rank - 1), unique=True, min_size=1, max_size=rank))
    dst = data.draw(st.permutations(range(rank)))[:len(src)]
    x = data.draw(float_arrays(shape))
    single = len(src) == 1 and data.draw(st.booleans())
    a, b = (src[0], dst[0] - rank) if single else (src, dst)
    (out,) = outputs(assert_grads_match_torch(lambda t: t.movedim(a, b), x))
    np.testing.assert_array_equal(out, np.moveaxis(x, src, dst))


@covers("tril", "triu")
@SETTINGS
@given(shape=shapes(min_rank=2), diagonal=st.integers(-4, 4), data=st.data())
def test_tril_and_triu_keep_a_triangle_of_the_last_two_dims(shape, diagonal, data):
    x = data.draw(float_arrays(shape))
    low, up = outputs(assert_grads_match_torch(lambda t: (t.tril(diagonal), t.triu(diagonal)), x))
    np.testing.assert_array_equal(low, np.tril(x, diagonal))
    np.testing.assert_array_equal(up, np.triu(x, diagonal))


@covers("unfold")
@SETTINGS
@given(data=st.data())
def test_unfold_appends_windows_as_a_last_dim(data):
    shape = data.draw(shapes(max_side=6))
    dim = data.draw(dims(len(shape)))
    size = data.draw(st.integers(0, 7))
    step = data.draw(st.integers(1, 3))
    x = data.draw(float_arrays(shape))
    (out,) = outputs(assert_grads_match_torch(lambda t: t.unfold(dim, size, step), x))
    d = dim % len(shape)
    count = (shape[d] - size) // step + 1 if size <= shape[d] else 0
    expected_shape = list(shape)
    expected_shape[d] = count
    assert list(out.shape) == expected_shape + [size]
    if count and size:
        windows = np.lib.stride_tricks.sliding_window_view(x, size, axis=d)
        np.testing.assert_array_equal(out, np.take(windows, range(0, count * step, step), axis=d))


@covers("slice_assign")
@SETTINGS
@given(data=st.data())
def test_slice_assign_replaces_the_region_and_splits_the_gradient(data):
    shape = data.draw(shapes(max_side=5))
    ranges = data.draw(burn_ranges(shape))
    index, region_shape = region(shape, ranges)
    x = data.draw(float_arrays(shape))
    v = data.draw(float_arrays(tuple(region_shape)))
    (out,) = outputs(assert_grads_match_torch(lambda t, u: t.slice_assign(ranges, u), x, v))
    expected = x.copy()
    expected[index] = v
    np.testing.assert_array_equal(out, expected)


@covers("slice_fill")
@SETTINGS
@given(data=st.data())
def test_slice_fill_sets_the_region_and_blocks_its_gradient(data):
    shape = data.draw(shapes(max_side=5))
    ranges = data.draw(burn_ranges(shape, allow_empty=True))
    index, _ = region(shape, ranges)
    x = data.draw(float_arrays(shape))
    (out,) = outputs(assert_grads_match_torch(lambda t: t.slice_fill(ranges, -7.5), x))
    expected = x.copy()
    expected[index] = -7.5
    np.testing.assert_array_equal(out, expected)


# -- exact semantics (Burn's examples) -------------------------------------------------------------
def test_chunk_follows_burns_sizes():
    def sizes(n, chunks):
        return [t.dims()[0] for t in Tensor.arange(0, n, CPU).chunk(chunks, 0)]
    assert sizes(12, 6) == [2] * 6
    assert sizes(11, 6) == [2, 2, 2, 2, 2, 1]
    assert sizes(100, 8) == [13] * 7 + [9]
    assert sizes(6, 7) == [1] * 6
    assert sizes(6, 4) == [2, 2, 2]  # fewer chunks than asked when n chunks cannot all be non-empty
    assert values(Tensor.arange(0, 5, CPU).chunk(2, -1)[1]) == [3, 4]


def test_split_follows_burns_sizes():
    x = Tensor.from_data([[0, 1], [2, 3], [4, 5], [6, 7], [8, 9]], CPU)
    assert [values(t) for t in x.split(2, 0)] == [[[0, 1], [2, 3]], [[4, 5], [6, 7]], [[8, 9]]]
    assert [values(t) for t in x.split(10, 0)] == [values(x)]
    assert [values(t) for t in x.split(1, -1)] == [[[0], [2], [4], [6], [8]], [[1], [3], [5], [7], [9]]]


def test_split_pieces_are_steps_under_balanced_checkpointing_too():
    """split computes its pieces with one kernel call, except under BALANCED, where each piece is
    a narrow step that can be recomputed: both give each piece its own gradient."""
    weights = Tensor.from_floats([[1.0, 2.0, 3.0, 4.0, 5.0]], CPU)
    for device in (AD, AD.gradient_checkpointing()):
        x = Tensor.from_floats([[0.5, -1.0, 2.0, 3.0, -4.0]], device).require_grad()
        a, b, c = (x * x).split(2, 1)
        loss = (a * weights.narrow(1, 0, 2)).sum() + (c * weights.narrow(1, 4, 1)).sum()
        grads = loss.backward()
        assert values(x.grad(grads)) == [[1.0, -4.0, 0.0, 0.0, -40.0]]
        assert b.is_tracked() and not b.is_require_grad()


def _sliced_sum_rows(x, pieces_first: bool):
    """``y = 2x`` read by a full-tensor consumer and by two narrow pieces; ``pieces_first``
    records the pieces after the full consumer, so backward reaches them first."""
    y = x * 2.0
    whole = (y * y).sum()
    parts = (y.narrow(1, 0, 2) * 3.0).sum() + (y.narrow(1, 1, 2) * y.narrow(1, 1, 2)).sum()
    return whole + parts if pieces_first else parts + whole


@pytest.mark.parametrize("pieces_first", [True, False])
def test_slice_gradients_add_into_their_region_of_a_shared_input(pieces_first):
    """A slicing op's gradient is added into its region of its input's gradient: whether the
    regions arrive before or after a gradient of the whole tensor (an engine-made sum, or one a
    rule passed on that must not be written into), the sum is torch's."""
    x = np.array([[0.5, -1.0, 2.0], [3.0, 0.25, -2.0]])
    ours = leaf(x)
    got = ours.grad(_sliced_sum_rows(ours, pieces_first).backward())
    xt = torch.tensor(x, requires_grad=True)
    y = xt * 2.0
    ((y * y).sum() + (y[:, 0:2] * 3.0).sum() + (y[:, 1:3] * y[:, 1:3]).sum()).backward()
    np.testing.assert_allclose(values(got), xt.grad.numpy(), rtol=1e-12)


@pytest.mark.parametrize("pieces_first", [True, False])
def test_split_pieces_and_a_whole_tensor_gradient_sum_to_torchs(pieces_first):
    """Pieces that tile their input (collected, then concatenated) summed with a gradient of the
    whole tensor, whichever reaches the input first."""
    x = np.array([[0.5, -1.0, 2.0, 4.0], [3.0, 0.25, -2.0, 1.5]])
    ours = leaf(x)
    y = ours * 2.0
    whole = (y * y).sum()
    a, b = y.split(2, 1)
    parts = (a * 3.0).sum() + (b * b).sum()
    got = ours.grad((whole + parts if pieces_first else parts + whole).backward())
    xt = torch.tensor(x, requires_grad=True)
    yt = xt * 2.0
    at, bt = yt.split(2, 1)
    ((yt * yt).sum() + (at * 3.0).sum() + (bt * bt).sum()).backward()
    np.testing.assert_allclose(values(got), xt.grad.numpy(), rtol=1e-12)


def test_unused_pieces_of_a_split_get_zero_gradient():
    """Pieces that leave gaps (a narrow at each end of a dim): zeros between them."""
    x = leaf([[1.0, 2.0, 3.0, 4.0, 5.0]])
    grads = ((x.narrow(1, 3, 2) * 3.0).sum() + (x.narrow(1, 0, 1) * 2.0).sum()).backward()
    assert values(x.grad(grads)) == [[2.0, 0.0, 0.0, 3.0, 3.0]]


def test_split_gradients_keep_signed_zeros_as_torchs_split_backward():
    """The pieces' gradients are concatenated (torch's split backward), not added into zeros,
    which would turn a piece's -0.0 into +0.0."""
    x = leaf([1.0, 2.0, 3.0, 4.0])
    a, b = x.split(2, 0)
    grads = ((a * -0.0).sum() + (b * 1.0).sum()).backward()  # b's gradient arrives first
    xt = torch.tensor([1.0, 2.0, 3.0, 4.0], dtype=torch.float64, requires_grad=True)
    at, bt = xt.split(2, 0)
    ((at * -0.0).sum() + (bt * 1.0).sum()).backward()
    got = x.grad(grads).to_torch()
    assert torch.equal(got, xt.grad.to(got.dtype))
    assert torch.signbit(got).tolist() == torch.signbit(xt.grad).tolist() == [True, True, False, False]


def _split_step(x):
    """The gradient of ``x`` through two pieces of a split, the first weighted by -0.0."""
    a, b = x.split(2, 0)
    return [x.grad(((a * -0.0).sum() + (b * 1.0).sum()).backward())]


def test_a_hook_that_only_watches_the_pass_leaves_its_kernels_as_without_hooks():
    """Only hooks that see every step get dense gradients; one that only checks the claimed
    nodes (capture's leaf watch) leaves the regions to be concatenated, signed zeros and all."""
    class Watch(hooks.BackwardHook):
        def check(self, nodes):
            pass
    unregister = hooks.register(lambda root, seed: Watch())
    try:
        got = _split_step(leaf([1.0, 2.0, 3.0, 4.0]))[0].to_torch()
    finally:
        unregister()
    assert torch.signbit(got).tolist() == [True, True, False, False]


def test_a_captured_split_step_replays_the_concatenated_gradient():
    step = capture(_split_step)
    for _ in range(2):
        got = step(leaf([1.0, 2.0, 3.0, 4.0]))[0].to_torch()
        assert torch.signbit(got).tolist() == [True, True, False, False]
    assert step.replayed == 1


def test_a_passed_on_gradient_is_not_written_into_by_a_slice_gradient():
    """``a + b`` hands both inputs the same gradient tensor; a slice of ``a`` then adds into a
    copy of it, never into the tensor ``b`` also received."""
    a, b = leaf([1.0, 2.0, 3.0]), leaf([4.0, 5.0, 6.0])
    piece = a.narrow(0, 1, 1)  # recorded first: backward reaches it after the sum
    grads = ((a + b) * 2.0 + piece * 10.0).sum().backward()
    assert values(a.grad(grads)) == [2.0, 32.0, 2.0]
    assert values(b.grad(grads)) == [2.0, 2.0, 2.0]


def test_split_gradients_are_dense_for_backward_hooks():
    """Hooks (here debug mode's exactness and finiteness checks) see dense gradients of the
    input's shape, never a region."""
    with debug_mode():
        x = leaf([[1.0, 2.0, 3.0, 4.0]])
        a, b = (x * x).split(2, 1)
        grads = (a * 3.0 + b).sum().backward()
    assert values(x.grad(grads)) == [[6.0, 12.0, 6.0, 8.0]]


def test_split_and_chunk_of_an_empty_dim_give_no_pieces():
    empty = Tensor.zeros([0, 3], AD)
    assert empty.split(2, 0) == []
    assert empty.split(0, 0) == []
    assert empty.chunk(3, 0) == []


def test_narrow_takes_a_range_of_a_dim():
    x = Tensor.from_data([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0], [7.0, 8.0, 9.0]], CPU)
    assert values(x.narrow(0, 0, 2)) == [[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]]
    assert values(x.narrow(-1, 1, 2)) == [[2.0, 3.0], [5.0, 6.0], [8.0, 9.0]]


def test_repeat_zero_times_gives_an_empty_dim():
    x = Tensor.ones([2, 3, 4], AD).require_grad()
    y = x.repeat([1, 0, 2])
    assert y.dims() == [2, 0, 8]
    assert x.repeat_dim(1, 0).dims() == [2, 0, 4]
    assert grads_of(x.repeat_dim(-1, 0), x)[0] == np.zeros((2, 3, 4)).tolist()


def test_repeat_keeps_dims_past_the_sizes_given():
    x = Tensor.from_data([[0.0, 1.0, 2.0]], CPU)
    assert values(x.repeat([4])) == [[0.0, 1.0, 2.0]] * 4


def test_flip_of_no_dims_is_the_identity():
    x = Tensor.from_data([[1, 2], [3, 4]], CPU)
    assert values(x.flip([])) == [[1, 2], [3, 4]]
    assert values(x.flip([0, -1])) == [[4, 3], [2, 1]]


def test_squeeze_removes_every_size_one_dim():
    x = Tensor.zeros([1, 3, 1, 2], AD).require_grad()
    assert x.squeeze().dims() == [3, 2]
    assert x.squeeze_dims([]).dims() == [3, 2]
    assert x.squeeze_dims([0, -2, 0]).dims() == [3, 2]
    assert x.squeeze_dims([2]).dims() == [1, 3, 2]
    assert grads_of(x.squeeze_dims([0]), x)[0] == np.ones((1, 3, 1, 2)).tolist()


def test_tril_and_triu_work_on_int_and_bool_tensors():
    x = Tensor.from_data([[1, 2, 3], [4, 5, 6]], CPU)
    assert values(x.tril(0)) == [[1, 0, 0], [4, 5, 0]]
    assert values(x.triu(1)) == [[0, 2, 3], [0, 0, 6]]
    assert values(x.greater_elem(0).tril(-1)) == [[False, False, False], [True, False, False]]


def test_unfold_matches_burns_windows():
    x = Tensor.from_data([0.0, 1.0, 2.0, 3.0, 4.0], CPU)
    assert values(x.unfold(0, 2, 2)) == [[0.0, 1.0], [2.0, 3.0]]
    assert values(x.unfold(0, 3, 1)) == [[0.0, 1.0, 2.0], [1.0, 2.0, 3.0], [2.0, 3.0, 4.0]]
    assert x.unfold(0, 6, 1).dims() == [0, 6]  # no complete window


def test_unfold_gradient_counts_overlapping_windows():
    x = leaf([1.0, 2.0, 3.0, 4.0])
    (g,) = grads_of(x.unfold(0, 2, 1), x)
    assert g == [1.0, 2.0, 2.0, 1.0]


def test_slice_clamps_ranges_and_treats_reversed_ones_as_empty():
    x = Tensor.from_data([0.0, 1.0, 2.0], CPU)
    assert values(x.slice([slice(0, 4)])) == [0.0, 1.0, 2.0]
    assert values(x.slice([slice(-10, 2)])) == [0.0, 1.0]
    assert x.slice([slice(2, 1)]).dims() == [0]
    assert x.slice([slice(1, 1)]).dims() == [0]
    assert x.slice([slice(5, 9)]).dims() == [0]
    m = Tensor.from_data([[0.0, 1.0, 2.0], [3.0, 4.0, 5.0]], CPU)
    assert values(m.slice([slice(0, -1), slice(0, -2)])) == [[0.0]]


def test_slice_assign_follows_burns_examples():
    t = Tensor.zeros([10], CPU)
    assert values(t.slice_assign([slice(0, 10, 2)], Tensor.ones([5], CPU))) == [1.0, 0.0] * 5
    t = Tensor.from_data([0.0, 1.0, 2.0, 3.0, 4.0], CPU)
    rev = t.slice_assign([slice(None, None, -1)], Tensor.from_data([10.0, 11.0, 12.0, 13.0, 14.0], CPU))
    assert values(rev) == [14.0, 13.0, 12.0, 11.0, 10.0]


def test_slice_assign_gradient_splits_between_tensor_and_values():
    x = leaf([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]])
    v = leaf([[10.0, 20.0]])
    y = x.slice_assign([slice(1, 2), slice(None, None, -2)], v)
    assert values(y) == [[1.0, 2.0, 3.0], [20.0, 5.0, 10.0]]
    gx, gv = grads_of(y, x, v, weights=[[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]])
    assert gx == [[1.0, 2.0, 3.0], [0.0, 5.0, 0.0]]
    assert gv == [[6.0, 4.0]]


def test_slice_assign_of_an_empty_region_returns_the_tensor():
    x = leaf([1.0, 2.0])
    assert x.slice_assign([slice(1, 1)], Tensor.zeros([0], AD)) is x


def test_slice_fill_follows_burns_examples():
    t = Tensor.zeros([10], CPU)
    assert values(t.slice_fill([slice(2, 5)], 1.0)) == [0, 0, 1, 1, 1, 0, 0, 0, 0, 0]
    assert values(t.slice_fill([slice(-3, None)], 2.0)) == [0.0] * 7 + [2.0] * 3
    m = Tensor.from_data([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0], [7.0, 8.0, 9.0]], CPU)
    assert values(m.slice_fill([slice(None), slice(0, 3, -2)], -1.0)) == [
        [-1.0, 2.0, -1.0], [-1.0, 5.0, -1.0], [-1.0, 8.0, -1.0]]
    assert values(Tensor.from_data([1, 2, 3], CPU).slice_fill([slice(0, 2)], 7)) == [7, 7, 3]


# ==================================================================================================
# Indexed updates: select_assign, scatter, scatter_nd, gather_nd, mask_select
# ==================================================================================================
UPDATE_OPS = list(IndexingUpdateOp)


@st.composite
def update_operands(draw, shape, values_shape, op):
    """(x, values): distinct values for MIN/MAX (no ties), any values otherwise."""
    if op in (MIN, MAX):
        return draw(distinct_pair(shape, values_shape))
    return draw(float_arrays(shape)), draw(float_arrays(values_shape))


@st.composite
def update_axis(draw, op):
    """(shape, dim, count): a shape, a dim of it (possibly negative) and how many indices to draw
    along that dim (at most its size when ``op`` needs distinct indices)."""
    shape = draw(shapes(max_rank=3))
    dim = draw(dims(len(shape)))
    size = shape[dim % len(shape)]
    return shape, dim, draw(st.integers(0, size if needs_distinct_indices(op) else 5))


def index_draw(draw, size, count, op):
    """``count`` indices into a dim of ``size``, distinct when ``op`` needs distinct indices."""
    seed = draw(seeds)
    rng = np.random.default_rng(seed)
    return rng.permutation(size)[:count] if needs_distinct_indices(op) else rng.integers(0, size, count)


@covers(*(f"select_assign_{op.value}" for op in UPDATE_OPS))
@UPDATE_SETTINGS
@given(data=st.data(), op=st.sampled_from(UPDATE_OPS))
def test_select_assign_combines_value_slices_into_indexed_slices(data, op):
    shape, dim, count = data.draw(update_axis(op))
    d = dim % len(shape)
    idx = index_draw(data.draw, shape[d], count, op)
    vshape = shape[:d] + (count,) + shape[d + 1:]
    x, v = data.draw(update_operands(shape, vshape, op))
    (out,) = outputs(assert_grads_match_torch(lambda t, u: t.select_assign(dim, idx, u, op), x, v))
    pos = ((tuple([slice(None)] * d + [j]), np.take(v, i, axis=d)) for i, j in enumerate(idx))
    np.testing.assert_allclose(out, reference_update(x, pos, op), rtol=1e-12)


@covers(*(f"scatter_{op.value}" for op in UPDATE_OPS))
@UPDATE_SETTINGS
@given(data=st.data(), op=st.sampled_from(UPDATE_OPS))
def test_scatter_combines_values_into_indexed_entries(data, op):
    shape, dim, count = data.draw(update_axis(op))
    d = dim % len(shape)
    ishape = shape[:d] + (count,) + shape[d + 1:]
    lines = np.moveaxis(np.zeros(ishape, np.int64), d, -1)
    for pos in np.ndindex(*lines.shape[:-1]):
        lines[pos] = index_draw(data.draw, shape[d], count, op)
    idx = np.moveaxis(lines, -1, d)
    x, v = data.draw(update_operands(shape, ishape, op))
    (out,) = outputs(assert_grads_match_torch(lambda t, u: t.scatter(dim, idx, u, op), x, v))
    pos = ((target, v[src]) for target, src in line_targets(shape, d, idx))
    np.testing.assert_allclose(out, reference_update(x, pos, op), rtol=1e-12)


@st.composite
def nd_case(draw, distinct):
    shape = draw(shapes(max_rank=3))
    k = draw(st.integers(1, len(shape)))
    cells = list(np.ndindex(*shape[:k]))
    m = draw(st.integers(0, len(cells) if distinct else 5))
    rng = np.random.default_rng(draw(seeds))
    picks = rng.permutation(len(cells))[:m] if distinct else rng.integers(0, len(cells), m)
    idx = np.array([cells[p] for p in picks], np.int64).reshape(m, k)
    return shape, idx


@covers(*(f"scatter_nd_{op.value}" for op in UPDATE_OPS))
@UPDATE_SETTINGS
@given(data=st.data(), op=st.sampled_from(UPDATE_OPS))
def test_scatter_nd_combines_values_into_addressed_slices(data, op):
    shape, idx = data.draw(nd_case(needs_distinct_indices(op)))
    k = idx.shape[1]
    x, v = data.draw(update_operands(shape, (idx.shape[0],) + shape[k:], op))
    (out,) = outputs(assert_grads_match_torch(lambda t, u: t.scatter_nd(idx, u, op), x, v))
    np.testing.assert_allclose(out, reference_update(x, zip(map(tuple, idx), v), op), rtol=1e-12)


@covers("gather_nd")
@SETTINGS
@given(data=st.data())
def test_gather_nd_collects_addressed_slices_and_accumulates_repeats(data):
    shape, idx = data.draw(nd_case(distinct=False))
    if idx.shape[0] == 0:
        idx = np.zeros((1, idx.shape[1]), np.int64)
    batch = data.draw(st.sampled_from([(-1,), (1, -1)]))
    idx = idx.reshape(batch + (idx.shape[1],))
    x = data.draw(float_arrays(shape))
    (out,) = outputs(assert_grads_match_torch(lambda t: t.gather_nd(idx), x))
    np.testing.assert_array_equal(out, x[tuple(np.moveaxis(idx, -1, 0))])


@covers("mask_select")
@SETTINGS
@given(data=st.data())
def test_mask_select_takes_set_entries_in_row_major_order(data):
    shape = data.draw(shapes())
    x = data.draw(float_arrays(shape))
    mask = data.draw(masks(shape))
    (out,) = outputs(assert_grads_match_torch(lambda t, m: t.mask_select(m), x, mask))
    np.testing.assert_array_equal(out, x[mask])


# -- Burn's gradient rules with exact values -------------------------------------------------------
def test_scatter_max_gives_the_whole_gradient_to_every_tied_value():
    x = leaf([1.0, 0.0])
    v = leaf([3.0, 3.0, 2.0])
    y = x.scatter(0, [0, 0, 0], v, MAX)
    assert values(y) == [3.0, 0.0]
    gx, gv = grads_of(y, x, v)
    assert gx == [0.0, 1.0]
    assert gv == [1.0, 1.0, 0.0]  # torch would split the gradient: [0.5, 0.5, 0.0]


def test_select_assign_max_tie_between_tensor_and_value_feeds_both():
    x = leaf([[2.0, 5.0]])
    v = leaf([[5.0]])
    y = x.select_assign(1, [1], v, MAX)
    assert grads_of(y, x, v) == [[[1.0, 1.0]], [[1.0]]]


@pytest.mark.parametrize("op, expected_gd, expected_gv", [
    (MAX, [[1.0, 1.0, 1.0], [1.0, 1.0, 0.0], [1.0, 1.0, 1.0]], [[0.0, 1.0, 1.0]]),
    (MIN, [[1.0, 1.0, 1.0], [0.0, 1.0, 1.0], [1.0, 1.0, 1.0]], [[1.0, 1.0, 0.0]]),
], ids=["max", "min"])
def test_scatter_nd_extremum_routes_gradients_as_burn(op, expected_gd, expected_gv):
    data = leaf([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0], [7.0, 8.0, 9.0]])
    v = leaf([[1.0, 5.0, 10.0]])
    gd, gv = grads_of(data.scatter_nd([[1]], v, op), data, v)
    assert gd == expected_gd
    assert gv == expected_gv


def test_scatter_mul_follows_burns_example():
    x = leaf([[2.0, 3.0, 4.0, 5.0], [6.0, 7.0, 8.0, 9.0]])
    v = leaf([[10.0, 20.0], [30.0, 40.0]])
    y = x.scatter(1, [[3, 0], [1, 2]], v, MUL)
    assert values(y) == [[40.0, 3.0, 4.0, 50.0], [6.0, 210.0, 320.0, 9.0]]
    gx, gv = grads_of(y, x, v, weights=[[1.0, 2.0, 3.0, 4.0], [5.0, 6.0, 7.0, 8.0]])
    assert gx == [[20.0, 2.0, 3.0, 40.0], [5.0, 180.0, 280.0, 8.0]]
    assert gv == [[20.0, 2.0], [42.0, 56.0]]


def test_scatter_mul_value_gradient_ignores_other_values_on_the_same_entry():
    x = leaf([2.0])
    v = leaf([3.0, 5.0])
    y = x.scatter(0, [0, 0], v, MUL)
    assert values(y) == [30.0]
    assert grads_of(y, x, v) == [[15.0], [2.0, 2.0]]  # Burn: gather(g) * gather(x); torch: [10, 6]


def test_select_assign_mul_follows_burns_example():
    x = leaf([[2.0, 3.0, 4.0], [5.0, 6.0, 7.0]])
    v = leaf([[10.0, 20.0], [30.0, 40.0]])
    y = x.select_assign(1, [2, 0], v, MUL)
    assert values(y) == [[40.0, 3.0, 40.0], [200.0, 6.0, 210.0]]
    gx, gv = grads_of(y, x, v, weights=[[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]])
    assert gx == [[20.0, 2.0, 30.0], [160.0, 5.0, 180.0]]
    assert gv == [[12.0, 2.0], [42.0, 20.0]]


def test_assign_updates_give_overwritten_entries_no_gradient():
    x = leaf([[0.0, 1.0, 2.0, 3.0], [4.0, 5.0, 6.0, 7.0]])
    v = leaf([[10.0, 20.0], [30.0, 40.0]])
    y = x.select_assign(1, [3, 1], v, ASSIGN)
    assert values(y) == [[0.0, 20.0, 2.0, 10.0], [4.0, 40.0, 6.0, 30.0]]
    assert grads_of(y, x, v) == [[[1.0, 0.0, 1.0, 0.0], [1.0, 0.0, 1.0, 0.0]], [[1.0, 1.0], [1.0, 1.0]]]
    y = x.scatter(1, [[2, 0], [3, 1]], v, ASSIGN)
    assert values(y) == [[20.0, 1.0, 10.0, 3.0], [4.0, 40.0, 6.0, 30.0]]
    assert grads_of(y, x, v)[0] == [[0.0, 1.0, 0.0, 1.0], [1.0, 0.0, 1.0, 0.0]]


def test_select_assign_add_follows_burns_example():
    x = leaf([[0.0, 1.0, 2.0], [3.0, 4.0, 5.0]])
    v = leaf([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]])
    y = x.matmul(x.transpose()).matmul(x.select_assign(0, [1, 0], v, ADD))
    g = y.sum().backward()
    assert values(x.grad(g)) == [[127.0, 199.0, 271.0], [172.0, 244.0, 316.0]]
    assert values(v.grad(g)) == [[64.0, 64.0, 64.0], [19.0, 19.0, 19.0]]


def test_gather_nd_gradient_scatters_back_with_k_equal_rank():
    data = leaf([[1.0, 2.0], [3.0, 4.0]])
    y = data.gather_nd([[0, 1], [1, 0], [0, 1]])
    assert values(y) == [2.0, 3.0, 2.0]
    assert grads_of(y, data) == [[[0.0, 2.0], [1.0, 0.0]]]


def test_scatter_nd_with_batch_dims_and_only_one_side_tracked():
    data = Tensor.from_data(np.array([[1.0, 2.0], [3.0, 4.0]]), AD)
    v = leaf([[10.0], [20.0]])
    y = data.scatter_nd([[[0, 1]], [[1, 0]]], v, MUL)
    assert values(y) == [[1.0, 20.0], [60.0, 4.0]]
    assert grads_of(y, v) == [[[2.0], [3.0]]]


def test_mask_select_of_an_all_false_mask_is_empty_with_zero_gradient():
    x = leaf([1.0, 2.0, 3.0])
    y = x.mask_select(Tensor.from_bools([False, False, False], AD))
    assert y.dims() == [0]
    assert values(x.grad((y.sum() + x.sum() * 0.0).backward())) == [0.0, 0.0, 0.0]


def test_mask_select_on_int_and_bool_tensors():
    m = Tensor.from_bools([[False, True, False], [True, False, True]], CPU)
    assert values(Tensor.from_data([[1, 2, 3], [4, 5, 6]], CPU).mask_select(m)) == [2, 4, 6]
    b = Tensor.from_bools([True, False, True], CPU)
    assert values(b.mask_select(Tensor.from_bools([True, True, False], CPU))) == [True, False]


def test_int_tensors_take_indexed_updates_without_a_graph():
    x = Tensor.from_data([[5, 10], [15, 20]], AD)
    y = x.scatter_nd([[0, 0], [1, 1]], Tensor.from_data([3, 25], AD), MIN)
    assert values(y) == [[3, 10], [15, 20]]
    assert not y.is_tracked() and y.kind is Int


def _chain_of_new_ops(device, x_arr, v_arr, mask):
    """A loss through every new differentiable op; returns the gradients of its two leaves."""
    x = Tensor.from_data(x_arr, device).require_grad()
    v = Tensor.from_data(v_arr, device).require_grad()
    h, u = (x * 2.0).exp(), (v * 1.5).exp()
    parts = [
        h.narrow(1, 1, 2).flip([0]).repeat([1, 2]).repeat_dim(0, 2).tril(0).triu(-1),
        h.scatter(1, np.array([[0, 1, 3, 2]] * 3), u, MAX),
        h.select_assign(0, [2, 0], u.narrow(0, 0, 2), MUL),
        h.slice_assign([slice(0, 2), slice(None, None, -2)], u.narrow(0, 0, 2).narrow(1, 0, 2).sin())
         .slice_fill([slice(1, 2)], 3.0),
        h.unfold(1, 2, 1).movedim(2, 0).mask_select(Tensor.from_data(mask, device)),
        h.gather_nd(np.array([[0, 1], [2, 3], [0, 1]])),
        h.scatter_nd(np.array([[1]]), u.narrow(0, 0, 1), MIN),
        h.select_assign(1, [1, 1], u.narrow(1, 0, 2), ADD)
         .scatter_nd(np.array([[0, 0]]), u.narrow(0, 0, 1).narrow(1, 0, 1).reshape([1]), ASSIGN),
    ]
    loss = parts[0].sum()
    for p in parts[1:]:
        loss = loss + (p * p).sum()
    g = loss.backward()
    return x.grad(g).to_torch(), v.grad(g).to_torch()


def test_gradients_are_identical_under_balanced_checkpointing():
    rng = np.random.default_rng(3)
    args = rng.standard_normal((3, 4)), rng.standard_normal((3, 4)), rng.random((2, 3, 3)) < 0.5
    plain = _chain_of_new_ops(AD, *args)
    balanced = _chain_of_new_ops(AD.gradient_checkpointing(), *args)
    assert all(torch.equal(a, b) for a, b in zip(plain, balanced))


# ==================================================================================================
# Non-differentiable index ops
# ==================================================================================================
def test_one_hot_of_int_indices():
    x = Tensor.from_data([0, 1, 4], AD)
    y = x.one_hot(5)
    assert y.kind is Int and y.dtype() == x.dtype()
    assert values(y) == [[1, 0, 0, 0, 0], [0, 1, 0, 0, 0], [0, 0, 0, 0, 1]]
    assert values(Tensor.from_data([[0, -1]], CPU).one_hot(3)) == [[[1, 0, 0], [0, 0, 1]]]


def test_one_hot_of_a_tracked_float_tensor_is_untracked():
    x = leaf([2.0])
    y = x.one_hot(4)
    assert values(y) == [[0.0, 0.0, 1.0, 0.0]]
    assert not y.is_tracked() and y.is_autodiff()


def test_argwhere_and_nonzero_give_coordinates_of_set_entries():
    b = Tensor.from_bools([[True, False, True], [False, False, True]], AD)
    assert values(b.argwhere()) == [[0, 0], [0, 2], [1, 2]]
    rows, cols = b.nonzero()
    assert values(rows) == [0, 0, 1] and values(cols) == [0, 2, 2]
    assert rows.kind is Int and rows.is_autodiff()


def test_argwhere_of_an_all_false_tensor_is_empty():
    b = Tensor.from_bools([[False, False]], CPU)
    assert b.argwhere().dims() == [0, 2]
    assert [t.dims() for t in b.nonzero()] == [[0], [0]]


def test_comparison_then_argwhere_of_a_tracked_tensor_records_nothing():
    x = leaf([[1.0, -1.0], [-2.0, 3.0]])
    w = x.greater_elem(0.0).argwhere()
    assert not w.is_tracked()
    assert w.to_torch().grad_fn is None


# ==================================================================================================
# Bad input: ValueError / TypeError / IndexError naming the shapes, before anything is recorded
# ==================================================================================================
X = leaf(np.arange(12.0).reshape(3, 4))


@pytest.mark.parametrize("call, error, fragments", [
    (lambda: (X.narrow, 0, 2, 2), ValueError, ["2..4", "[3, 4]"]),
    (lambda: (X.narrow, 1, 0, 0), ValueError, ["length 0"]),
    (lambda: (X.narrow, 1, -1, 1), ValueError, ["[3, 4]"]),
    (lambda: (X.narrow, 2, 0, 1), IndexError, ["dimension 2"]),
    (lambda: (X.split, 0, 0), ValueError, ["at least 1", "[3, 4]"]),
    (lambda: (X.chunk, 0, 0), ValueError, ["at least 1"]),
    (lambda: (X.flip, [0, -2]), ValueError, ["not distinct", "[3, 4]"]),
    (lambda: (X.flip, [2]), IndexError, ["dimension 2"]),
    (lambda: (X.movedim, [0, 1], [1]), ValueError, ["2 source dims but 1"]),
    (lambda: (X.movedim, 0, 5), IndexError, ["dimension 5"]),
    (lambda: (X.repeat, [1, 1, 2]), ValueError, ["3 sizes", "[3, 4]"]),
    (lambda: (X.repeat_dim, 0, -1), ValueError, ["non-negative"]),
    (lambda: (X.sum().tril, 0), ValueError, ["rank >= 2", "[1]"]),
    (lambda: (X.triu, 0.5), TypeError, ["diagonal"]),
    (lambda: (X.unfold, 0, 2, 0), ValueError, ["step"]),
    (lambda: (X.squeeze_dims, [1]), ValueError, ["size 4", "[3, 4]"]),
    (lambda: (X.slice_dim(0, slice(0, 1)).sum_dim(1).squeeze,), ValueError, ["no dim", "[1, 1]"]),
    (lambda: (X.slice_assign, [slice(0, 2)], leaf(np.zeros((2, 3)))), ValueError, ["[2, 3]", "[2, 4]"]),
    (lambda: (X.slice_assign, [slice(0, 1)], Tensor.zeros([1, 4], AD, Int)), TypeError, ["kind"]),
    (lambda: (X.slice_assign, [slice(0, 1)], np.zeros((1, 4))), TypeError, ["Tensor"]),
    (lambda: (X.slice_fill, [slice(0, 1), slice(0, 1), slice(0, 1)], 1.0), ValueError, ["3 ranges"]),
    (lambda: (X.slice_fill, [slice(0, 1, 0)], 1.0), ValueError, ["step"]),
    (lambda: (X.int().slice_fill, [0], 1.5), TypeError, ["float scalar"]),
    (lambda: (X.select_assign, 1, [0, 4], leaf(np.zeros((3, 2))), ADD), IndexError, ["0..4", "[3, 4]"]),
    (lambda: (X.select_assign, 1, [0], leaf(np.zeros((3, 2))), ADD), ValueError, ["[3, 2]", "[3, 1]"]),
    (lambda: (X.select_assign, 1, [[0]], leaf(np.zeros((3, 1))), ADD), ValueError, ["rank 1"]),
    (lambda: (X.select_assign, 1, [0], leaf(np.zeros((3, 1))), "add"), TypeError, ["IndexingUpdateOp"]),
    (lambda: (X.select_assign, 1, [0.5], leaf(np.zeros((3, 1))), ADD), TypeError, ["Int"]),
    (lambda: (X.select_assign, 1, [0], Tensor.zeros([3, 1], AD), ADD), TypeError, ["dtype"]),
    (lambda: (X.bool().select_assign, 1, [0], X.bool().narrow(1, 0, 1), ADD), TypeError, ["Bool"]),
    (lambda: (X.scatter, 0, [[0, 1, 2, 3]], leaf(np.zeros((1, 3))), MAX), ValueError, ["[1, 4]", "[1, 3]"]),
    (lambda: (X.scatter, 0, [[0, 1, 2]], leaf(np.zeros((1, 3))), MAX), ValueError, ["[3, 4]"]),
    (lambda: (X.scatter, 0, [[0, 1, 2, 3]], leaf(np.zeros((1, 4))), MAX), IndexError, ["0..3"]),
    (lambda: (X.scatter, 1, [[-1, 0, 0, 0]] * 3, leaf(np.zeros((3, 4))), ADD), IndexError, ["-1"]),
    (lambda: (X.gather_nd, [[0, 1, 2]]), ValueError, ["[1, 3]", "[3, 4]"]),
    (lambda: (X.gather_nd, [0, 1]), ValueError, ["rank-0"]),
    (lambda: (X.gather_nd, [[3, 0]]), IndexError, ["0..3"]),
    (lambda: (X.scatter_nd, [[0]], leaf(np.zeros((1, 3))), ADD), ValueError, ["[1, 3]", "[1, 4]"]),
    (lambda: (X.scatter_nd, [[0, 4]], leaf(np.zeros(1)), ASSIGN), IndexError, ["0..4"]),
    (lambda: (X.mask_select, Tensor.from_bools([[True] * 4], AD)), ValueError, ["[1, 4]", "[3, 4]"]),
    (lambda: (X.mask_select, X.greater_elem(0).int()), TypeError, ["Bool"]),
    (lambda: (Tensor.from_data([0, 3], AD).one_hot, 3), ValueError, ["-3..3"]),
    (lambda: (Tensor.from_data([0, -4], AD).one_hot, 3), ValueError, ["-3..3"]),
    (lambda: (Tensor.from_data([0], AD).one_hot, 1), ValueError, ["2 classes"]),
    (lambda: (X.greater_elem(0).one_hot, 2), TypeError, ["Bool"]),
    (lambda: (X.argwhere,), TypeError, ["argwhere needs a Bool tensor, got Float"]),
    (lambda: (X.nonzero,), TypeError, ["nonzero needs a Bool tensor, got Float"]),
])
def test_bad_input_raises_before_recording(call, error, fragments):
    rejects(error, call, *fragments)
