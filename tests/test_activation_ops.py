"""Activations of ``burn_torch.activation`` added after the core set: leaky_relu, gelu_tanh, silu,
mish, softplus, log_sigmoid, hard_sigmoid, prelu, softmin and quiet_softmax.

Gradients are property-tested against torch autograd and, for some, finite differences; forward
values against independent numpy formulas (Burn's definitions); Burn's gradients at the kinks of
the ops Burn composes from masks and clamps with explicit cases; errors name the shapes.
"""
from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from burn_torch import Device, Tensor, activation
from burn_torch.testing import assert_grads_match_torch, check_grads_numerically, covers
from burn_torch.testing.strategies import dims, float_arrays, shapes

SETTINGS = settings(deadline=None, max_examples=25)
AD = Device.cpu().autodiff()
CPU = Device.cpu()
seeds = st.integers(0, 2**16)


def leaf(values) -> Tensor:
    return Tensor.from_data(np.asarray(values, dtype=np.float64), AD).require_grad()


def sigmoid(x):
    return 1.0 / (1.0 + np.exp(-x))


def softplus(x, beta):
    return np.log1p(np.exp(beta * x)) / beta


# name -> (function of x, numpy reference); values avoid the kink at 0 (leaky_relu)
ELEMENTWISE = {
    "leaky_relu": (lambda x: activation.leaky_relu(x, 0.1), lambda x: np.where(x < 0, 0.1 * x, x)),
    "gelu_tanh": (activation.gelu_tanh,
                  lambda x: 0.5 * x * (1 + np.tanh(np.sqrt(2 / np.pi) * (x + 0.044715 * x**3)))),
    "silu": (activation.silu, lambda x: x * sigmoid(x)),
    "mish": (activation.mish, lambda x: x * np.tanh(softplus(x, 1.0))),
    "softplus": (lambda x: activation.softplus(x, 1.5), lambda x: softplus(x, 1.5)),
    "log_sigmoid": (activation.log_sigmoid, lambda x: np.log(sigmoid(x))),
    "hard_sigmoid": (lambda x: activation.hard_sigmoid(x, 0.2, 0.5),
                     lambda x: np.clip(0.2 * x + 0.5, 0.0, 1.0)),
}
# hard_sigmoid(x, 0.2, 0.5) has its kinks at x = -2.5 and 2.5
AVOID = {"leaky_relu": (0.0,), "hard_sigmoid": (-2.5, 2.5)}


# ------------------------------------------------------------------------ gradients vs torch ----
@covers(*ELEMENTWISE)
@pytest.mark.parametrize("name", list(ELEMENTWISE))
@SETTINGS
@given(data=st.data(), seed=seeds)
def test_elementwise_activation_gradients_match_torch(name, data, seed):
    x = data.draw(float_arrays(shapes(), -4.0, 4.0, avoid=AVOID.get(name, ()), margin=0.1))
    assert_grads_match_torch(ELEMENTWISE[name][0], x, seed=seed)


@covers("softmin", "quiet_softmax")
@pytest.mark.parametrize("fn", [activation.softmin, activation.quiet_softmax])
@SETTINGS
@given(data=st.data(), seed=seeds)
def test_softmax_variant_gradients_match_torch_along_any_dim(fn, data, seed):
    x = data.draw(float_arrays(shapes(), -3.0, 3.0))
    dim = data.draw(dims(x.ndim))
    assert_grads_match_torch(lambda t: fn(t, dim), x, seed=seed)


@st.composite
def prelu_inputs(draw):
    """An input of rank >= 2 avoiding 0 and an alpha of shape [1] or [channels]."""
    shape = draw(shapes(min_rank=2))
    x = draw(float_arrays(shape, -3.0, 3.0, avoid=0.0, margin=0.1))
    alpha = draw(float_arrays((draw(st.sampled_from([1, shape[1]])),), 0.0, 0.5))
    return x, alpha


@covers("prelu")
@SETTINGS
@given(inputs=prelu_inputs(), seed=seeds)
def test_prelu_gradients_match_torch_for_input_and_alpha(inputs, seed):
    x, alpha = inputs
    assert_grads_match_torch(activation.prelu, x, alpha, seed=seed)


# ---------------------------------------------------------------- gradients vs finite differences ----
@pytest.mark.parametrize("fn", [lambda x: activation.quiet_softmax(x, 1),
                                lambda x: activation.softmin(x, 0),
                                lambda x: activation.softplus(x, 0.7),
                                activation.log_sigmoid],
                         ids=["quiet_softmax", "softmin", "softplus", "log_sigmoid"])
def test_gradient_matches_finite_differences(fn):
    check_grads_numerically(fn, np.array([[0.3, -1.2, 2.0], [1.5, 0.1, -0.4]]))


def test_prelu_gradients_match_finite_differences():
    check_grads_numerically(activation.prelu, np.array([[0.3, -1.2], [-2.0, 1.5]]),
                            np.array([0.25, 0.1]))


# ------------------------------------------------------------------------- forward values ----
@pytest.mark.parametrize("name", list(ELEMENTWISE))
def test_elementwise_activation_values_follow_burns_definition(name):
    fn, reference = ELEMENTWISE[name]
    x = np.linspace(-6.0, 6.0, 25)
    np.testing.assert_allclose(fn(Tensor.from_data(x, CPU)).to_torch().numpy(), reference(x),
                               rtol=1e-12, atol=1e-12)


