"""Quantized float tensors (seed 000: quantized tensors cannot retain
gradients; require_grad()/set_require_grad(...) leave them unchanged)."""
import warnings

import numpy as np
import pytest
import torch

import burn_torch
from burn_torch import AutodiffDisabledError, DType, QuantScheme, Tensor
from helpers import AD, BALANCED, CK, CPU, DISABLED


def f32(values, device=CPU):
    return Tensor.from_data(np.array(values, dtype=np.float32), device)


def properties(t):
    return (t.is_autodiff(), t.is_tracked(), t.is_require_grad(), t.gradient_checkpointing_strategy())


# ------------------------------------------------------------------------------ QuantScheme ----
def test_quant_scheme_default_is_symmetric_int8_per_tensor():
    s = QuantScheme.default()
    assert s.mode.name == "SYMMETRIC"
    assert s.level.name == "TENSOR"
    assert s.qmax == 127
    assert "int8" in repr(s)


def test_quant_scheme_default_values_are_equal():
    assert QuantScheme.default() == QuantScheme.default()
    assert hash(QuantScheme.default()) == hash(QuantScheme())


def test_quant_scheme_is_importable_from_the_package():
    assert burn_torch.QuantScheme is QuantScheme


# -------------------------------------------------------------------------------- round trip ----
def test_quantize_dynamic_gives_a_quantized_tensor():
    x = f32([1.0, -2.0])
    q = x.quantize_dynamic(QuantScheme.default())
    assert q.is_quantized() is True
    assert x.is_quantized() is False


def test_quantize_dynamic_without_a_scheme_uses_the_default():
    q = f32([1.0, -2.0]).quantize_dynamic()
    assert q.is_quantized() is True
    assert q.scheme() == QuantScheme.default()


def test_quantized_values_are_plain_int8_with_a_max_abs_over_127_scale():
    q = f32([0.5, -2.54, 1.27]).quantize_dynamic()
    assert q.quantized_values().dtype is torch.int8
    assert q.scale() == pytest.approx(2.54 / 127)
    assert int(q.quantized_values().abs().max()) == 127


def test_quantizing_uses_no_deprecated_torch_quantized_dtype():
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        q = f32([1.0, 2.0]).quantize_dynamic()
        q.dequantize()
    assert not q.quantized_values().is_quantized


def test_dequantize_round_trip_is_within_half_a_scale():
    CPU.seed(0)
    x = Tensor.random([64], burn_torch.Distribution.normal(0.0, 3.0), CPU)
    q = x.quantize_dynamic(QuantScheme.default())
    back = q.dequantize()
    err = np.abs(back.to_data().to_numpy() - x.to_data().to_numpy()).max()
    assert err <= q.scale() / 2 + 1e-6


def test_dequantize_of_exactly_representable_values_is_exact():
    x = f32([-1.27, 0.0, 0.63, 1.27])
    back = x.quantize_dynamic().dequantize()
    back.to_data().assert_approx_eq(x.to_data(), 1e-6)


def test_dequantize_gives_a_plain_float_tensor_with_the_same_shape_and_dtype():
    x = Tensor.from_data(np.ones((2, 3), dtype=np.float64), CPU)
    back = x.quantize_dynamic().dequantize()
    assert back.is_quantized() is False
    assert back.dims() == [2, 3]
    assert back.dtype() is DType.F64


def test_quantizing_all_zeros_round_trips_to_zeros():
    back = Tensor.zeros([3], CPU).quantize_dynamic().dequantize()
    assert back.to_data().to_list() == [0.0, 0.0, 0.0]


def test_dequantize_of_a_plain_tensor_returns_it():
    x = f32([1.0])
    assert x.dequantize() is x


def test_quantize_of_an_int_tensor_raises_type_error():
    with pytest.raises(TypeError, match="Float"):
        Tensor.from_data([1, 2], CPU).quantize_dynamic()


def test_ops_on_a_quantized_tensor_see_its_dequantized_values():
    q = f32([1.27, -0.5]).quantize_dynamic()
    out = q * 2.0
    assert out.is_quantized() is False
    out.to_data().assert_approx_eq((q.dequantize() * 2.0).to_data(), 1e-6)


