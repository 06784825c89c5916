"""Float math methods from Burn's float API: trigonometric and hyperbolic functions, rounding
and sign, angle conversion, atan2, hypot, powi and cross.

Gradients are property-tested against torch autograd (``burn_torch.testing``) and, for a few ops,
against finite differences; forward values against numpy; Burn's own semantics (zero gradients
of the piecewise-constant ops, round half to even, Int ``powi``/``sign``) and the errors with
explicit cases.
"""
from __future__ import annotations

import math

import numpy as np
import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st

from burn_torch import Device, Tensor
from burn_torch.testing import Const, assert_grads_match_torch, check_grads_numerically, covers
from burn_torch.testing.strategies import broadcastable_pairs, float_arrays, shapes

SETTINGS = settings(deadline=None, max_examples=25)
AD = Device.cpu().autodiff()
CPU = Device.cpu()

# name -> (method, numpy reference, value range); ranges keep away from poles and domain edges
UNARY = {
    "tan": (Tensor.tan, np.tan, (-1.2, 1.2)),
    "sinh": (Tensor.sinh, np.sinh, (-2.0, 2.0)),
    "cosh": (Tensor.cosh, np.cosh, (-2.0, 2.0)),
    "asin": (Tensor.asin, np.arcsin, (-0.9, 0.9)),
    "acos": (Tensor.acos, np.arccos, (-0.9, 0.9)),
    "atan": (Tensor.atan, np.arctan, (-2.0, 2.0)),
    "asinh": (Tensor.asinh, np.arcsinh, (-2.0, 2.0)),
    "acosh": (Tensor.acosh, np.arccosh, (1.2, 3.0)),
    "atanh": (Tensor.atanh, np.arctanh, (-0.9, 0.9)),
    "deg2rad": (Tensor.deg2rad, np.deg2rad, (-360.0, 360.0)),
    "rad2deg": (Tensor.rad2deg, np.rad2deg, (-4.0, 4.0)),
}
PIECEWISE_CONSTANT = {
    "floor": (Tensor.floor, np.floor),
    "ceil": (Tensor.ceil, np.ceil),
    "round": (Tensor.round, np.round),  # numpy rounds half to even, as Burn
    "sign": (Tensor.sign, np.sign),
}
BINARY = {"atan2": Tensor.atan2, "hypot": Tensor.hypot}  # inputs kept away from 0
losses = st.sampled_from(["weighted", "sum"])
seeds = st.integers(0, 2**16)


def leaf(values) -> Tensor:
    return Tensor.from_data(np.asarray(values, dtype=np.float64), AD).require_grad()


# ------------------------------------------------------------------------ gradients vs torch ----
@covers(*UNARY)
@pytest.mark.parametrize("name", list(UNARY))
@SETTINGS
@given(data=st.data(), loss=losses, seed=seeds)
def test_unary_float_math_gradients_match_torch(name, data, loss, seed):
    method, _, (low, high) = UNARY[name]
    x = data.draw(float_arrays(shapes(), low, high))
    assert_grads_match_torch(method, x, loss=loss, seed=seed)


@covers(*PIECEWISE_CONSTANT)
@pytest.mark.parametrize("name", list(PIECEWISE_CONSTANT))
@SETTINGS
@given(x=float_arrays(shapes(), -3.0, 3.0), seed=seeds)
def test_piecewise_constant_ops_gradients_match_torch(name, x, seed):
    assert_grads_match_torch(PIECEWISE_CONSTANT[name][0], x, seed=seed)


def _pair_inputs(data, low=-2.0, high=2.0, avoid=()):
    a_shape, b_shape = data.draw(broadcastable_pairs())
    a = data.draw(float_arrays(a_shape, low, high, avoid=avoid))
    b = data.draw(float_arrays(b_shape, low, high, avoid=avoid))
    constant = data.draw(st.sampled_from(["none", "a", "b"]))
    return (Const(a) if constant == "a" else a), (Const(b) if constant == "b" else b)


@covers(*BINARY)
@pytest.mark.parametrize("name", list(BINARY))
@SETTINGS
@given(data=st.data(), seed=seeds)
def test_binary_float_math_gradients_match_torch_with_broadcasting(name, data, seed):
    a, b = _pair_inputs(data, avoid=0.0)
    assert_grads_match_torch(BINARY[name], a, b, seed=seed)


@covers("powi")
@SETTINGS
@given(data=st.data(), seed=seeds)
def test_powi_gradients_match_torch_in_base_and_exponent(data, seed):
    base_shape, exp_shape = data.draw(broadcastable_pairs())
    base = data.draw(float_arrays(base_shape, 0.5, 2.0))
    exponent = data.draw(float_arrays(exp_shape, -2.0, 3.0))
    assert_grads_match_torch(lambda a, b: a.powi(b), base, exponent, seed=seed)


