"""Comparisons, float predicates, Bool logic and Int division: Burn's semantics.

None of these ops is differentiable: on tracked inputs they give untracked Bool results (with the
inputs' autodiff association) and record nothing. Values are checked against numpy (property
tests) and Burn's own examples; bad kinds raise TypeError naming them.
"""
from __future__ import annotations

import math

import numpy as np
import pytest
import torch
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from burn_torch import Bool, Device, Int, Tensor
from burn_torch.autodiff.graph import new_leaf
from burn_torch.testing.strategies import broadcastable_pairs, float_arrays, masks, shapes

CPU = Device.cpu()
AD = CPU.autodiff()
SETTINGS = settings(deadline=None, max_examples=30,
                    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
NAN, INF = math.nan, math.inf


def values(t: Tensor):
    return t.to_data().to_list()


def leaf(arr) -> Tensor:
    return Tensor.from_data(np.asarray(arr, dtype=np.float64), AD).require_grad()


def assert_untracked_bool(t: Tensor) -> None:
    assert t.kind is Bool
    assert not t.is_tracked() and t.is_autodiff()
    assert t.to_torch().grad_fn is None and not t.to_torch().requires_grad


@st.composite
def special_floats(draw, shape):
    """Float arrays with some entries replaced by NaN, +inf or -inf."""
    arr = draw(float_arrays(shape))
    picks = draw(masks(shape))
    kinds = np.random.default_rng(draw(st.integers(0, 2**32 - 1))).integers(0, 3, shape)
    return np.where(picks, np.choose(kinds, [NAN, INF, -INF]), arr)


# ==================================================================================================
# Float predicates
# ==================================================================================================
@SETTINGS
@given(data=st.data())
def test_float_predicates_match_numpy_and_record_nothing(data):
    arr = data.draw(special_floats(data.draw(shapes())))
    x = leaf(arr)
    for got, want in ((x.is_nan(), np.isnan(arr)), (x.is_inf(), np.isinf(arr)),
                      (x.is_finite(), np.isfinite(arr))):
        assert_untracked_bool(got)
        assert values(got) == want.tolist()
    nan = x.contains_nan()
    assert_untracked_bool(nan)
    assert values(nan) == [bool(np.isnan(arr).any())]


def test_contains_nan_is_a_one_element_bool():
    assert values(Tensor.from_data([[1.0, 2.0]], CPU).contains_nan()) == [False]
    assert values(Tensor.from_data([[1.0, NAN]], CPU).contains_nan()) == [True]
    assert values(Tensor.zeros([0, 3], CPU).contains_nan()) == [False]


@pytest.mark.parametrize("predicate", ["is_nan", "is_inf", "is_finite", "contains_nan"])
@pytest.mark.parametrize("make", [lambda: Tensor.from_data([1, 2], AD),
                                  lambda: Tensor.from_bools([True], AD)])
def test_float_predicates_reject_int_and_bool_tensors(predicate, make):
    x = make()
    with pytest.raises(TypeError, match=f"{predicate} needs a Float tensor, got {x.kind}"):
        getattr(x, predicate)()


# ==================================================================================================
# is_close / all_close
# ==================================================================================================
@SETTINGS
@given(data=st.data(), rtol=st.sampled_from([None, 1e-3, 0.0]), atol=st.sampled_from([None, 1e-2, 0.0]))
def test_is_close_matches_numpy_isclose(data, rtol, atol):
    sa, sb = data.draw(broadcastable_pairs(max_rank=3))
    a = data.draw(special_floats(sa))
    b = a if sa == sb else data.draw(special_floats(sb))
    b = b + data.draw(float_arrays(sb, -1e-2, 1e-2))  # near a: close or not depending on tolerances
    got = leaf(a).is_close(leaf(b), rtol, atol)
    assert_untracked_bool(got)
    want = np.isclose(a, b, 1e-5 if rtol is None else rtol, 1e-8 if atol is None else atol)
    assert values(got) == want.tolist()


def test_is_close_follows_burns_example_and_defaults():
    a = Tensor.from_data([[0.0, 1.0, 0.0], [1.0, -1.0, 1.0]], CPU)
    b = Tensor.from_data([[0.0, 1.0, 0.0], [1.0, -1.0, 3.0]], CPU) + 1e-9
    expected = [[True, True, True], [True, True, False]]
    assert values(a.is_close(b)) == expected
    assert values(a.is_close(b, None, None)) == expected
    assert values(a.is_close(b, 1e-5, 1e-8)) == expected
    assert values(a.is_close(b, 1.0, 0.0)) == [[True, True, True], [True, True, True]]


def test_is_close_treats_equal_infinities_as_close_and_nan_as_never_close():
    a = Tensor.from_data([INF, -INF, INF, NAN, 1.0], CPU)
    b = Tensor.from_data([INF, -INF, -INF, NAN, INF], CPU)
    assert values(a.is_close(b)) == [True, True, False, False, False]


def test_all_close_follows_burns_example():
    a = Tensor.from_data([[0.0, 1.0, 0.0], [1.0, -1.0, 1.0]], CPU)
    assert a.all_close(Tensor.from_data([[0.0, 1.0, 0.0], [1.0, -1.0, 1.0]], CPU) + 1e-9) is True
    assert a.all_close(Tensor.from_data([[0.0, 1.0, 0.0], [1.0, -1.0, 3.0]], CPU)) is False
    inf = Tensor.from_data([[INF]], CPU)
    assert inf.all_close(inf) is True
    assert inf.all_close(Tensor.from_data([[-INF]], CPU)) is False


def test_is_close_rejects_int_tensors():
    x = Tensor.from_data([1, 2], CPU)
    with pytest.raises(TypeError, match="is_close needs Float tensors, got Int and Int"):
        x.is_close(x)


# ==================================================================================================
# Comparisons and their _elem forms
# ==================================================================================================
COMPARISONS = {"equal": np.equal, "not_equal": np.not_equal, "greater": np.greater,
               "greater_equal": np.greater_equal, "lower": np.less, "lower_equal": np.less_equal}


@SETTINGS
@given(data=st.data(), name=st.sampled_from(sorted(COMPARISONS)))
def test_comparisons_broadcast_like_numpy_and_record_nothing(data, name):
    sa, sb = data.draw(broadcastable_pairs(max_rank=3))
    a = np.round(data.draw(float_arrays(sa)))  # rounding makes ties frequent
    b = np.round(data.draw(float_arrays(sb)))
    got = getattr(leaf(a), name)(leaf(b))
    assert_untracked_bool(got)
    assert values(got) == COMPARISONS[name](a, b).tolist()
    scalar = float(np.round(b.reshape(-1)[0]))
    got = getattr(leaf(a), f"{name}_elem")(scalar)
    assert_untracked_bool(got)
    assert values(got) == COMPARISONS[name](a, scalar).tolist()


def test_elem_comparisons_on_int_tensors_take_int_scalars():
    x = Tensor.from_data([[1, -2, 3], [5, 9, 6]], CPU)
    assert values(x.greater_elem(3)) == [[False, False, False], [True, True, True]]
    assert values(x.lower_equal_elem(3)) == [[True, True, True], [False, False, False]]
    assert values(x.equal_elem(-2)) == [[False, True, False], [False, False, False]]


@pytest.mark.parametrize("name", [f"{n}_elem" for n in sorted(COMPARISONS)])
def test_elem_comparisons_reject_a_float_scalar_on_an_int_tensor(name):
    with pytest.raises(TypeError, match="a float scalar with a Int tensor"):
        getattr(Tensor.from_data([1, 2], CPU), name)(1.5)


@pytest.mark.parametrize("bad", ["1", None, 1j, [1.0]])
def test_elem_comparisons_reject_non_scalars(bad):
    with pytest.raises(TypeError, match="expected a real Python scalar"):
        Tensor.from_data([1.0], CPU).equal_elem(bad)


def test_comparison_of_different_kinds_raises_type_error():
    with pytest.raises(TypeError, match="same kind, got Float and Int"):
        Tensor.from_data([1.0], CPU).equal(Tensor.from_data([1], CPU))


def test_comparison_of_incompatible_shapes_raises_value_error_naming_them():
    with pytest.raises(ValueError, match=r"greater: .*\[2\], \[3\]"):
        Tensor.zeros([2], CPU).greater(Tensor.zeros([3], CPU))


# ==================================================================================================
# Bool logic
# ==================================================================================================
@SETTINGS
@given(data=st.data())
def test_bool_logic_matches_numpy(data):
    sa, sb = data.draw(broadcastable_pairs(max_rank=3))
    a, b = data.draw(masks(sa)), data.draw(masks(sb))
    ta, tb = Tensor.from_data(a, AD), Tensor.from_data(b, AD)
    for got, want in ((ta.bool_and(tb), a & b), (ta.bool_or(tb), a | b), (ta.bool_not(), ~a)):
        assert_untracked_bool(got)
        assert values(got) == want.tolist()


def test_bool_logic_of_comparisons_of_a_tracked_tensor_records_nothing():
    x = leaf([-1.0, 0.5, 2.0])
    inside = x.greater_elem(0.0).bool_and(x.lower_elem(1.0))
    assert values(inside) == [False, True, False]
    assert values(inside.bool_not().bool_or(x.is_nan())) == [True, False, True]
    assert_untracked_bool(inside)


@pytest.mark.parametrize("call", [
    lambda b, f, i: b.bool_and(i),
    lambda b, f, i: f.bool_or(b),
    lambda b, f, i: i.bool_not(),
    lambda b, f, i: f.bool_not(),
])
def test_bool_logic_rejects_non_bool_tensors_before_recording(call):
    b, f, i = Tensor.from_bools([True], AD), leaf([1.0]), Tensor.from_data([1], AD)
    before = new_leaf((1,), torch.float32).id
    with pytest.raises(TypeError, match="needs Bool tensors, got (Float|Int)"):
        call(b, f, i)
    assert new_leaf((1,), torch.float32).id == before + 1


def test_bool_and_rejects_a_non_tensor():
    with pytest.raises(TypeError, match="expected a Tensor operand, got bool"):
        Tensor.from_bools([True], CPU).bool_and(True)


# ==================================================================================================
# Int division and remainder (Burn: division truncates toward zero, remainder takes the divisor's
# sign)
# ==================================================================================================
def test_int_remainder_follows_burns_examples():
    lhs = Tensor.from_data([-3, -2, -1, 1, 2, 3], CPU)
    assert values(lhs.remainder(Tensor.from_data([2, 3, 1, 2, 1, 3], CPU))) == [1, 1, 0, 1, 0, 0]
    assert values(lhs.remainder_scalar(2)) == [1, 0, 1, 1, 0, 1]
    assert values(lhs % -2) == [-1, 0, -1, -1, 0, -1]


def test_int_division_truncates_toward_zero():
    a = Tensor.from_data([[0, 1, 2], [3, 4, 5]], CPU)
    assert values(a / Tensor.from_data([[1, 1, 2], [1, 1, 2]], CPU)) == [[0, 1, 1], [3, 4, 2]]
    assert values(a / 2) == [[0, 0, 1], [1, 2, 2]]
    n = Tensor.from_data([-7, 7, -7, 7], CPU)
    assert values(n / Tensor.from_data([2, -2, -2, 2], CPU)) == [-3, -3, 3, 3]
    assert values(n.div_scalar(-2)) == [3, -3, 3, -3]
    assert (n / 2).kind is Int


@SETTINGS
@given(data=st.data())
def test_int_division_and_remainder_match_rust_and_burn(data):
    shape = data.draw(shapes(max_rank=2))
    rng = np.random.default_rng(data.draw(st.integers(0, 2**32 - 1)))
    a = rng.integers(-20, 21, shape)
    b = rng.choice([-7, -3, -2, -1, 1, 2, 3, 7], shape)
    q = values(Tensor.from_data(a, CPU) / Tensor.from_data(b, CPU))
    r = values(Tensor.from_data(a, CPU).remainder(Tensor.from_data(b, CPU)))
    assert q == np.trunc(a / b).astype(np.int64).tolist()
    assert r == np.mod(a, b).tolist()  # numpy's mod takes the divisor's sign
