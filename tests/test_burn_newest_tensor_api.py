"""The tensor methods Burn's newest sources add after 0.21
(``data/burn_tensor_methods_newest.txt``): ``select_dim``, ``empty_like``, ``no_grad`` and the converting data readers, each with Burn's
semantics, and the free functions ``module_ops.batch_norm`` and ``linalg.qr``. The forwards
and gradients of ``select_dim``, ``batch_norm`` and ``qr`` are their op-spec rows
(``spec/shape.py``, ``spec/norm.py``, ``spec/linalg.py``); this module checks what the spec
table does not."""
from __future__ import annotations

import numpy as np
import pytest
import torch

from burn_torch import (AutodiffDisabledError, DType, GradientCheckpointingStrategy, Int, Tensor,
                        TensorData, linalg, module_ops)
from burn_torch.testing import assert_grads_match_torch
from helpers import AD, CK, CPU


def floats(values, device=AD):
    return Tensor.from_data(torch.tensor(values, dtype=torch.float32), device)


# ======================================================================== select_dim ====
def test_select_dim_is_slice_dim_then_squeeze_dim_on_every_kind():
    x = Tensor.from_data(torch.arange(24).reshape(2, 3, 4), AD)
    for dim, index in [(0, 1), (1, -1), (-1, 2), (2, -4)]:
        expected = x.slice_dim(dim, index).squeeze_dim(dim)
        assert torch.equal(x.select_dim(dim, index).to_torch(), expected.to_torch())
    flags = Tensor.from_bools([[True, False], [False, False]], AD)
    assert flags.select_dim(1, 0).to_data().to_list() == [True, False]


def test_select_dim_records_one_step_whose_gradient_lands_at_the_index():
    x = floats([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]]).require_grad()
    row = x.select_dim(0, -1)
    assert row.dims() == [3] and row._node.parents[0] is x._node
    grads = (row * floats([1.0, 2.0, 3.0])).sum().backward()
    assert x.grad(grads).to_data().to_list() == [[0.0, 0.0, 0.0], [1.0, 2.0, 3.0]]


def test_a_loop_of_select_dim_gives_every_entry_its_gradient():
    x = floats([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]]).require_grad()
    total = x.select_dim(1, 0)
    for t in range(1, 3):
        total = total + x.select_dim(1, t) * float(t + 1)
    grads = total.sum().backward()
    assert x.grad(grads).to_data().to_list() == [[1.0, 2.0, 3.0], [1.0, 2.0, 3.0]]


def test_select_dim_rejects_an_index_out_of_range_before_recording():
    x = floats([[1.0, 2.0, 3.0]]).require_grad()
    with pytest.raises(IndexError, match="valid indices are -3..2"):
        x.select_dim(1, 3)
    with pytest.raises(IndexError):
        x.select_dim(1, -4)
    with pytest.raises(IndexError):
        x.select_dim(2, 0)
    with pytest.raises(TypeError):
        x.select_dim(1, 1.0)


def test_select_dim_on_a_rank_1_tensor_raises_as_burn_has_no_rank_0_tensor():
    with pytest.raises(ValueError, match=r"slice_dim\(0, 1\)"):
        floats([1.0, 2.0]).select_dim(0, 1)


# ======================================================================== empty_like ====
def test_empty_like_keeps_shape_dtype_device_and_context_and_is_untracked():
    x = Tensor.from_data(torch.ones(2, 3, dtype=torch.float64), CK).require_grad() * 2.0
    out = x.empty_like()
    assert out.dims() == [2, 3] and out.dtype() is DType.F64 and out.device() == x.device()
    assert out.gradient_checkpointing_strategy() is GradientCheckpointingStrategy.BALANCED
    assert not out.is_tracked()
    ints = Tensor.from_data(torch.ones(4, dtype=torch.int16), CPU).empty_like()
    assert ints.dtype() is DType.I16 and not ints.is_autodiff()


# =========================================================================== no_grad ====
def test_no_grad_takes_a_tracked_tensor_off_autodiff_keeping_its_values():
    x = floats([1.0, -2.0]).require_grad()
    y = (x * 3.0).no_grad()
    assert not y.is_autodiff() and not y.is_tracked()
    assert y.to_data().to_list() == [3.0, -6.0]
    with pytest.raises(AutodiffDisabledError):
        y.require_grad()


def test_no_grad_leaves_the_graph_it_left_usable():
    x = floats([1.0, 2.0]).require_grad()
    y = x * x
    y.no_grad()
    assert x.grad(y.sum().backward()).to_data().to_list() == [2.0, 4.0]


def test_no_grad_returns_a_tensor_without_autodiff_as_is():
    x = floats([1.0], CPU)
    assert x.no_grad() is x


