"""``burn_torch.loss.cross_entropy_with_logits`` and ``burn_torch.signal`` (rfft, irfft).

Gradients are property-tested against torch autograd and checked against finite differences;
values against numpy (``numpy.fft`` and the cross-entropy formula); Burn's conventions (shape
``[1]`` loss, one-sided unnormalised spectrum, ``1/n`` inverse, power-of-two lengths) and the
errors with explicit cases.
"""
from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from burn_torch import Device, Tensor, loss, signal
from burn_torch.testing import Const, assert_grads_match_torch, check_grads_numerically, covers
from burn_torch.testing.strategies import dims, float_arrays, shapes

SETTINGS = settings(deadline=None, max_examples=30)
AD = Device.cpu().autodiff()
CPU = Device.cpu()
seeds = st.integers(0, 2**16)
powers_of_two = st.sampled_from([1, 2, 4, 8, 16])


def leaf(values) -> Tensor:
    return Tensor.from_data(np.asarray(values, dtype=np.float64), AD).require_grad()


def numpy_cross_entropy(logits, target):
    shifted = logits - logits.max(-1, keepdims=True)
    log_softmax = shifted - np.log(np.exp(shifted).sum(-1, keepdims=True))
    return -(target * log_softmax).sum(-1).mean()


# ------------------------------------------------------------------ cross_entropy_with_logits ----
@covers("cross_entropy_with_logits")
@SETTINGS
@given(data=st.data(), seed=seeds)
def test_cross_entropy_gradients_match_torch_for_logits_and_targets(data, seed):
    shape = data.draw(shapes(max_rank=3))
    logits = data.draw(float_arrays(shape, -3.0, 3.0))
    target = data.draw(float_arrays(shape, 0.0, 1.0))
    constant = data.draw(st.sampled_from(["none", "target"]))
    assert_grads_match_torch(loss.cross_entropy_with_logits, logits,
                             Const(target) if constant == "target" else target, seed=seed)


def test_cross_entropy_gradients_match_finite_differences():
    logits = np.array([[0.5, -1.0, 2.0], [0.1, 0.2, -0.3]])
    target = np.array([[0.2, 0.3, 0.5], [1.0, 0.0, 0.0]])
    check_grads_numerically(loss.cross_entropy_with_logits, logits, target)


def test_cross_entropy_is_the_batch_mean_of_the_cross_entropy_along_the_last_dim():
    logits = np.array([[[0.5, -1.0, 2.0], [0.1, 0.2, -0.3]], [[3.0, 0.0, 0.0], [1.0, 1.0, 1.0]]])
    target = np.array([[[0.2, 0.3, 0.5], [1.0, 0.0, 0.0]], [[0.0, 0.0, 1.0], [0.5, 0.5, 0.0]]])
    out = loss.cross_entropy_with_logits(Tensor.from_data(logits, CPU), Tensor.from_data(target, CPU))
    assert out.dims() == [1]
    assert out.to_torch().item() == pytest.approx(numpy_cross_entropy(logits, target), rel=1e-12)


def test_cross_entropy_of_a_rank_1_input_is_that_rows_cross_entropy():
    out = loss.cross_entropy_with_logits(Tensor.from_data([0.0, 0.0], CPU),
                                         Tensor.from_data([1.0, 0.0], CPU))
    assert out.dims() == [1]
    assert out.to_torch().item() == pytest.approx(np.log(2.0), rel=1e-6)


def test_cross_entropy_raises_value_error_naming_different_shapes():
    with pytest.raises(ValueError, match=r"same shape, got \[2, 3\] and \[2, 2\]"):
        loss.cross_entropy_with_logits(Tensor.zeros([2, 3], CPU), Tensor.zeros([2, 2], CPU))


def test_cross_entropy_raises_type_error_on_int_targets():
    targets = Tensor.from_data(np.array([[0, 1]], dtype=np.int64), CPU)
    with pytest.raises(TypeError, match="cross_entropy_with_logits needs Float tensors, got Float and Int"):
        loss.cross_entropy_with_logits(Tensor.zeros([1, 2], CPU), targets)


# --------------------------------------------------------------------------------- rfft ----
@st.composite
def signals(draw):
    """A signal with a power-of-two length along a drawn dim (or a power-of-two n), and the args."""
    shape = list(draw(shapes(max_rank=3, max_side=4)))
    dim = draw(dims(len(shape)))
    n = draw(st.one_of(st.none(), powers_of_two))
    shape[dim] = draw(powers_of_two) if n is None else draw(st.integers(1, 9))
    return draw(float_arrays(tuple(shape))), dim, n


@covers("rfft", "spectrum_part")
@SETTINGS
@given(args=signals(), seed=seeds)
def test_rfft_gradients_match_torch(args, seed):
    x, dim, n = args
    assert_grads_match_torch(lambda t: signal.rfft(t, dim, n), x, seed=seed)


@covers("rfft", "spectrum_part")
@pytest.mark.parametrize("part", [0, 1], ids=["re", "im"])
def test_rfft_gradient_flows_from_either_part_alone(part):
    x = np.array([[0.5, -1.0, 2.0, 0.3], [1.0, 0.0, -2.0, 4.0]])
    assert_grads_match_torch(lambda t: signal.rfft(t, 1)[part], x)


@pytest.mark.parametrize("n", [None, 2, 8], ids=["n=None", "truncated", "padded"])
def test_rfft_gradients_match_finite_differences(n):
    check_grads_numerically(lambda t: signal.rfft(t, 1, n), np.array([[0.5, -1.0, 2.0, 0.3]]))


