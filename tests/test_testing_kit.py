"""burn_torch.testing itself: it passes on correct rules and fails, with a per-leaf report, on
wrong ones; torch-oracle mode leaves no trace; the strategies draw what they promise."""
from __future__ import annotations

import contextlib
import pathlib
import re
import subprocess
import sys

import numpy as np
import pytest
import torch
from hypothesis import given, settings

from burn_torch import Device, DType, Tensor, activation
from burn_torch.autodiff import recorder
from burn_torch.autodiff.recorder import apply1, apply2
from burn_torch.ops import OPS
from burn_torch.ops.table import MEMORY, PASS, defop, vjp
from burn_torch.testing import (Const, assert_grads_match_torch, assert_matches_torch,
                                check_grads_numerically, covered_ops,
                                covers, torch_oracle_mode)
from burn_torch.testing import strategies

AD = Device.cpu().autodiff()
X = np.random.default_rng(0).standard_normal((3, 4))
Y = np.random.default_rng(1).standard_normal((3, 4))


@contextlib.contextmanager
def throwaway_op(name, forward, *rules, inputs=("x",)):
    """Declares a test-local op (one backward rule per input) and removes it from the op table
    afterwards."""
    op = defop(name, forward, MEMORY, inputs=inputs, vjp=rules)
    try:
        yield op
    finally:
        del OPS[name]


def _bump(g, s):
    """A wrong identity rule: element [1, 2] of the gradient is off by one."""
    wrong = g.clone()
    wrong[1, 2] += 1.0
    return wrong


_bump_one_element = vjp(_bump)


# -- passing on correct rules -------------------------------------------------------------------
def test_passes_on_correct_rules_and_returns_outputs_and_grads():
    res = assert_grads_match_torch(lambda a, b: (a @ b.transpose()).tanh() + activation.sigmoid(a).sum(),
                                   X, Y)
    assert res.outputs[0].dims() == [3, 3]
    assert [g.dims() for g in res.grads] == [[3, 4], [3, 4]]


def test_constants_get_no_gradient():
    idx = np.array([2, 0, 2])
    res = assert_grads_match_torch(lambda x, c, i: (x * c).select(0, i), X, Const(Y), idx)
    assert res.grads[0] is not None
    assert res.grads[1] is None and res.grads[2] is None


def test_unreached_leaf_has_no_gradient():
    res = assert_grads_match_torch(lambda x, y: x * 2.0, X, Y)
    assert res.grads[1] is None


def test_tuple_outputs_with_a_non_float_output():
    res = assert_grads_match_torch(lambda x: (x.exp(), x.argmax(1)), X)
    assert res.outputs[1].to_data().to_list() == np.argmax(X, 1).reshape(3, 1).tolist()


def test_float32_inputs_use_float32_tolerances():
    res = assert_grads_match_torch(lambda x: x.exp().sum_dim(1).log(), X.astype(np.float32))
    assert res.grads[0].to_torch().dtype == torch.float32


def test_detach_in_the_function_cuts_the_torch_graph_too():
    # detach makes the gradient differ from the loss's derivative on purpose
    res = assert_grads_match_torch(lambda x: x * x.detach(), X, loss="sum", numeric=False)
    assert res.grads[0].to_data().to_list() == X.tolist()


def test_given_leaf_tensor_is_taken_as_it_is():
    leaf = Tensor.from_data(X, AD.gradient_checkpointing()).require_grad()
    res = assert_grads_match_torch(lambda x: (x * x).exp(), leaf)
    assert res.grads[0].dims() == [3, 4]


def test_tracked_intermediate_argument_is_rejected():
    x = Tensor.from_data(X, AD).require_grad()
    with pytest.raises(ValueError, match="tracked intermediate"):
        assert_grads_match_torch(lambda y: y.exp(), x * 2.0)


def test_non_tensor_output_is_a_type_error():
    with pytest.raises(TypeError, match="output 0 is float"):
        assert_grads_match_torch(lambda x: 1.0, X)