@st.composite
def cross_inputs(draw):
    """Two same-rank shapes with size 3 at a drawn dim, broadcasting elsewhere, and that dim."""
    a_shape, b_shape = draw(broadcastable_pairs(max_rank=3, max_side=4))
    rank = len(a_shape)
    dim = draw(st.integers(-rank, rank - 1))
    a_shape, b_shape = list(a_shape), list(b_shape)
    a_shape[dim] = b_shape[dim] = 3
    return draw(float_arrays(tuple(a_shape))), draw(float_arrays(tuple(b_shape))), dim


@covers("cross")
@SETTINGS
@given(inputs=cross_inputs(), seed=seeds)
def test_cross_gradients_match_torch_with_broadcasting(inputs, seed):
    a, b, dim = inputs
    assert_grads_match_torch(lambda s, t: s.cross(t, dim), a, b, seed=seed)


# ---------------------------------------------------------------- gradients vs finite differences ----
def test_acosh_gradient_matches_finite_differences():
    check_grads_numerically(Tensor.acosh, np.array([[1.3, 2.0], [2.7, 5.0]]))


def test_atan2_gradients_match_finite_differences_in_every_quadrant():
    y = np.array([1.0, 1.0, -1.0, -1.0, 0.5])
    x = np.array([1.0, -1.0, -1.0, 1.0, -2.0])
    check_grads_numerically(lambda a, b: a.atan2(b), y, x)


def test_cross_gradients_match_finite_differences():
    a = np.array([[1.0, -2.0, 0.5], [0.3, 0.7, -1.1]])
    b = np.array([[0.2, 1.5, -0.4]])
    check_grads_numerically(lambda s, t: s.cross(t, 1), a, b)


# ------------------------------------------------------------------------- forward values ----
@pytest.mark.parametrize("name", list(UNARY) + list(PIECEWISE_CONSTANT))
def test_unary_values_equal_numpy(name):
    method, reference = (UNARY[name][:2] if name in UNARY else PIECEWISE_CONSTANT[name])
    low, high = UNARY[name][2] if name in UNARY else (-3.0, 3.0)
    x = np.linspace(low, high, 13)
    got = method(Tensor.from_data(x, CPU)).to_torch().numpy()
    np.testing.assert_allclose(got, reference(x), rtol=1e-12, atol=1e-12)


def test_round_rounds_halfway_cases_to_even():
    x = Tensor.from_data([-2.5, -1.5, -0.5, 0.5, 1.5, 2.5], CPU)
    assert x.round().to_torch().tolist() == [-2.0, -2.0, -0.0, 0.0, 2.0, 2.0]


def test_atan2_takes_self_as_y_and_other_as_x():
    y = Tensor.from_data([-2.0, 2.0, -2.0], CPU)
    x = Tensor.from_data([1.0, -1.0, -1.0], CPU)
    np.testing.assert_allclose(y.atan2(x).to_torch().numpy(), [-1.1071487, 2.0344439, -2.0344439],
                               rtol=1e-6)


def test_hypot_does_not_overflow_where_squares_would():
    a = Tensor.from_data([3e30, 3.0], CPU)
    b = Tensor.from_data([4e30, 4.0], CPU)
    np.testing.assert_allclose(a.hypot(b).to_torch().numpy(), [5e30, 5.0], rtol=1e-6)


def test_deg2rad_and_rad2deg_convert_exactly_known_angles():
    deg = Tensor.from_data([180.0, -90.0, 45.0], CPU)
    np.testing.assert_allclose(deg.deg2rad().to_torch().numpy(), [math.pi, -math.pi / 2, math.pi / 4],
                               rtol=1e-6)
    rad = Tensor.from_data([math.pi, -math.pi / 2], CPU)
    np.testing.assert_allclose(rad.rad2deg().to_torch().numpy(), [180.0, -90.0], rtol=1e-6)


def test_cross_is_the_right_handed_cross_product_along_dim():
    e = Tensor.from_data([[1.0, 0.0], [0.0, 1.0], [0.0, 0.0]], CPU)  # columns e_x, e_y
    f = Tensor.from_data([[0.0, 0.0], [1.0, 0.0], [0.0, 1.0]], CPU)  # columns e_y, e_z
    assert e.cross(f, 0).to_torch().tolist() == [[0.0, 1.0], [0.0, 0.0], [1.0, 0.0]]


def test_powi_of_int_tensors_is_the_integer_power():
    base = Tensor.from_data(np.array([2, -3, 5], dtype=np.int64), CPU)
    exponent = Tensor.from_data(np.array([3, 2, 0], dtype=np.int64), CPU)
    out = base.powi(exponent)
    assert out.kind.name == "Int"
    assert out.to_torch().tolist() == [8, 9, 1]


