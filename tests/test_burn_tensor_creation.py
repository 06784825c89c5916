"""Burn's creation, sampling, data-reading and quantization methods that have no gradient:
``empty``, ``from_bool``, ``eye``, ``arange_step``, ``cartesian_grid``, the triangle and
diagonal masks, ``categorical``, ``into_data`` and the ``try_*`` forms, ``quantize``, and the
``*_scalar`` comparison names."""
from __future__ import annotations

import pytest
import torch

from burn_torch import Bool, Float, Int, QuantizationParameters, QuantScheme, Tensor
from helpers import AD, CPU


def test_empty_has_the_shape_kind_and_autodiff_context_asked_for():
    t = Tensor.empty([2, 3], AD, Int)
    assert t.dims() == [2, 3] and t.kind is Int and t.is_autodiff() and not t.is_tracked()


def test_from_bool_makes_a_bool_tensor():
    t = Tensor.from_bool([[True, False]], CPU)
    assert t.kind is Bool and t.to_torch().tolist() == [[True, False]]


def test_eye_is_torch_eye():
    assert torch.equal(Tensor.eye(4, AD).to_torch(), torch.eye(4))
    assert Tensor.eye(2, AD, Int).kind is Int


def test_arange_step_is_torch_arange_with_a_positive_step():
    assert Tensor.arange_step(-3, 10, 4, AD).to_torch().tolist() == torch.arange(-3, 10, 4).tolist()
    with pytest.raises(ValueError):
        Tensor.arange_step(0, 10, 0, AD)


def test_cartesian_grid_holds_each_entrys_coordinates():
    grid = Tensor.cartesian_grid([2, 3], AD)
    assert grid.kind is Int and grid.dims() == [2, 3, 2]
    assert grid.to_torch().tolist() == [[[i, j] for j in range(3)] for i in range(2)]


# Burn's doc examples (burn-tensor/src/tensor/api/bool.rs)
def test_triu_mask_is_false_on_the_upper_triangle():
    mask = Tensor.triu_mask([3, 3], 0, AD).to_torch()
    assert mask.tolist() == [[False, False, False], [True, False, False], [True, True, False]]


def test_tril_mask_is_false_on_the_lower_triangle():
    mask = Tensor.tril_mask([3, 3], 0, AD).to_torch()
    assert mask.tolist() == [[False, True, True], [False, False, True], [False, False, False]]


def test_diag_mask_is_false_on_the_diagonal():
    mask = Tensor.diag_mask([3, 3], 0, AD).to_torch()
    assert mask.tolist() == [[False, True, True], [True, False, True], [True, True, False]]


@pytest.mark.parametrize("offset", [-2, -1, 0, 1, 3])
def test_triangle_masks_select_what_triu_and_tril_keep(offset):
    ones = torch.ones(3, 5)
    assert torch.equal(~Tensor.triu_mask([3, 5], offset, AD).to_torch(), torch.triu(ones, offset).bool())
    assert torch.equal(~Tensor.tril_mask([3, 5], offset, AD).to_torch(), torch.tril(ones, offset).bool())
    diagonal = (torch.triu(ones, offset) * torch.tril(ones, offset)).bool()
    assert torch.equal(~Tensor.diag_mask([3, 5], offset, AD).to_torch(), diagonal)


def test_masks_of_a_batched_shape_have_leading_dims_of_one_as_burn():
    assert Tensor.triu_mask([4, 2, 3, 3], 0, AD).dims() == [1, 1, 3, 3]


def test_categorical_with_one_hot_weights_always_draws_that_category():
    probs = Tensor.from_floats([[0.0, 1.0, 0.0], [0.0, 0.0, 1.0]], AD)
    assert probs.categorical(4).to_torch().tolist() == [[1] * 4, [2] * 4]


def test_categorical_draws_follow_the_normalised_weights():
    CPU.seed(7)
    weights = Tensor.from_floats([[1.0, 3.0, 0.0, 4.0]], CPU)
    draws = weights.categorical(20000)
    assert draws.kind is Int and draws.dims() == [1, 20000]
    freq = torch.bincount(draws.to_torch()[0], minlength=4).double() / 20000
    assert torch.allclose(freq, torch.tensor([0.125, 0.375, 0.0, 0.5], dtype=torch.float64), atol=0.02)


def test_categorical_keeps_leading_dims_and_needs_a_sample():
    weights = Tensor.ones([2, 3, 5], AD).require_grad()
    draws = weights.categorical(6)
    assert draws.dims() == [2, 3, 6] and not draws.is_tracked()
    with pytest.raises(ValueError):
        weights.categorical(0)


def test_into_data_and_try_forms_read_the_values():
    t = Tensor.from_floats([[1.0, 2.0]], AD)
    assert t.into_data().to_numpy().tolist() == [[1.0, 2.0]]
    assert t.try_into_data().to_numpy().tolist() == [[1.0, 2.0]]
    assert Tensor.from_data(Tensor.from_ints([1, 2], CPU).into_data(), AD).kind is Int
    assert Tensor.from_floats([2.5], AD).try_into_scalar() == 2.5
    with pytest.raises(ValueError):
        t.try_into_scalar()


def test_quantize_uses_the_given_scale():
    x = Tensor.from_floats([0.5, -1.2, 30.0], AD)
    q = x.quantize(QuantScheme(), QuantizationParameters(Tensor.from_floats([0.1], AD)))
    assert q.is_quantized() and q.scale() == pytest.approx(0.1)
    assert q.quantized_values().tolist() == [5, -12, 127]
    assert torch.allclose(q.dequantize().to_torch(), torch.tensor([0.5, -1.2, 12.7]))


def test_quantize_rejects_a_non_positive_scale_and_wrong_parameters():
    x = Tensor.from_floats([1.0], AD)
    with pytest.raises(ValueError):
        x.quantize(QuantScheme(), QuantizationParameters(Tensor.from_floats([0.0], AD)))
    with pytest.raises(TypeError):
        x.quantize(QuantScheme(), 0.1)


@pytest.mark.parametrize("name", ["equal", "not_equal", "greater", "greater_equal", "lower",
                                  "lower_equal"])
def test_scalar_comparison_names_equal_the_elem_ones(name):
    x = Tensor.from_floats([0.0, 1.0, 2.0], AD)
    assert torch.equal(getattr(x, f"{name}_scalar")(1.0).to_torch(),
                       getattr(x, f"{name}_elem")(1.0).to_torch())
    assert x.kind is Float