# -- failing on wrong rules ---------------------------------------------------------------------
def test_wrong_rule_fails_with_the_worst_differences_and_their_index():
    with throwaway_op("kit_bumped_identity", torch.clone, _bump_one_element) as op:
        with pytest.raises(AssertionError) as err:
            assert_grads_match_torch(lambda x: apply1(op, x), X, loss="sum")
    message = str(err.value)
    assert "gradient of x (input 0) (shape [3, 4], float64): 1 of 12 elements" in message
    assert "worst abs diff 1 at [1, 2] (burn 2, torch 1)" in message
    assert "worst rel diff 1 at [1, 2]" in message


def test_a_failure_report_lists_the_inputs_with_their_exact_values():
    x = np.array([[0.1, 1 / 3], [-2.5e-8, 7.0]])
    with pytest.raises(AssertionError) as err:
        assert_matches_torch(lambda x, w: x.exp() * 1.001 + w, lambda x, w: torch.exp(x) + w,
                             x, Const(np.float32([[1.5, 2.0]])), seed=3)
    message = str(err.value)
    assert "seed=3" in message and "repeat the call with them and the same seed" in message
    shown = re.search(r"x \(input 0\) = (\[\[.*?\]\]) \(float64\)", message, re.S).group(1)
    assert np.array_equal(np.array(eval(shown)), x)  # every digit: the call can be repeated
    assert "w (input 1) = [[1.5, 2. ]] (float32)" in message


def test_a_failure_report_gives_large_inputs_by_shape():
    with pytest.raises(AssertionError, match=r"x \(input 0\) = <float64 tensor of shape \[5, 13\]>"):
        assert_matches_torch(lambda x: x.exp() * 1.001, torch.exp, np.ones((5, 13)))


def _threads_seen(x):
    _threads_seen.during = torch.get_num_threads()
    return x.exp()


@pytest.mark.parametrize("check", [
    lambda x: assert_matches_torch(_threads_seen, torch.exp, x),
    lambda x: assert_grads_match_torch(_threads_seen, x),
    lambda x: check_grads_numerically(_threads_seen, x)], ids=["reference", "oracle", "numeric"])
def test_a_small_check_runs_on_one_torch_thread_and_restores_the_setting(check):
    before = torch.get_num_threads()
    torch.set_num_threads(2)
    try:
        check(X)
        assert _threads_seen.during == 1 and torch.get_num_threads() == 2
        with pytest.raises(AssertionError):  # restored after a failing check too
            assert_matches_torch(_threads_seen, lambda x: torch.exp(x) + 1, X)
        assert torch.get_num_threads() == 2
    finally:
        torch.set_num_threads(before)


def test_a_large_check_keeps_the_threads():
    from burn_torch.testing.threads import SMALL_CHECK_ELEMENTS

    before = torch.get_num_threads()
    torch.set_num_threads(2)
    try:
        assert_matches_torch(_threads_seen, torch.exp, np.zeros(SMALL_CHECK_ELEMENTS + 1),
                             numeric=False)
        assert _threads_seen.during == 2
    finally:
        torch.set_num_threads(before)


def test_report_names_only_the_leaf_with_the_wrong_gradient():
    with throwaway_op("kit_wrong_mul", torch.mul, vjp(lambda g, s: g * s.b, "b"),
                      vjp(lambda g, s: g * s.a * 2.0, "a"), inputs=("a", "b")) as op:
        with pytest.raises(AssertionError) as err:
            assert_grads_match_torch(lambda a, b: apply2(op, a, b), X, Y)
    assert "gradient of b (input 1)" in str(err.value)
    assert "gradient of a (input 0)" not in str(err.value)


def test_small_error_fails_at_float64_defaults_but_passes_a_looser_rtol():
    with throwaway_op("kit_almost_exp", torch.exp, vjp(lambda g, s: g * s.x.exp() * (1 + 1e-8), "x")) as op:
        with pytest.raises(AssertionError, match="worst rel diff 1e-08"):
            assert_grads_match_torch(lambda x: apply1(op, x), X)
        assert_grads_match_torch(lambda x: apply1(op, x), X, rtol=1e-7)