def test_softmin_is_softmax_of_the_negated_input():
    x = np.array([[1.0, 2.0, 3.0], [0.5, 0.5, -1.0]])
    e = np.exp(-x)
    np.testing.assert_allclose(activation.softmin(Tensor.from_data(x, CPU), 1).to_torch().numpy(),
                               e / e.sum(1, keepdims=True), rtol=1e-12)


def test_quiet_softmax_divides_by_one_plus_the_sum_of_exponentials():
    x = np.array([[0.0, 0.0], [1.0, -2.0]])
    e = np.exp(x)
    got = activation.quiet_softmax(Tensor.from_data(x, CPU), -1).to_torch().numpy()
    np.testing.assert_allclose(got, e / (1.0 + e.sum(-1, keepdims=True)), rtol=1e-12)
    assert got[0].tolist() == pytest.approx([1 / 3, 1 / 3])


def test_quiet_softmax_does_not_overflow_for_large_or_very_negative_logits():
    x = Tensor.from_data([[1000.0, 1000.0], [-1000.0, -1000.0]], CPU)
    got = activation.quiet_softmax(x, 1).to_torch().numpy()
    assert got[0].tolist() == pytest.approx([0.5, 0.5])
    assert got[1].tolist() == [0.0, 0.0]


def test_softplus_is_linear_where_burns_formula_would_overflow_in_float32():
    x = Tensor.from_data(np.array([100.0], dtype=np.float32), CPU)
    assert activation.softplus(x, 1.0).to_torch().tolist() == [100.0]


def test_prelu_uses_one_weight_per_channel_along_dim_1():
    x = Tensor.from_data([[[-1.0, 2.0]], [[-3.0, -4.0]]], CPU).swap_dims(1, 2)  # [2, 2, 1]
    alpha = Tensor.from_data([0.5, 0.25], CPU)
    assert activation.prelu(x, alpha).to_torch().tolist() == [[[-0.5], [2.0]], [[-1.5], [-1.0]]]


# ------------------------------------------------------------- Burn's gradients at kinks ----
def test_leaky_relu_gradient_is_one_at_zero_and_slope_below():
    x = leaf([-2.0, 0.0, 3.0])
    grads = activation.leaky_relu(x, 0.01).sum().backward()
    assert x.grad(grads).to_torch().tolist() == [0.01, 1.0, 1.0]


def test_prelu_input_gradient_is_one_at_zero():
    x = leaf([[-2.0, 0.0, 3.0]])
    alpha = leaf([0.25])
    grads = activation.prelu(x, alpha).sum().backward()
    assert x.grad(grads).to_torch().tolist() == [[0.25, 1.0, 1.0]]
    assert alpha.grad(grads).to_torch().tolist() == [-2.0]


def test_hard_sigmoid_gradient_passes_at_the_clamp_bounds_and_stops_beyond():
    x = leaf([-2.0, -1.0, 0.0, 1.0, 2.0])  # alpha * x + beta = -0.5, 0, 0.5, 1, 1.5
    grads = activation.hard_sigmoid(x, 0.5, 0.5).sum().backward()
    assert x.grad(grads).to_torch().tolist() == [0.0, 0.5, 0.5, 0.5, 0.0]


# ------------------------------------------------------------------------------ errors ----
INT = Tensor.from_data(np.array([[1, 2], [3, 4]], dtype=np.int64), CPU)
FLOAT = Tensor.from_data([[1.0, -2.0, 3.0]], CPU)

CALLS = {
    "leaky_relu": lambda x: activation.leaky_relu(x, 0.1),
    "gelu_tanh": activation.gelu_tanh,
    "silu": activation.silu,
    "mish": activation.mish,
    "softplus": lambda x: activation.softplus(x, 1.0),
    "log_sigmoid": activation.log_sigmoid,
    "hard_sigmoid": lambda x: activation.hard_sigmoid(x, 0.2, 0.5),
    "softmin": lambda x: activation.softmin(x, 0),
    "quiet_softmax": lambda x: activation.quiet_softmax(x, 0),
}


@pytest.mark.parametrize("name", list(CALLS))
def test_activation_raises_type_error_on_int(name):
    with pytest.raises(TypeError, match=f"{name} needs a Float tensor, got Int"):
        CALLS[name](INT)


def test_softmin_raises_index_error_for_a_dim_out_of_range():
    with pytest.raises(IndexError, match="dimension 2 is out of range for a tensor of rank 2"):
        activation.softmin(FLOAT, 2)


def test_prelu_raises_value_error_naming_shapes_when_alpha_does_not_match_the_channels():
    with pytest.raises(ValueError, match=r"got input \[1, 3\] and alpha \[2\]"):
        activation.prelu(FLOAT, Tensor.from_data([0.1, 0.2], CPU))


def test_prelu_raises_value_error_for_several_weights_on_a_rank_1_input():
    x = Tensor.from_data([1.0, -1.0, 2.0], CPU)
    with pytest.raises(ValueError, match=r"got input \[3\] and alpha \[3\]"):
        activation.prelu(x, Tensor.from_data([0.1, 0.2, 0.3], CPU))


def test_prelu_raises_value_error_for_an_alpha_of_rank_2():
    with pytest.raises(ValueError, match=r"got input \[1, 3\] and alpha \[1, 3\]"):
        activation.prelu(FLOAT, Tensor.from_data([[0.1, 0.2, 0.3]], CPU))


def test_prelu_raises_type_error_on_int_alpha():
    with pytest.raises(TypeError, match="prelu needs Float tensors, got Float and Int"):
        activation.prelu(FLOAT, Tensor.from_data(np.array([1], dtype=np.int64), CPU))