# ------------------------------------------------------------ autodiff: the four properties ----
def test_property_accessors_on_a_plain_quantized_tensor():
    q = f32([1.0]).quantize_dynamic()
    assert properties(q) == (False, False, False, None)


def test_property_accessors_on_an_autodiff_quantized_tensor():
    q = f32([1.0], CK).quantize_dynamic()
    assert properties(q) == (True, False, False, BALANCED)


def test_quantizing_a_tracked_leaf_keeps_the_association_but_is_untracked():
    q = f32([1.0], AD).require_grad().quantize_dynamic()
    assert properties(q) == (True, False, False, DISABLED)


def test_dequantize_keeps_the_autodiff_association():
    back = f32([1.0], CK).quantize_dynamic().dequantize()
    assert properties(back) == (True, False, False, BALANCED)


# --------------------------------------------------- require_grad / set_require_grad no-ops ----
def test_require_grad_leaves_an_autodiff_quantized_tensor_unchanged():
    q = f32([1.0, 2.0], AD).quantize_dynamic()
    r = q.require_grad()
    assert r is q
    assert r.is_quantized() is True
    assert properties(r) == (True, False, False, DISABLED)


def test_require_grad_leaves_a_plain_quantized_tensor_unchanged_without_raising():
    q = f32([1.0]).quantize_dynamic()
    r = q.require_grad()
    assert r is q
    assert properties(r) == (False, False, False, None)


@pytest.mark.parametrize("flag", [True, False])
def test_set_require_grad_leaves_a_quantized_tensor_unchanged(flag):
    q = f32([1.0], CK).quantize_dynamic()
    r = q.set_require_grad(flag)
    assert r is q
    assert r.is_quantized() is True
    assert properties(r) == (True, False, False, BALANCED)


def test_backward_on_a_quantized_tensor_raises_not_tracked():
    q = f32([1.0], AD).quantize_dynamic().require_grad()
    with pytest.raises(burn_torch.NotTrackedError):
        q.backward()


# ------------------------------------------------ association changes keep it quantized ----
def test_autodiff_keeps_a_tensor_quantized_and_adds_the_association():
    q = f32([1.0, -2.0]).quantize_dynamic()
    a = q.autodiff()
    assert a.is_quantized() is True
    assert properties(a) == (True, False, False, DISABLED)
    assert torch.equal(a.quantized_values(), q.quantized_values())
    assert a.scale() == q.scale()
    assert properties(q) == (False, False, False, None)


def test_autodiff_of_an_autodiff_quantized_tensor_is_idempotent():
    q = f32([1.0], CK).quantize_dynamic()
    assert q.autodiff() is q


def test_without_autodiff_keeps_a_tensor_quantized_and_drops_the_association():
    q = f32([1.0, -2.0], CK).quantize_dynamic()
    p = q.without_autodiff()
    assert p.is_quantized() is True
    assert properties(p) == (False, False, False, None)
    assert torch.equal(p.quantized_values(), q.quantized_values())
    assert q.inner().is_quantized() is True


def test_with_gradient_checkpointing_strategy_keeps_a_tensor_quantized():
    q = f32([1.0], AD).quantize_dynamic()
    b = q.with_gradient_checkpointing_strategy(BALANCED)
    assert b.is_quantized() is True
    assert properties(b) == (True, False, False, BALANCED)


def test_with_gradient_checkpointing_strategy_on_a_plain_quantized_tensor_raises():
    with pytest.raises(AutodiffDisabledError):
        f32([1.0]).quantize_dynamic().with_gradient_checkpointing_strategy(BALANCED)


def test_to_device_keeps_a_tensor_quantized_and_its_association():
    q = f32([1.0, -2.0], CK).quantize_dynamic()
    moved = q.to_device(CPU)
    assert moved.is_quantized() is True
    assert properties(moved) == (True, False, False, BALANCED)
    moved.dequantize().to_data().assert_eq(q.dequantize().to_data())


def test_detach_leaves_a_quantized_tensor_unchanged():
    q = f32([1.0], AD).quantize_dynamic()
    assert q.detach() is q