def test_wrong_output_values_fail():
    with throwaway_op("kit_unstable", lambda x: x + torch.is_grad_enabled(), PASS) as op:
        with pytest.raises(AssertionError, match="output 0 .* 12 of 12 elements"):
            assert_grads_match_torch(lambda x: apply1(op, x), X)


def test_check_grads_numerically_passes_on_correct_rules():
    res = check_grads_numerically(lambda a, b: (a * b).sin() / (b * b + 1.0), X, Const(Y))
    assert res.grads[0].dims() == [3, 4] and res.grads[1] is None


def test_check_grads_numerically_catches_a_wrong_rule():
    with throwaway_op("kit_bumped_identity", torch.clone, _bump_one_element) as op:
        with pytest.raises(AssertionError, match=r"gradient of x \(input 0\) .* worst abs diff 1 at \[1, 2\]"):
            check_grads_numerically(lambda x: apply1(op, x), X, loss="sum")


def test_check_grads_numerically_runs_in_float64():
    res = check_grads_numerically(lambda x: x.tanh(), X.astype(np.float32))
    assert res.grads[0].to_torch().dtype == torch.float64


def _straight_through_sin(x):
    """Values sin(x), torch derivative 1: a kernel whose torch autograd disagrees with its values."""
    return x.detach().sin() + (x - x.detach())


def _number(message, label):
    """The number printed after ``label = `` in a report."""
    return float(re.search(label + r" = ([-+.\deE]+)", message).group(1))


def test_directional_check_catches_a_rule_torch_autograd_agrees_with():
    with throwaway_op("kit_straight_through_sin", _straight_through_sin, PASS) as op:
        with pytest.raises(AssertionError) as err:
            assert_grads_match_torch(lambda x: apply1(op, x), X, loss="sum")
    message = str(err.value)
    assert "gradient of x (input 0)" not in message
    assert "finite differences along a random direction v (eps=1e-06, relative) of x (input 0)" in message
    v = np.random.default_rng([0, 1]).standard_normal(X.shape) * np.maximum(1.0, np.abs(X))
    assert _number(message, r"burn sum<grad, v>") == pytest.approx(v.sum(), rel=1e-9)
    assert _number(message, r"\(2 eps\)") == pytest.approx((np.cos(X) * v).sum(), rel=1e-6)


def test_directional_check_names_the_leaf_whose_part_disagrees():
    with throwaway_op("kit_straight_through_sin", _straight_through_sin, PASS) as op:
        with pytest.raises(AssertionError) as err:
            assert_grads_match_torch(lambda a, b: a * b + apply1(op, b), X, Y)
    message = str(err.value)
    assert "of a (input 0), b (input 1): burn" in message
    assert "along its own part of v: b (input 1) (burn" in message
    assert "a (input 0) (burn" not in message


def test_numeric_false_skips_the_directional_check():
    with throwaway_op("kit_straight_through_sin", _straight_through_sin, PASS) as op:
        assert_grads_match_torch(lambda x: apply1(op, x), X, numeric=False)


def _values_picked(picked: bool) -> np.ndarray:
    """A [3, 4] float64 input that the reference's finite-difference sampling picks (or not)."""
    from burn_torch.testing.inputs import prepare_all
    from burn_torch.testing.reference import sampled

    return next(x for x in (X + k for k in range(64)) if sampled(prepare_all([x])) is picked)


def _straight_through_twin(x):
    """A torch twin with the same wrong gradient as the straight-through op: the identity's."""
    return x + (torch.sin(x) - x).detach()