@pytest.mark.parametrize("n", [None, 2, 8])
def test_rfft_values_equal_numpy(n):
    x = np.random.default_rng(0).standard_normal((3, 4))
    re, im = signal.rfft(Tensor.from_data(x, CPU), 1, n)
    want = np.fft.rfft(x, n, axis=1)
    np.testing.assert_allclose(re.to_torch().numpy(), want.real, atol=1e-12)
    np.testing.assert_allclose(im.to_torch().numpy(), want.imag, atol=1e-12)


def test_rfft_returns_float_parts_with_half_the_bins_plus_one_along_dim():
    re, im = signal.rfft(Tensor.from_data(np.ones((8, 3), dtype=np.float32), CPU), 0)
    assert re.dims() == im.dims() == [5, 3]
    assert re.dtype() == im.dtype() == Tensor.zeros([1], CPU).dtype()
    assert re.to_torch()[:, 0].tolist() == [8.0, 0.0, 0.0, 0.0, 0.0]


def test_rfft_raises_value_error_naming_the_shape_for_a_length_not_a_power_of_two():
    with pytest.raises(ValueError, match=r"power of two \(or pass n\), got shape \[2, 3\]"):
        signal.rfft(Tensor.zeros([2, 3], CPU), 1)


def test_rfft_raises_value_error_for_n_not_a_power_of_two():
    with pytest.raises(ValueError, match="rfft: n must be a power of two >= 1, got 6"):
        signal.rfft(Tensor.zeros([2, 4], CPU), 1, 6)


def test_rfft_raises_type_error_on_int():
    with pytest.raises(TypeError, match="rfft needs a Float tensor, got Int"):
        signal.rfft(Tensor.from_data(np.array([1, 2], dtype=np.int64), CPU), 0)


# -------------------------------------------------------------------------------- irfft ----
@st.composite
def spectra(draw):
    """Spectrum parts of a drawn shape and dim, with n None (bins = 2^k + 1) or a power of two."""
    shape = list(draw(shapes(max_rank=3, max_side=4)))
    dim = draw(dims(len(shape)))
    n = draw(st.one_of(st.none(), powers_of_two))
    shape[dim] = draw(powers_of_two) + 1 if n is None else draw(st.integers(1, 9))
    re = draw(float_arrays(tuple(shape)))
    im = draw(float_arrays(tuple(shape)))
    return re, im, dim, n


@covers("irfft")
@SETTINGS
@given(args=spectra(), seed=seeds)
def test_irfft_gradients_match_torch(args, seed):
    re, im, dim, n = args
    assert_grads_match_torch(lambda r, i: signal.irfft(r, i, dim, n), re, im, seed=seed)


@pytest.mark.parametrize("n", [None, 2, 8], ids=["n=None", "truncated", "padded"])
def test_irfft_gradients_match_finite_differences(n):
    re = np.array([[1.0, -0.5, 0.25]])
    im = np.array([[0.3, 0.7, -0.2]])
    check_grads_numerically(lambda r, i: signal.irfft(r, i, 1, n), re, im)


@pytest.mark.parametrize("n", [None, 2, 8])
def test_irfft_values_equal_numpy(n):
    rng = np.random.default_rng(1)
    re, im = rng.standard_normal((2, 5)), rng.standard_normal((2, 5))
    got = signal.irfft(Tensor.from_data(re, CPU), Tensor.from_data(im, CPU), -1, n)
    np.testing.assert_allclose(got.to_torch().numpy(), np.fft.irfft(re + 1j * im, n, axis=-1),
                               atol=1e-12)


def test_irfft_inverts_rfft():
    x = np.random.default_rng(2).standard_normal((4, 8))
    re, im = signal.rfft(Tensor.from_data(x, CPU), 1)
    np.testing.assert_allclose(signal.irfft(re, im, 1).to_torch().numpy(), x, atol=1e-12)


def test_irfft_ignores_the_imaginary_part_of_the_dc_bin_and_gives_it_no_gradient():
    re = leaf([1.0, 2.0, 3.0])
    im = leaf([5.0, 0.0, 0.0])
    out = signal.irfft(re, im, 0)
    np.testing.assert_allclose(out.to_torch().numpy(), [2.0, -0.5, 0.0, -0.5], atol=1e-12)
    grads = out.sum().backward()
    assert im.grad(grads).to_torch()[0].item() == 0.0


def test_irfft_raises_value_error_naming_different_shapes():
    with pytest.raises(ValueError, match=r"same shape, got \[3\] and \[2\]"):
        signal.irfft(Tensor.zeros([3], CPU), Tensor.zeros([2], CPU), 0)


def test_irfft_raises_value_error_when_the_default_length_is_not_a_power_of_two():
    with pytest.raises(ValueError, match=r"2 \* \(bins - 1\) = 6 along dim 0 must be a power of two"):
        signal.irfft(Tensor.zeros([4], CPU), Tensor.zeros([4], CPU), 0)


def test_irfft_raises_value_error_for_n_not_a_power_of_two():
    with pytest.raises(ValueError, match="irfft: n must be a power of two >= 1, got 0"):
        signal.irfft(Tensor.zeros([3], CPU), Tensor.zeros([3], CPU), 0, 0)


def test_irfft_raises_type_error_on_int():
    ints = Tensor.from_data(np.array([1, 2], dtype=np.int64), CPU)
    with pytest.raises(TypeError, match="irfft needs Float tensors, got Int and Int"):
        signal.irfft(ints, ints, 0)
