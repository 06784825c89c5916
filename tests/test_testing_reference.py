"""The independent reference (assert_matches_torch, assert_module_matches_torch): a burn_torch
function against a torch function the user wrote, with both strategies, a float64 truth,
infinities and NaNs, names, "missing" gradients and the first disagreeing op in its reports."""
from __future__ import annotations

import contextlib

import numpy as np
import pytest
import torch
import torch.nn.functional as F

from burn_torch import Device, DType, activation, nn
from burn_torch.autodiff.strategy import GradientCheckpointingStrategy as Strategy
from burn_torch.ops import OPS
from burn_torch.ops.table import MEMORY, PASS, defop, vjp
from burn_torch.autodiff.recorder import apply1
from burn_torch.testing import (Const, FiniteDifferences, assert_matches_torch,
                                assert_module_matches_torch)

X = np.random.default_rng(0).standard_normal((3, 4))
W = np.random.default_rng(1).standard_normal((4, 2))


@contextlib.contextmanager
def swapped_forward(name, forward):
    """Runs the body with op-table entry ``name``'s kernel replaced."""
    op = OPS[name]
    saved = op.forward
    op.forward = forward
    try:
        yield
    finally:
        op.forward = saved


def burn_layer(x, w):
    return activation.softmax(x @ w, 1)


def torch_layer(x, w):
    return torch.softmax(x @ w, 1)


def test_correct_composite_passes_and_returns_both_gradients():
    res = assert_matches_torch(burn_layer, torch_layer, X, W)
    assert [g.dims() for g in res.grads] == [[3, 4], [4, 2]]


def test_wrong_softmax_dim_in_the_composite_is_caught_on_the_output():
    with pytest.raises(AssertionError, match=r"output 0 \(shape \[3, 2\]"):
        assert_matches_torch(lambda x, w: activation.softmax(x @ w, 0), torch_layer, X, W)


def test_wrong_forward_kernel_is_caught_though_the_op_table_oracle_passes():
    from burn_torch.testing import assert_grads_match_torch

    with swapped_forward("exp", lambda x: torch.exp(x) * 1.001):
        assert_grads_match_torch(lambda x: x.exp(), X, numeric=False)
        with pytest.raises(AssertionError, match="output 0"):
            assert_matches_torch(lambda x: x.exp(), torch.exp, X, numeric=False)


def test_gradients_are_reported_under_the_argument_names():
    with pytest.raises(AssertionError) as err:
        assert_matches_torch(lambda x, w: x @ w, lambda x, w: x @ (w * 2), X, W)
    assert "gradient of x (input 0)" in str(err.value)


def test_names_override_the_parameter_names():
    with pytest.raises(AssertionError, match=r"gradient of query \(input 0\)"):
        assert_matches_torch(lambda *a: a[0] * a[1], lambda a, b: a * b * 2, X, X, names=["query", "key"])


def test_a_gradient_burn_does_not_produce_is_reported_missing():
    with pytest.raises(AssertionError, match=r"gradient of y \(input 1\): missing in burn_torch"):
        assert_matches_torch(lambda x, y: x * y.detach(), lambda x, y: x * y, X, X + 1, numeric=False)


def test_a_missing_gradient_against_zeros_passes():
    assert_matches_torch(lambda x, y: x * 2.0, lambda x, y: x * 2 + y * 0, X, X)


def test_constants_stay_constants_on_the_torch_side():
    res = assert_matches_torch(lambda x, c: x * c, lambda x, c: x * c, X, Const(X))
    assert res.grads[1] is None


def test_torch_function_returning_a_non_tensor_is_a_type_error():
    with pytest.raises(TypeError, match="output 0 is float"):
        assert_matches_torch(lambda x: x, lambda x: 1.0, X)


def test_equal_infinities_are_equal():
    x = np.array([0.0, 1.0, 2.0])
    assert_matches_torch(lambda x: x.log(), torch.log, x, numeric=False)


def test_nan_positions_must_match():
    x = np.array([-1.0, 1.0, 2.0])
    assert_matches_torch(lambda x: x.sqrt(), torch.sqrt, x, numeric=False, loss="sum")
    with pytest.raises(AssertionError, match="NaN positions differ at 1 elements"):
        assert_matches_torch(lambda x: x.sqrt(), lambda x: x.abs().sqrt(), x, numeric=False)


# -- both strategies -----------------------------------------------------------------------------
def _recompute_differs(x):
    """A kernel that gives other values when BALANCED recomputes it (in backward)."""
    return torch.exp(x) + (0.0 if torch.is_inference_mode_enabled() else 0.0) + _calls.bump()


class _Calls:
    def __init__(self):
        self.n = 0

    def bump(self):
        self.n += 1
        return 1e-3 * self.n


_calls = _Calls()


def test_a_recompute_that_differs_fails_the_bit_equality_of_the_strategies():
    with swapped_forward("exp", _recompute_differs):
        with pytest.raises(AssertionError, match="BALANCED is not bit-equal to DISABLED"):
            assert_matches_torch(lambda x: x.exp().sin(), lambda x: torch.exp(x).sin(), X,
                                 numeric=False, rtol=1, atol=1)


def test_strategies_opt_out_per_call():
    with swapped_forward("exp", _recompute_differs):
        assert_matches_torch(lambda x: x.exp().sin(), lambda x: torch.exp(x).sin(), X,
                             numeric=False, rtol=1, atol=1, strategies=(Strategy.DISABLED,))