@pytest.mark.parametrize("picked", [True, False])
def test_the_reference_samples_finite_differences_by_the_input_values(picked):
    x = _values_picked(picked)
    with throwaway_op("kit_straight_through_sin", _straight_through_sin, PASS) as op:
        def burn_fn(x):
            return apply1(op, x)
        with pytest.raises(AssertionError, match="finite differences along a random direction"):
            assert_matches_torch(burn_fn, _straight_through_twin, x, numeric=True)
        assert_matches_torch(burn_fn, _straight_through_twin, x, numeric=False)
        if picked:  # the same input is always picked: a hypothesis failure replays
            for _ in range(2):
                with pytest.raises(AssertionError, match="finite differences"):
                    assert_matches_torch(burn_fn, _straight_through_twin, x)
        else:
            assert_matches_torch(burn_fn, _straight_through_twin, x)


def test_about_one_call_in_four_is_picked_for_finite_differences():
    from burn_torch.testing.inputs import prepare_all
    from burn_torch.testing.reference import sampled

    picked = sum(sampled(prepare_all([X + k])) for k in range(400))
    assert 70 <= picked <= 130  # CRC-32 of the values: deterministic, spread like 1 in 4


def test_directional_check_runs_in_float64_for_float32_inputs():
    with throwaway_op("kit_straight_through_sin", _straight_through_sin, PASS) as op:
        with pytest.raises(AssertionError, match="finite differences along a random direction"):
            assert_grads_match_torch(lambda x: apply1(op, x), X.astype(np.float32))


def test_directional_check_is_skipped_with_a_note_when_the_function_rounds_to_float32():
    with throwaway_op("kit_straight_through_sin", _straight_through_sin, PASS) as op:
        res = assert_grads_match_torch(lambda x: apply1(op, x).cast(DType.F32), X)
    assert res.notes == ["finite differences skipped: an output is not float64 on float64 inputs"]


def test_directional_check_is_skipped_where_the_loss_is_not_finite():
    with throwaway_op("kit_straight_through_sin", _straight_through_sin, PASS) as op:
        assert_grads_match_torch(lambda x: apply1(op, x) + x.log(), -np.abs(X))


def test_directional_check_perturbs_a_leaf_passed_twice_once():
    leaf = Tensor.from_data(X, AD).require_grad()
    assert_grads_match_torch(lambda a, b: (a * b).sin(), leaf, leaf)


def test_throwaway_ops_leave_the_table():
    assert not [name for name in OPS if name.startswith("kit_")]


# -- oracle mode leaves no trace ----------------------------------------------------------------
ORIGINAL_SWITCH = recorder._set_grad
ORIGINAL_METHODS = {name: Tensor.__dict__[name]
                    for name in ("detach", "without_autodiff", "set_require_grad")}


def assert_normal_mode():
    assert recorder._set_grad is ORIGINAL_SWITCH is torch._C._set_grad_enabled
    assert {name: Tensor.__dict__[name] for name in ORIGINAL_METHODS} == ORIGINAL_METHODS


def test_oracle_mode_runs_kernels_under_torch_autograd():
    x = Tensor.from_data(torch.tensor([1.0, 2.0], requires_grad=True), AD)
    with torch.no_grad(), torch_oracle_mode():
        y = x.to_torch().requires_grad_(True)
        out = recorder.wrap(y, x.gradient_checkpointing_strategy()).exp()
    assert out.to_torch().grad_fn is not None


def test_oracle_mode_restores_state_when_the_body_raises():
    with torch.no_grad():
        with pytest.raises(RuntimeError, match="boom"):
            with torch_oracle_mode():
                raise RuntimeError("boom")
        assert not torch.is_grad_enabled()
    assert_normal_mode()


def test_oracle_mode_restores_state_when_the_function_raises_in_the_oracle_run():
    def fails_under_autograd(x):
        if x.to_torch().requires_grad:
            raise KeyError("oracle run")
        return x.exp()

    with pytest.raises(KeyError, match="oracle run"):
        assert_grads_match_torch(fails_under_autograd, X)
    assert_normal_mode()


def test_torch_autograd_stays_off_outside_oracle_mode():
    assert_grads_match_torch(lambda x: x.detach() * x.exp(), X, numeric=False)  # detach: on purpose
    assert_normal_mode()
    x = Tensor.from_data(torch.tensor([1.0, 2.0], requires_grad=True), AD).require_grad()
    with torch.enable_grad():
        out = (x.exp() * x).detach()
    assert out.to_torch().grad_fn is None and not out.to_torch().requires_grad


