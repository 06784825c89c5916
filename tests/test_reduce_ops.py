"""Reductions, scans, sorting, statistics and truth reductions: Burn's shapes, kinds and gradients.

Property tests check every differentiable op's values and gradients against torch autograd
(``burn_torch.testing``) on values without ties. Where Burn routes a gradient differently from
torch (ties in ``max``/``min``/``median``/``sort``/``topk``/``cummax``) the Burn rule is checked
with exact values. Also: forward shapes (``[1]`` for full reductions, the dim kept by ``*_dim``),
Int semantics, empty and negative dims, non-differentiable results and error messages.
"""
from __future__ import annotations

import math

import numpy as np
import pytest
import torch
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from burn_torch import Bool, Device, DType, Float, Int, Tensor
from burn_torch.testing import Const, assert_grads_match_torch, check_grads_numerically, covers
from burn_torch.testing.strategies import dims, float_arrays, shapes

AD = Device.cpu().autodiff()
SETTINGS = settings(deadline=None, max_examples=30,
                    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
losses = st.sampled_from(["weighted", "sum"])


def values(t: Tensor):
    return t.to_data().to_list()


def leaf(arr) -> Tensor:
    return Tensor.from_data(np.asarray(arr, dtype=np.float64), AD).require_grad()


def grad(x: Tensor, y: Tensor, weights=None):
    """The gradient of ``(y * weights).sum()`` (weights default to ones) with respect to ``x``."""
    loss = y.sum() if weights is None else (y * Tensor.from_data(np.asarray(weights, dtype=np.float64), AD)).sum()
    return values(x.grad(loss.backward()))


@st.composite
def array_and_dim(draw, min_side=1, max_rank=4, distinct=False, low=-2.0, high=2.0, avoid=()):
    shape = draw(shapes(1, max_rank, min_side=min_side))
    arr = draw(float_arrays(shape, low, high, avoid=avoid, distinct=distinct))
    return arr, draw(dims(len(shape)))


@st.composite
def with_zeros(draw, arr):
    """``arr`` with 0-2 of its elements set to exactly zero."""
    out = arr.copy()
    flat = out.reshape(-1)
    count = draw(st.integers(0, min(2, flat.size)))
    for i in draw(st.permutations(range(flat.size)))[:count]:
        flat[i] = 0.0
    return out


# =============================================================================================
# Gradients against torch autograd (no ties)
# =============================================================================================
@covers("sum", "mean", "sum_dim", "mean_dim")
@SETTINGS
@given(case=array_and_dim(), loss=losses)
def test_sum_and_mean_grads_match_torch(case, loss):
    x, dim = case
    assert_grads_match_torch(lambda t: (t.sum(), t.mean(), t.sum_dim(dim), t.mean_dim(dim)), x,
                             loss=loss)


@covers("prod", "prod_dim")
@SETTINGS
@given(data=st.data(), loss=losses)
def test_prod_grads_match_torch_with_zeros(data, loss):
    arr, dim = data.draw(array_and_dim(max_rank=3, avoid=0.0))
    x = data.draw(with_zeros(arr))
    assert_grads_match_torch(lambda t: (t.prod(), t.prod_dim(dim)), x, loss=loss)


def test_prod_grads_match_finite_differences_with_zeros():
    x = np.array([[0.0, 1.5, -2.0], [0.5, 0.0, 0.0], [1.2, -0.7, 3.0]])
    check_grads_numerically(lambda t: (t.prod(), t.prod_dim(0), t.prod_dim(1)), x)


@covers("max", "min")
@SETTINGS
@given(case=array_and_dim(distinct=True), loss=losses)
def test_max_min_grads_match_torch(case, loss):
    x, _ = case
    assert_grads_match_torch(lambda t: (t.max(), t.min()), x, loss=loss)


@covers("max_dim", "min_dim")
@SETTINGS
@given(case=array_and_dim(distinct=True), loss=losses)
def test_max_min_dim_grads_match_torch(case, loss):
    x, dim = case
    assert_grads_match_torch(lambda t: (t.max_dim(dim), t.min_dim(dim)) + t.max_dim_with_indices(dim)
                             + t.min_dim_with_indices(dim), x, loss=loss)


@covers("cumsum", "cumprod")
@SETTINGS
@given(data=st.data(), loss=losses)
def test_cumsum_cumprod_grads_match_torch(data, loss):
    arr, dim = data.draw(array_and_dim(avoid=0.0))
    x = data.draw(with_zeros(arr))
    assert_grads_match_torch(lambda t: (t.cumsum(dim), t.cumprod(dim)), x, loss=loss)


@covers("cummax", "cummin")
@SETTINGS
@given(case=array_and_dim(distinct=True), loss=losses)
def test_cummax_cummin_grads_match_torch(case, loss):
    x, dim = case
    assert_grads_match_torch(lambda t: (t.cummax(dim), t.cummin(dim)), x, loss=loss)


@covers("sort")
@SETTINGS
@given(case=array_and_dim(distinct=True), loss=losses)
def test_sort_grads_match_torch(case, loss):
    x, dim = case
    assert_grads_match_torch(lambda t: (t.sort(dim), t.sort_descending(dim)) + t.sort_with_indices(dim)
                             + t.sort_descending_with_indices(dim), x, loss=loss)


@covers("topk")
@SETTINGS
@given(data=st.data(), loss=losses)
def test_topk_grads_match_torch(data, loss):
    x, dim = data.draw(array_and_dim(distinct=True))
    k = data.draw(st.integers(0, x.shape[dim]))
    assert_grads_match_torch(lambda t: (t.topk(k, dim),) + t.topk_with_indices(k, dim), x, loss=loss)


@covers("var", "mean_dim")
@SETTINGS
@given(case=array_and_dim(min_side=2), dtype=st.sampled_from([np.float64, np.float32]), loss=losses)
def test_var_grads_match_torch(case, dtype, loss):
    x, dim = case
    assert_grads_match_torch(lambda t: (t.var(dim), t.var_bias(dim)) + t.var_mean(dim)
                             + t.var_mean_bias(dim), x.astype(dtype), loss=loss)


@covers("median")
@SETTINGS
@given(case=array_and_dim(distinct=True), loss=losses)
def test_median_grads_match_torch(case, loss):
    x, dim = case
    assert_grads_match_torch(lambda t: (t.median(dim),) + t.median_with_indices(dim), x, loss=loss)


@pytest.mark.parametrize("name", ["prod", "max", "cumprod", "sort", "var", "median"])
def test_constant_operand_gets_no_gradient(name):
    x = np.array([[1.5, -0.5, 2.0], [0.25, 3.0, -1.0]])
    ops = {"prod": lambda t: t.prod(), "max": lambda t: t.max(), "cumprod": lambda t: t.cumprod(1),
           "sort": lambda t: t.sort(0), "var": lambda t: t.var(1), "median": lambda t: t.median(1)}
    op = ops[name]
    assert_grads_match_torch(lambda a, c: op(a) * op(c), x, Const(x * 2.0))


# =============================================================================================
# Burn's gradient routing among equal values (torch's full max/min/median split it)
# =============================================================================================
def test_max_gradient_goes_to_the_first_maximum_only():
    x = leaf([[1.0, 3.0], [3.0, 0.0]])
    assert grad(x, x.max(), [2.0]) == [[0.0, 2.0], [0.0, 0.0]]  # torch: [[0, 1], [1, 0]]


def test_min_gradient_goes_to_the_first_minimum_only():
    x = leaf([[1.0, -3.0], [-3.0, -3.0]])
    assert grad(x, x.min()) == [[0.0, 1.0], [0.0, 0.0]]


def test_max_dim_min_dim_gradients_go_to_the_first_extremum():
    x = leaf([[5.0, 1.0, 5.0], [2.0, 2.0, 7.0]])
    vals, idx = x.max_dim_with_indices(1)
    assert values(vals) == [[5.0], [7.0]] and values(idx) == [[0], [2]]
    assert grad(x, vals) == [[1.0, 0.0, 0.0], [0.0, 0.0, 1.0]]
    y = leaf([[5.0, 1.0, 5.0], [2.0, 2.0, 7.0]])
    vals, idx = y.min_dim_with_indices(1)
    assert values(idx) == [[1], [0]]
    assert grad(y, vals) == [[0.0, 1.0, 0.0], [1.0, 0.0, 0.0]]


def test_median_gradient_goes_to_the_stable_sort_position():
    # stable ascending order of [2, 1, 2, 2] is indices [1, 0, 2, 3]; the lower median is
    # position (4 - 1) // 2 = 1, i.e. element 0. torch.median() would split among the three 2s.
    x = leaf([[2.0, 1.0, 2.0, 2.0], [2.0, 2.0, 2.0, 9.0]])
    vals, idx = x.median_with_indices(1)
    assert values(vals) == [[2.0], [2.0]] and values(idx) == [[0], [1]]
    assert grad(x, vals) == [[1.0, 0.0, 0.0, 0.0], [0.0, 1.0, 0.0, 0.0]]


def test_median_is_the_lower_median():
    x = leaf([[4.0, 1.0, 3.0, 2.0]])
    assert values(x.median(1)) == [[2.0]]
    assert grad(x, x.median(1)) == [[0.0, 0.0, 0.0, 1.0]]


def test_cummax_gradient_goes_to_the_latest_equal_running_maximum():
    x = leaf([3.0, 1.0, 3.0, 2.0, 3.0])
    y = x.cummax(0)
    assert values(y) == [3.0] * 5
    # sources per output: [0, 0, 2, 2, 4]
    assert grad(x, y, [1.0, 10.0, 100.0, 1000.0, 10000.0]) == [11.0, 0.0, 1100.0, 0.0, 10000.0]


def test_cummin_gradient_goes_to_the_latest_equal_running_minimum():
    x = leaf([[3.0, 1.0, 3.0, 1.0, 0.0]])
    y = x.cummin(1)
    assert values(y) == [[3.0, 1.0, 1.0, 1.0, 0.0]]
    assert grad(x, y, [[1.0, 10.0, 100.0, 1000.0, 10000.0]]) == [[1.0, 110.0, 0.0, 1000.0, 10000.0]]


def test_sort_is_stable_and_each_value_keeps_its_gradient():
    x = leaf([1.0, 0.0, 1.0, 0.0])
    vals, idx = x.sort_with_indices(0)
    assert values(vals) == [0.0, 0.0, 1.0, 1.0] and values(idx) == [1, 3, 0, 2]
    assert grad(x, vals, [1.0, 2.0, 3.0, 4.0]) == [3.0, 1.0, 4.0, 2.0]
    y = leaf([1.0, 0.0, 1.0, 0.0])
    vals, idx = y.sort_descending_with_indices(0)
    assert values(vals) == [1.0, 1.0, 0.0, 0.0] and values(idx) == [0, 2, 1, 3]
    assert grad(y, vals, [1.0, 2.0, 3.0, 4.0]) == [1.0, 3.0, 2.0, 4.0]


def test_topk_takes_the_lowest_indices_among_equal_values():
    x = leaf([[1.0, 2.0, 2.0, 0.0, 2.0]])
    vals, idx = x.topk_with_indices(2, 1)
    assert values(vals) == [[2.0, 2.0]] and values(idx) == [[1, 2]]
    assert grad(x, vals, [[1.0, 10.0]]) == [[0.0, 1.0, 10.0, 0.0, 0.0]]


# =============================================================================================
# Exact values: products with zeros, statistics, scans
# =============================================================================================
def test_prod_gradient_with_one_zero_is_the_product_of_the_others():
    x = leaf([[2.0, 0.0, 3.0], [1.0, 4.0, -0.5]])
    assert values(x.prod()) == [0.0]
    assert grad(x, x.prod()) == [[0.0, -12.0, 0.0], [0.0, 0.0, 0.0]]


def test_prod_gradient_with_two_zeros_is_zero():
    x = leaf([[0.0, 2.0, 0.0]])
    assert grad(x, x.prod()) == [[0.0, 0.0, 0.0]]


def test_prod_dim_gradient_with_zeros():
    x = leaf([[2.0, 0.0, 3.0], [0.0, 0.0, 5.0], [1.5, 2.0, 4.0]])
    y = x.prod_dim(1)
    assert values(y) == [[0.0], [0.0], [12.0]]
    assert grad(x, y) == [[0.0, 6.0, 0.0], [0.0, 0.0, 0.0], [8.0, 6.0, 3.0]]


def test_cumprod_gradient_with_a_zero():
    x = leaf([2.0, 0.0, 3.0, 0.5])
    y = x.cumprod(0)
    assert values(y) == [2.0, 0.0, 0.0, 0.0]
    # d/dx1 of (2 + 2 x1 + 2 x1 x2 + 2 x1 x2 x3) at x1 = 0 is 2 + 6 + 3 = 11
    assert grad(x, y) == [1.0, 11.0, 0.0, 0.0]


def test_cumsum_values_and_gradient():
    x = leaf([[1.0, 2.0, 3.0]])
    y = x.cumsum(-1)
    assert values(y) == [[1.0, 3.0, 6.0]]
    assert grad(x, y, [[1.0, 10.0, 100.0]]) == [[111.0, 110.0, 100.0]]


def test_var_values():
    x = leaf([[1.0, 2.0, 3.0, 6.0]])
    assert values(x.var(1)) == [[14.0 / 3.0]]
    assert values(x.var_bias(1)) == [[3.5]]
    var, mean = x.var_mean(1)
    assert values(var) == [[14.0 / 3.0]] and values(mean) == [[3.0]]
    var, mean = x.var_mean_bias(-1)
    assert values(var) == [[3.5]] and values(mean) == [[3.0]]


def test_var_of_one_element_is_nan_with_nan_gradient():
    x = leaf([[2.0], [3.0]])
    y = x.var(1)
    assert y.dims() == [2, 1] and all(math.isnan(v) for (v,) in values(y))
    assert all(math.isnan(v) for (v,) in grad(x, y))
    z = leaf([[2.0], [3.0]])
    assert values(z.var_bias(1)) == [[0.0], [0.0]]
    assert grad(z, z.var_bias(1)) == [[0.0], [0.0]]


# =============================================================================================
# Forward shapes, kinds and tracking
# =============================================================================================
@SETTINGS
@given(case=array_and_dim(distinct=True), k=st.integers(0, 5))
def test_forward_shapes(case, k):
    x, dim = case
    t = leaf(x)
    shape = list(x.shape)
    kept = list(shape)
    kept[dim] = 1
    for name in ("sum", "mean", "prod", "max", "min", "any", "all"):
        assert getattr(t, name)().dims() == [1], name
    for name in ("sum_dim", "mean_dim", "prod_dim", "max_dim", "min_dim", "argmax", "argmin",
                 "var", "var_bias", "median", "any_dim", "all_dim"):
        assert getattr(t, name)(dim).dims() == kept, name
    for name in ("cumsum", "cumprod", "cummax", "cummin", "sort", "sort_descending", "argsort",
                 "argsort_descending"):
        assert getattr(t, name)(dim).dims() == shape, name
    k = min(k, shape[dim])
    top = list(shape)
    top[dim] = k
    assert t.topk(k, dim).dims() == top
    assert [o.dims() for o in t.topk_with_indices(k, dim)] == [top, top]
    assert [o.dims() for o in t.var_mean(dim)] == [kept, kept]
    for name in ("max_dim_with_indices", "min_dim_with_indices", "median_with_indices"):
        assert [o.dims() for o in getattr(t, name)(dim)] == [kept, kept], name


@covers("argsort", "any", "all", "any_dim", "all_dim")
@SETTINGS
@given(case=array_and_dim(distinct=True), kind=st.sampled_from(["float", "int", "bool"]))
def test_non_differentiable_results_match_numpy(case, kind):
    arr, dim = case
    if kind == "float":
        arr = np.where(arr > 1.0, 0.0, arr)  # some zeros
        t = leaf(arr)
    elif kind == "int":
        arr = np.round(arr * 3).astype(np.int64)
        t = Tensor.from_ints(arr, AD)
    else:
        arr = arr > 0.0
        t = Tensor.from_bools(arr, AD)
    results = [(t.any(), np.array([arr.any()])), (t.all(), np.array([arr.all()])),
               (t.any_dim(dim), arr.any(axis=dim, keepdims=True)),
               (t.all_dim(dim), arr.all(axis=dim, keepdims=True))]
    if kind != "bool":
        results += [(t.argsort(dim), np.argsort(arr, axis=dim, kind="stable")),
                    (t.argsort_descending(dim), np.argsort(-arr, axis=dim, kind="stable"))]
    for out, want in results:
        assert out.kind is (Bool if want.dtype == np.bool_ else Int)
        assert not out.is_tracked() and out.is_autodiff()
        np.testing.assert_array_equal(out.to_data().to_numpy(), want)


def test_indices_and_truth_values_are_never_tracked():
    x = leaf([[1.0, 3.0, 2.0], [0.0, -1.0, 4.0]])
    outs = [x.argmax(1), x.argmin(0), x.argsort(1), x.argsort_descending(0), x.any(), x.all(),
            x.any_dim(1), x.all_dim(0)]
    for pair in (x.max_dim_with_indices(1), x.min_dim_with_indices(1), x.sort_with_indices(0),
                 x.sort_descending_with_indices(1), x.topk_with_indices(2, 1), x.median_with_indices(1)):
        vals, idx = pair
        assert vals.is_tracked() and vals.kind is Float
        outs.append(idx)
    for out in outs:
        assert not out.is_tracked() and out._node is None and out.kind in (Int, Bool)


def test_any_all_on_floats_count_nonzero_and_nan_as_true():
    x = Tensor.from_data(np.array([[0.0, math.nan], [0.0, 0.0]]), AD)
    assert values(x.any()) == [True] and values(x.all()) == [False]
    assert values(x.any_dim(1)) == [[True], [False]] and values(x.all_dim(0)) == [[False, False]]
    assert x.any().kind is Bool and x.any().is_autodiff()


def test_any_all_of_uint8_are_bool():
    x = Tensor.from_data(np.array([0, 3], dtype=np.uint8), AD)
    assert x.any().dtype() is DType.BOOL and x.all_dim(0).dtype() is DType.BOOL
    assert values(x.any()) == [True] and values(x.all_dim(0)) == [False]


def _every_reduction_loss(x: Tensor) -> Tensor:
    h = (x * 1.5).exp()  # memory-bound: recomputed under BALANCED
    return (h.prod() + h.prod_dim(1).sum() + h.max() + h.min_dim(0).sum() + h.cumsum(0).sum()
            + h.cumprod(1).sum() + h.cummax(1).sum() + h.cummin(0).sum() + h.sort(0).sum()
            + h.topk(2, 1).sum() + h.var(1).sum() + h.median(1).sum())


def test_balanced_checkpointing_gives_the_same_gradients():
    arr = np.array([[0.2, 0.0, -0.3], [0.5, -1.0, 0.4]])
    grads = []
    for device in (AD, Device.cpu().autodiff().gradient_checkpointing()):
        x = Tensor.from_data(arr, device).require_grad()
        grads.append(x.grad(_every_reduction_loss(x).backward()).to_torch())
    assert torch.equal(grads[0], grads[1])


@pytest.mark.parametrize("dtype", [DType.F16, DType.BF16])
def test_half_precision_results_and_gradients_keep_the_dtype(dtype):
    x = Tensor.from_data(torch.tensor([[0.2, 0.0, -0.3], [0.5, -1.0, 0.4]]).to(dtype.torch), AD).require_grad()
    loss = _every_reduction_loss(x)
    assert loss.dtype() is dtype
    g = x.grad(loss.backward())
    assert g.dtype() is dtype and torch.isfinite(g.to_torch()).all()


def test_results_on_a_plain_device_have_no_autodiff():
    x = Tensor.from_data(np.array([[1.0, 2.0], [3.0, 0.0]]), Device.cpu())
    for out in (x.prod(), x.max(), x.cummax(0), x.sort(1), x.var(0), x.median(1), x.any()):
        assert not out.is_autodiff() and not out.is_tracked()


# =============================================================================================
# Int semantics
# =============================================================================================
def test_int_prod_and_scans_keep_the_dtype():
    x = Tensor.from_ints([[1, -2, 3], [4, 5, -6]], AD, dtype=DType.I32)
    for out, want in ((x.prod(), [720]), (x.prod_dim(1), [[-6], [-120]]),
                      (x.cumsum(1), [[1, -1, 2], [4, 9, 3]]), (x.cumprod(0), [[1, -2, 3], [4, -10, -18]])):
        assert out.dtype() is DType.I32 and out.kind is Int and not out.is_tracked()
        assert values(out) == want


def test_int_extrema_sort_and_topk():
    x = Tensor.from_ints([[3, 7, 7], [-1, 0, 2]], AD)
    assert values(x.max()) == [7] and values(x.min()) == [-1] and x.max().kind is Int
    assert values(x.cummax(1)) == [[3, 7, 7], [-1, 0, 2]]
    assert values(x.cummin(0)) == [[3, 7, 7], [-1, 0, 2]]
    assert values(x.sort_descending(1)) == [[7, 7, 3], [2, 0, -1]]
    vals, idx = x.topk_with_indices(2, 1)
    assert values(vals) == [[7, 7], [2, 0]] and values(idx) == [[1, 2], [2, 1]]


@pytest.mark.parametrize("name", ["var", "var_bias", "var_mean", "var_mean_bias", "median",
                                  "median_with_indices"])
def test_statistics_need_float(name):
    x = Tensor.from_ints([[1, 2], [3, 4]], AD)
    with pytest.raises(TypeError, match="Float"):
        getattr(x, name)(0)


@pytest.mark.parametrize("call", ["prod()", "prod_dim(0)", "max()", "min()", "max_dim(0)",
                                  "min_dim_with_indices(0)", "argmax(0)", "argmin(0)", "cumsum(0)",
                                  "cumprod(0)", "cummax(0)", "cummin(0)", "sort(0)",
                                  "sort_descending_with_indices(0)", "argsort(0)", "topk(1, 0)"])
def test_numeric_ops_reject_bool(call):
    x = Tensor.from_bools([[True, False], [False, False]], AD)
    with pytest.raises(TypeError, match="Bool"):
        eval("x." + call)


# =============================================================================================
# Empty and negative dims
# =============================================================================================
def test_negative_dims_count_from_the_end():
    arr = np.array([[[3.0, 1.0], [2.0, 5.0]], [[0.5, 4.0], [1.0, -1.0]]])
    x = leaf(arr)
    for name in ("prod_dim", "max_dim", "cumsum", "cumprod", "cummax", "cummin", "sort", "argsort",
                 "var", "median", "any_dim", "all_dim"):
        for neg in (-1, -2, -3):
            assert values(getattr(x, name)(neg)) == values(getattr(x, name)(neg + 3)), (name, neg)
    assert values(x.topk(1, -2)) == values(x.topk(1, 1))


def test_reductions_over_an_empty_dim():
    x = leaf(np.zeros((2, 0)))
    assert values(x.prod()) == [1.0] and values(x.prod_dim(1)) == [[1.0], [1.0]]
    assert x.cumsum(1).dims() == [2, 0] and x.cumprod(1).dims() == [2, 0]
    assert x.cummax(1).dims() == [2, 0] and x.sort(1).dims() == [2, 0] and x.topk(0, 1).dims() == [2, 0]
    assert values(x.any()) == [False] and values(x.all()) == [True]
    assert values(x.any_dim(1)) == [[False], [False]] and values(x.all_dim(1)) == [[True], [True]]
    assert all(math.isnan(v) for (v,) in values(x.var_bias(1)))
    assert x.max_dim(0).dims() == [1, 0]  # reducing a non-empty dim of an empty tensor is fine


def test_gradients_through_empty_reductions_are_empty():
    x = leaf(np.zeros((2, 0)))
    loss = x.prod() + x.prod_dim(1).sum() + x.cumprod(1).sum() + x.cumsum(0).sum() + x.sort(1).sum()
    g = x.grad(loss.backward())
    assert g.dims() == [2, 0]


@pytest.mark.parametrize("call", ["max()", "min()", "max_dim(1)", "min_dim_with_indices(1)",
                                  "argmax(1)", "argmin(-1)", "median(1)"])
def test_selecting_from_nothing_raises_value_error_naming_the_shape(call):
    x = leaf(np.zeros((2, 0)))
    with pytest.raises(ValueError, match=r"\[2, 0\]"):
        eval("x." + call)


# =============================================================================================
# Errors name the shape and record nothing
# =============================================================================================
DIM_CALLS = ["prod_dim({})", "max_dim({})", "min_dim({})", "max_dim_with_indices({})",
             "min_dim_with_indices({})", "argmax({})", "argmin({})", "cumsum({})", "cumprod({})",
             "cummax({})", "cummin({})", "sort({})", "sort_descending({})", "sort_with_indices({})",
             "sort_descending_with_indices({})", "argsort({})", "argsort_descending({})",
             "topk(1, {})", "topk_with_indices(1, {})", "var({})", "var_bias({})", "var_mean({})",
             "var_mean_bias({})", "median({})", "median_with_indices({})", "any_dim({})", "all_dim({})"]


@pytest.mark.parametrize("call", DIM_CALLS)
@pytest.mark.parametrize("dim", [2, -3])
def test_bad_dim_raises_index_error_naming_the_shape(call, dim):
    x = leaf(np.ones((2, 3)))
    with pytest.raises(IndexError, match=r"\[2, 3\]"):
        eval("x." + call.format(dim))
    g = (x * 2.0).sum().backward()  # nothing was recorded: x is still a usable leaf
    assert values(x.grad(g)) == [[2.0] * 3] * 2


@pytest.mark.parametrize("k", [-1, 4])
def test_topk_out_of_range_raises_value_error_naming_the_shape(k):
    x = leaf(np.ones((2, 3)))
    with pytest.raises(ValueError, match=r"k=.*\[2, 3\]"):
        x.topk(k, 1)


@pytest.mark.parametrize("k", [1.0, True, "2"])
def test_topk_needs_an_int_k(k):
    with pytest.raises(TypeError, match="k must be an int"):
        leaf(np.ones((2, 3))).topk(k, 1)