def test_powi_of_float_tensors_takes_a_float_exponent():
    base = Tensor.from_data([4.0, 2.0], CPU)
    exponent = Tensor.from_data([0.5, -1.0], CPU)
    assert base.powi(exponent).to_torch().tolist() == [2.0, 0.5]


def test_sign_of_int_tensor_is_an_int_tensor():
    out = Tensor.from_data(np.array([-4, 0, 7], dtype=np.int32), CPU).sign()
    assert out.to_torch().dtype == torch.int32
    assert out.to_torch().tolist() == [-1, 0, 1]


# ------------------------------------------------------------- Burn's zero gradients ----
@pytest.mark.parametrize("name", list(PIECEWISE_CONSTANT))
def test_piecewise_constant_op_is_tracked_and_adds_nothing_to_the_gradient(name):
    x = leaf([[-1.7, 0.4], [2.5, 3.0]])
    out = PIECEWISE_CONSTANT[name][0](x)
    assert out.is_tracked()
    grads = (out * 3.0 + x).sum().backward()
    assert x.grad(grads).to_torch().tolist() == [[1.0, 1.0], [1.0, 1.0]]


def test_floor_alone_gives_its_input_a_zero_gradient_not_none():
    x = leaf([0.2, -1.6, 4.0])
    grad = x.grad(x.floor().sum().backward())
    assert grad is not None
    assert grad.dims() == [3]
    assert grad.to_torch().tolist() == [0.0, 0.0, 0.0]


# ------------------------------------------------------------------------------ errors ----
INT = Tensor.from_data(np.array([[1, 2, 3]], dtype=np.int64), CPU)
FLOAT = Tensor.from_data([[1.0, 2.0, 3.0]], CPU)
BOOL = Tensor.from_data(np.array([True, False]), CPU)


@pytest.mark.parametrize("name", [n for n in list(UNARY) + list(PIECEWISE_CONSTANT) if n != "sign"])
def test_float_only_unary_op_raises_type_error_on_int(name):
    method = UNARY[name][0] if name in UNARY else PIECEWISE_CONSTANT[name][0]
    with pytest.raises(TypeError, match=f"{name} needs a Float tensor, got Int"):
        method(INT)


@pytest.mark.parametrize("name", ["atan2", "hypot"])
def test_float_only_binary_op_raises_type_error_on_int(name):
    with pytest.raises(TypeError, match=f"{name} needs Float tensors, got Float and Int"):
        getattr(FLOAT, name)(INT)


def test_atan2_raises_type_error_on_a_python_number():
    with pytest.raises(TypeError, match="atan2: expected a Tensor operand, got float"):
        FLOAT.atan2(1.0)


def test_hypot_raises_value_error_naming_shapes_that_do_not_broadcast():
    other = Tensor.from_data([[1.0, 2.0]], CPU)
    with pytest.raises(ValueError, match=r"hypot: .*\[1, 3\], \[1, 2\]"):
        FLOAT.hypot(other)


def test_sign_raises_type_error_on_bool():
    with pytest.raises(TypeError, match="sign needs a Float or Int tensor, got Bool"):
        BOOL.sign()


def test_powi_raises_type_error_on_mixed_kinds():
    with pytest.raises(TypeError, match="powi: operands must have the same kind, got Float and Int"):
        FLOAT.powi(INT)


def test_powi_raises_type_error_on_bool():
    with pytest.raises(TypeError, match="powi needs Float or Int tensors, got Bool"):
        BOOL.powi(BOOL)


def test_cross_raises_value_error_naming_shapes_without_size_3_at_dim():
    other = Tensor.from_data([[1.0, 2.0, 3.0, 4.0]], CPU)
    with pytest.raises(ValueError, match=r"cross needs size 3 along dim 1, got shapes \[1, 3\] and \[1, 4\]"):
        FLOAT.cross(other, 1)


def test_cross_raises_value_error_naming_shapes_of_different_rank():
    other = Tensor.from_data([1.0, 2.0, 3.0], CPU)
    with pytest.raises(ValueError, match=r"cross needs tensors of the same rank, got shapes \[1, 3\] and \[3\]"):
        FLOAT.cross(other, -1)


def test_cross_raises_type_error_on_int():
    with pytest.raises(TypeError, match="cross needs Float tensors, got Int and Float"):
        INT.cross(FLOAT, 1)


def test_cross_raises_index_error_for_a_dim_out_of_range():
    with pytest.raises(IndexError, match="dimension 2 is out of range for a tensor of rank 2"):
        FLOAT.cross(FLOAT, 2)