# -- covers -------------------------------------------------------------------------------------
def test_covers_registers_the_test_and_returns_it_unchanged():
    def test_something():
        pass

    assert covers("add", "mul")(test_something) is test_something
    name = f"{__name__}.test_covers_registers_the_test_and_returns_it_unchanged.<locals>.test_something"
    assert name in covered_ops()["add"] and name in covered_ops()["mul"]


def test_covers_needs_op_names():
    with pytest.raises(ValueError, match="one or more op names"):
        covers()


# -- strategies -------------------------------------------------------------------------------
@settings(max_examples=30, deadline=None)
@given(a=strategies.float_arrays(strategies.shapes(), -2.0, 2.0, avoid=0.0, margin=0.5, distinct=True))
def test_float_arrays_avoid_values_and_have_no_ties(a):
    assert ((np.abs(a) >= 0.5) & (a >= -2.0) & (a < 2.0)).all()
    assert len(np.unique(a)) == a.size


def test_float_arrays_without_room_left_is_a_value_error():
    with pytest.raises(ValueError, match="no values left"):
        strategies.float_arrays((2,), 0.0, 1.0, avoid=0.5, margin=1.0)


@settings(max_examples=30, deadline=None)
@given(data=strategies.st.data(), shape=strategies.shapes(2, 3))
def test_index_arrays_and_masks_fit_their_shapes(data, shape):
    dim = data.draw(strategies.dims(len(shape)))
    gather = data.draw(strategies.index_arrays(shape, dim))
    select = data.draw(strategies.index_arrays(shape, dim, mode="select"))
    assert gather.shape[:dim % len(shape)] == shape[:dim % len(shape)]
    assert gather.dtype == np.int64 and 0 <= gather.min() and gather.max() < shape[dim]
    assert select.ndim == 1 and select.max() < shape[dim]
    assert data.draw(strategies.masks(shape)).shape == shape


@settings(max_examples=30, deadline=None)
@given(pair=strategies.broadcastable_pairs())
def test_broadcastable_pairs_broadcast(pair):
    a, b = pair
    assert len(a) == len(b)
    assert all(x == y or 1 in (x, y) for x, y in zip(a, b))


def test_testing_imports_without_hypothesis():
    code = ("import sys; sys.modules['hypothesis'] = None\n"
            "import burn_torch.testing\n"
            "try:\n    from burn_torch.testing import strategies\n"
            "except ImportError:\n    print('no strategies')")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "no strategies"


def test_readme_testing_section_runs_as_printed():
    readme = (pathlib.Path(__file__).resolve().parent.parent / "README.md").read_text(encoding="utf-8")
    section = readme.split("## Testing against torch autograd", 1)[1].split("\n## ", 1)[0]
    blocks = re.findall(r"^```python\n(.*?)^```", section, re.S | re.M)
    out = subprocess.run([sys.executable, "-c", "\n".join(blocks)], capture_output=True, text=True,
                         check=True)
    assert out.stdout.splitlines() == ["[[4, 3], [3, 2]] None", "output 0 (shape [2, 3], float32)"]


# -- edge strategies --------------------------------------------------------------------------
def _finds(strategy, condition):
    """Whether hypothesis finds an example of ``strategy`` meeting ``condition``."""
    from hypothesis import find
    from hypothesis.errors import NoSuchExample

    try:
        find(strategy, condition, settings=settings(max_examples=150, database=None))
        return True
    except NoSuchExample:
        return False


def test_edge_arrays_draw_zeros_and_exact_ties():
    assert _finds(strategies.edge_arrays((2, 3)), lambda a: (a == 0).any() and (a != 0).any())
    assert _finds(strategies.edge_arrays((2, 3)),
                  lambda a: len(np.unique(a[a != 0])) < (a != 0).sum() and (a != 0).sum() > 1)