# ======================================================================= data readers ====
READERS = ["to_data_as", "into_data_as", "try_to_data_as", "try_into_data_as",
           "to_data_dtype", "into_data_dtype", "try_to_data_dtype", "try_into_data_dtype"]


@pytest.mark.parametrize("reader", READERS)
def test_a_reader_converts_with_burns_element_conversion(reader):
    x = floats([[1.9, -1.9], [0.0, 127.5]])
    data = getattr(x, reader)(DType.I8)
    assert isinstance(data, TensorData) and data.dtype is DType.I8
    assert data.to_list() == [[1, -1], [0, 127]]  # truncated towards zero
    assert getattr(x, reader)(DType.BOOL).to_list() == [[True, True], [False, True]]


@pytest.mark.parametrize("reader", READERS)
def test_a_reader_raises_for_a_value_the_integer_dtype_cannot_hold(reader):
    x = floats([[1.0, 2.0], [float("nan"), 3.0]])
    with pytest.raises(ValueError, match=r"nan at index \[1, 0\].*I32"):
        getattr(x, reader)(DType.I32)


def test_the_integer_range_is_checked_after_truncation():
    assert floats([127.9, -128.9]).to_data_as(DType.I8).to_list() == [127, -128]
    for value in (128.0, -129.0, float("inf")):
        with pytest.raises(ValueError):
            floats([value]).to_data_as(DType.I8)
    with pytest.raises(ValueError, match="-1"):
        Tensor.from_data([3, -1], AD).to_data_as(DType.U8)
    with pytest.raises(ValueError, match="2147483648"):
        Tensor.from_data([2**31], AD).to_data_dtype(DType.I32)


def test_float_narrowing_saturates_as_burn():
    big = Tensor.from_data(torch.tensor([1e300, -1e300], dtype=torch.float64), AD)
    assert big.to_data_as(DType.F32).to_list() == [float("inf"), float("-inf")]


def test_bools_read_as_numbers_are_zero_and_one():
    flags = Tensor.from_bools([True, False], AD)
    assert flags.to_data_as(DType.F32).to_list() == [1.0, 0.0]
    assert flags.try_to_vec_as(DType.I64) == [1, 0]


def test_reading_as_the_own_dtype_is_to_data():
    x = floats([[1.5, 2.5]])
    assert x.to_data_as(DType.F32) == x.to_data() == x.try_to_data()


def test_a_reader_leaves_the_tensor_and_its_graph_usable():
    x = floats([1.5, 2.5]).require_grad()
    y = x * 2.0
    y.into_data_as(DType.I64)
    y.try_into_vec_as(DType.F64)
    assert y.to_data().to_list() == [3.0, 5.0]
    assert x.grad(y.sum().backward()).to_data().to_list() == [2.0, 2.0]


@pytest.mark.parametrize("reader", ["try_to_vec_as", "try_into_vec_as"])
def test_vec_readers_give_a_flat_row_major_list_of_python_values(reader):
    x = Tensor.from_data([[1, 2], [3, 4]], AD)
    out = getattr(x, reader)(DType.F32)
    assert out == [1.0, 2.0, 3.0, 4.0] and all(type(v) is float for v in out)


@pytest.mark.parametrize("reader", READERS + ["try_to_vec_as", "try_into_vec_as"])
def test_a_reader_names_the_dtype_with_a_dtype_value(reader):
    with pytest.raises(TypeError, match="DType"):
        getattr(floats([1.0]), reader)(torch.float64)


def test_tensor_data_try_cast_is_the_conversion_the_readers_use():
    data = TensorData([[-0.5, 300.0]])
    assert data.try_cast(DType.I16).to_list() == [[0, 300]]
    with pytest.raises(ValueError, match="300.0 at index \\[0, 1\\]"):  # -0.5 truncates to 0
        data.try_cast(DType.U8)
    with pytest.raises(ValueError):
        data.convert(DType.U8)
    assert data.try_cast(DType.F32) is data


# ===================================================================== module::batch_norm ====
def _stats(n=3, dtype=torch.float32):
    return [Tensor.from_data(torch.full((n,), v, dtype=dtype), AD) for v in (2.0, 0.5, 1.0, 4.0)]


def test_batch_norm_normalises_each_channel_with_the_statistics_given():
    x = Tensor.from_data(torch.arange(12, dtype=torch.float32).reshape(2, 3, 2), AD)
    gamma, beta, mean, var = _stats()
    out = module_ops.batch_norm(x, gamma, beta, mean, var, 0.0)
    expected = (torch.arange(12.0).reshape(2, 3, 2) - 1.0) / 2.0 * 2.0 + 0.5
    assert torch.allclose(out.to_torch(), expected)


