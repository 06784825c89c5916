"""Property-testing a custom layer's gradients with burn_torch.testing and hypothesis.

The layer is written once against the burn_torch Tensor API. ``assert_grads_match_torch`` runs it
under Burn's autodiff and again with torch autograd over the same kernels, and compares outputs
and every leaf's gradient; ``check_grads_numerically`` compares with finite differences.
Hypothesis draws the shapes and values (``burn_torch.testing.strategies``).

Run it with .venv/bin/python examples/testing_kit.py
"""
from hypothesis import given, settings
from hypothesis import strategies as st

from burn_torch import Tensor, activation
from burn_torch.testing import Const, assert_grads_match_torch, check_grads_numerically
from burn_torch.testing.strategies import float_arrays


def rms_norm_gelu(x: Tensor, weight: Tensor, bias: Tensor) -> Tensor:
    """A small custom layer: RMS-normalise the last dim, scale, shift, then GELU."""
    rms = x.square().mean_dim(-1).add_scalar(1e-5).sqrt()
    return activation.gelu(x / rms * weight + bias)


@st.composite
def layer_inputs(draw):
    rows, features = draw(st.integers(1, 4)), draw(st.integers(1, 6))
    x = draw(float_arrays((rows, features), -3.0, 3.0))
    weight = draw(float_arrays((1, features), 0.5, 1.5))
    bias = draw(float_arrays((1, features)))
    return x, weight, bias


@settings(max_examples=25, deadline=None)
@given(inputs=layer_inputs(), seed=st.integers(0, 2**32 - 1))
def test_rms_norm_gelu_matches_torch_autograd(inputs, seed):
    x, weight, bias = inputs
    # x and weight are tracked leaves; the bias is a constant and must get no gradient
    res = assert_grads_match_torch(rms_norm_gelu, x, weight, Const(bias), seed=seed)
    assert res.grads[2] is None


@settings(max_examples=10, deadline=None)
@given(inputs=layer_inputs())
def test_rms_norm_gelu_matches_finite_differences(inputs):
    check_grads_numerically(rms_norm_gelu, *inputs)


if __name__ == "__main__":
    test_rms_norm_gelu_matches_torch_autograd()
    test_rms_norm_gelu_matches_finite_differences()
    print("OK: rms_norm_gelu's gradients match torch autograd and finite differences")