def test_clamp_arrays_draw_both_bounds():
    assert _finds(strategies.clamp_arrays((6,), -1.0, 0.5), lambda a: (a == -1.0).any() and (a == 0.5).any())


def test_edge_arrays_draw_a_given_kink_and_stay_in_range():
    assert _finds(strategies.edge_arrays((4,), edges=(1.0,)), lambda a: (a == 1.0).any())
    assert not _finds(strategies.edge_arrays((4,), -1.0, 1.0), lambda a: (np.abs(a) > 1.0).any())


def test_edge_arrays_follow_a_shape_strategy_and_a_dtype():
    strategy = strategies.edge_arrays(strategies.shapes(2, 2), dtype=np.float32)
    assert not _finds(strategy, lambda a: a.ndim != 2 or a.dtype != np.float32)


def test_repeated_indices_repeat_and_stay_in_range():
    strategy = strategies.repeated_indices((3, 4), 1)
    assert _finds(strategy, lambda i: i.shape[1] >= 2 and (i[:, 0] == i[:, 1]).all())
    assert not _finds(strategy, lambda i: i.min() < 0 or i.max() >= 4)


def test_a_failing_example_shows_the_values_and_shrinks_them():
    from hypothesis import find

    found = find(strategies.edge_arrays((3,)), lambda a: (a > 1.0).any(), settings=settings(database=None))
    assert sorted(found.tolist())[:2] == [0.0, 0.0]  # shrunk: the other values went to 0


@pytest.mark.parametrize("strategy, distinct_values", [
    (strategies.edge_arrays((3,)), 1), (strategies.float_arrays((3,)), 1),
    (strategies.float_arrays(strategies.shapes(1, 1, 3, 3)), 1),
    (strategies.float_arrays((3,), distinct=True), 3)],
    ids=["edge_arrays", "float_arrays", "float_arrays of drawn shapes", "distinct float_arrays"])
def test_hypothesis_prints_the_drawn_array_shrunk(strategy, distinct_values):
    @settings(database=None, max_examples=20)
    @given(a=strategy)
    def check(a):
        assert a.shape != (3,)  # fails on every example: hypothesis reports the shrunk one

    with pytest.raises(AssertionError) as err:
        check()
    shown = re.search(r"a=(array\(\[.*?\]\))", "\n".join(err.value.__notes__), re.S)
    assert shown, err.value.__notes__
    values = np.array(eval(shown.group(1), {"array": np.array}))
    assert values.shape == (3,) and len(np.unique(values)) == distinct_values


def test_float_arrays_shrink_towards_the_middle_of_the_range():
    from hypothesis import find

    found = find(strategies.float_arrays((4,), 1.0, 3.0), lambda a: (a > 2.5).any(),
                 settings=settings(database=None))
    assert (np.sort(found)[:3] == np.float64(2.0 + 1 / 2 ** 16)).all()  # the others at the middle
    assert 2.5 < found.max() < 2.5 + 1e-4  # the one that matters, as small as it can be


def test_float_arrays_never_hit_the_bounds_the_middle_or_an_avoided_value():
    from hypothesis import find
    from hypothesis.errors import NoSuchExample

    strategy = strategies.float_arrays((6,), -2.0, 2.0, avoid=1.0, margin=0.5)
    with pytest.raises(NoSuchExample):
        find(strategy, lambda a: bool(np.isin(a, [-2.0, 0.0, 0.5, 1.0, 1.5]).any()
                                      or (np.abs(a - 1.0) < 0.5).any()),
             settings=settings(database=None, max_examples=300))


def test_oracle_reports_a_gradient_burn_does_not_produce_as_missing():
    with throwaway_op("kit_no_rule", torch.add, PASS, None, inputs=("a", "b")) as op:
        with pytest.raises(AssertionError, match=r"gradient of b \(input 1\): missing in burn_torch"):
            assert_grads_match_torch(lambda a, b: apply2(op, a, b), X, Y, numeric=False)