def test_batch_norm_checks_shapes_kinds_and_dtypes_as_burn():
    x = Tensor.ones([2, 3, 4], AD)
    gamma, beta, mean, var = _stats()
    with pytest.raises(ValueError, match="rank >= 2"):
        module_ops.batch_norm(Tensor.ones([3], AD), gamma, beta, mean, var, 1e-5)
    with pytest.raises(ValueError, match=r"variance must have shape \[3\]"):
        module_ops.batch_norm(x, gamma, beta, mean, Tensor.ones([4], AD), 1e-5)
    with pytest.raises(TypeError, match="Float"):
        module_ops.batch_norm(Tensor.ones([2, 3], AD, kind=Int), gamma, beta, mean, var, 1e-5)
    with pytest.raises(TypeError, match=r"\.cast\(input\.dtype\(\)\)"):
        module_ops.batch_norm(x, *_stats(dtype=torch.float64)[:3], var, 1e-5)
    with pytest.raises(ValueError, match="epsilon"):
        module_ops.batch_norm(x, gamma, beta, mean, var, -1.0)


# ============================================================================ linalg::qr ====
def test_qr_gives_burns_documented_example():
    q, r = linalg.qr(floats([[3.0, 2.0], [4.0, 6.0]]), True)
    assert torch.allclose(q.to_torch(), torch.tensor([[-0.6, 0.8], [-0.8, -0.6]]))
    assert torch.allclose(r.to_torch(), torch.tensor([[-5.0, -6.0], [0.0, -2.0]]))


def test_qr_reflects_a_column_already_zero_below_its_pivot_as_burn():
    q, r = linalg.qr(floats([[2.0, 1.0], [0.0, 3.0]]), True)
    assert torch.allclose(r.to_torch(), torch.tensor([[-2.0, -1.0], [0.0, -3.0]]))
    assert torch.allclose(q.to_torch(), -torch.eye(2))


def test_the_complete_qr_of_a_tall_matrix_extends_the_reduced_one():
    values = torch.randn(5, 3, dtype=torch.float64, generator=torch.Generator().manual_seed(1))
    a = Tensor.from_data(values, AD)
    q, r = linalg.qr(a, False)
    q1, r1 = linalg.qr(a, True)
    assert q.dims() == [5, 5] and r.dims() == [5, 3]
    qt = q.to_torch()
    assert torch.allclose(qt.T @ qt, torch.eye(5, dtype=torch.float64))
    assert torch.allclose(qt @ r.to_torch(), a.to_torch())
    assert torch.equal(qt[:, :3], q1.to_torch()) and torch.equal(r.to_torch()[:3], r1.to_torch())
    assert not r.to_torch()[3:].any()


def test_qr_of_half_precision_is_computed_in_f32_and_cast_back():
    half = torch.tensor([[3.0, 2.0], [4.0, 6.0]], dtype=torch.float16)
    q, r = linalg.qr(Tensor.from_data(half, AD), True)
    assert q.dtype() is DType.F16 and r.dtype() is DType.F16
    assert torch.allclose(r.to_torch().float(), torch.tensor([[-5.0, -6.0], [0.0, -2.0]]))


def test_qr_checks_its_arguments():
    with pytest.raises(TypeError, match="Float"):
        linalg.qr(Tensor.from_data([[1, 2], [3, 4]], AD), True)
    with pytest.raises(ValueError, match="rank >= 2"):
        linalg.qr(floats([1.0, 2.0]), True)
    with pytest.raises(TypeError, match="bool"):
        linalg.qr(floats([[1.0]]), 1)


@pytest.mark.parametrize("shape,reduced", [((4, 3), True), ((3, 5), False)])
def test_the_testing_kits_oracle_checks_qr_through_torch_autograd(shape, reduced):
    # qr's kernel (geqrf) has no torch derivative: the oracle runs torch.linalg.qr, Burn's signs
    values = np.random.default_rng(3).normal(size=shape)
    assert_grads_match_torch(lambda a: linalg.qr(a, reduced), values)


def test_the_testing_kits_oracle_checks_batch_norm_with_its_statistics_tracked():
    # torch's eval-form kernel gives the statistics no gradient: the oracle runs Burn's formula
    rng = np.random.default_rng(4)
    args = (rng.normal(size=(2, 3, 4)), rng.normal(size=3), rng.normal(size=3), rng.normal(size=3),
            rng.uniform(0.5, 2.0, size=3))
    assert_grads_match_torch(lambda x, g, b, m, v: module_ops.batch_norm(x, g, b, m, v, 1e-5), *args)