# -- float64 truth -------------------------------------------------------------------------------
def test_float32_passes_when_burn_is_closer_to_float64_than_torch():
    # burn side sums in float64 and rounds once; torch's float32 cumsum rounds at every step
    x = np.float32(1.0) + np.arange(4096, dtype=np.float32) * np.float32(1e-4)
    assert_matches_torch(lambda t: t.cast(DType.F64).cumsum(0).cast(DType.F32),
                         lambda t: t.cumsum(0), x, numeric=False, rtol=0, atol=0)


def test_float32_fails_when_burn_is_further_from_float64_than_torch():
    x = np.linspace(1.0, 2.0, 12, dtype=np.float32)
    with pytest.raises(AssertionError, match="further from the float64 truth than torch"):
        assert_matches_torch(lambda t: t * 1.0001, lambda t: t * 1.0, x, numeric=False)


def test_float32_inputs_get_the_finite_difference_check_in_float64():
    op = defop("kit_ref_sin_rule_wrong", torch.sin, MEMORY, vjp=(vjp(lambda g, s: g * s.x.sin(), "x"),))
    try:
        with pytest.raises(AssertionError, match="finite differences along a random direction"):
            assert_matches_torch(lambda x: apply1(op, x), torch.sin, X.astype(np.float32),
                                 rtol=1, atol=1, numeric=True)
    finally:
        del OPS["kit_ref_sin_rule_wrong"]


def test_large_magnitudes_use_a_relative_step():
    assert_matches_torch(lambda x: x * x, lambda x: x * x, X * 1e6 + 1e7)
    assert_matches_torch(lambda x: x + 1e6, lambda x: x + 1e6, X)


def test_finite_difference_settings_are_configurable():
    assert_matches_torch(lambda x: x.exp(), torch.exp, X, fd=FiniteDifferences(step=1e-3))
    with pytest.raises(AssertionError, match=r"eps=0.001, relative"):  # detach: not the derivative
        assert_matches_torch(lambda x: x * x.detach(), lambda x: x * x.detach(), X,
                             fd=FiniteDifferences(step=1e-3))


def test_kinks_are_reported_as_non_smooth_points_not_wrong_gradients():
    x = np.array([0.0, 1.0, -1.0])
    res = assert_matches_torch(activation.relu, torch.relu, x, loss="sum", numeric=True)
    assert len(res.notes) == 1
    assert res.notes[0].startswith("non-smooth point: finite differences along a random direction")
    assert "one-sided differences" in res.notes[0]


def test_smooth_points_leave_no_note():
    assert assert_matches_torch(activation.relu, torch.relu, X + 3.0).notes == []


# -- localisation --------------------------------------------------------------------------------
def test_report_names_the_first_op_whose_rule_disagrees_and_its_source_line():
    op = defop("kit_ref_bad_rule", torch.tanh, MEMORY, vjp=(vjp(lambda g, s: g * 2.0, "x"),))
    try:
        with pytest.raises(AssertionError) as err:
            assert_matches_torch(lambda x: apply1(op, x.sin()).exp(),  # the line reported
                                 lambda x: x.sin().tanh().exp(), X)
    finally:
        del OPS["kit_ref_bad_rule"]
    message = str(err.value)
    assert "first op whose rule disagrees with torch autograd of its kernel: kit_ref_bad_rule" in message
    assert "test_testing_reference.py" in message and "# the line reported" in message


# -- modules -------------------------------------------------------------------------------------
class BiasGradientDoubled(torch.nn.Linear):
    """A torch twin with the same outputs and a wrong bias gradient."""

    def forward(self, x):
        return super().forward(x) + (self.bias - self.bias.detach())


def test_module_matches_its_torch_twin():
    burn = nn.LinearConfig(4, 2).init(Device.cpu().autodiff())
    res = assert_module_matches_torch(burn, torch.nn.Linear(4, 2), X.astype(np.float32))
    assert res.grads[0].dims() == [3, 4]


def test_module_gradient_mismatch_is_reported_under_the_torch_parameter_name():
    burn = nn.LinearConfig(4, 2).init(Device.cpu().autodiff())
    with pytest.raises(AssertionError) as err:
        assert_module_matches_torch(burn, BiasGradientDoubled(4, 2), X.astype(np.float32))
    assert "gradient of parameter bias" in str(err.value)
    assert "gradient of parameter weight" not in str(err.value)


# -- full Jacobian -------------------------------------------------------------------------------
def test_full_jacobian_mode_passes_correct_code():
    assert_matches_torch(lambda x, w: (x @ w).tanh(), lambda x, w: (x @ w).tanh(), X[:2], W,
                         jacobian=True)


def test_full_jacobian_mode_names_the_worst_entry():
    op = defop("kit_ref_jac", torch.tanh, MEMORY, vjp=(vjp(lambda g, s: g * (1 - s.out.square()) * 1.5, "out"),))
    try:
        with pytest.raises(AssertionError) as err:
            assert_matches_torch(lambda x: apply1(op, x), torch.tanh, X[:1], jacobian=True,
                                 rtol=1, atol=1)
    finally:
        del OPS["kit_ref_jac"]
    assert "full Jacobian: 4 entries differ from finite differences; worst d output 0[0, " in str(err.value)
    assert "/ d x (input 0)[0, " in str(err.value)
