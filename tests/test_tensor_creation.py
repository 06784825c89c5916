"""Tensor creation, kinds, dtypes, TensorData and inspection."""
import numpy as np
import pytest
import torch

import burn_torch
from burn_torch import Bool, Device, Distribution, DType, Float, Int, Shape, Tensor, TensorData
from helpers import AD, BALANCED, CK, CPU


# ------------------------------------------------------------------------ public names ----
def test_public_names_are_importable_from_the_package():
    for name in ["Tensor", "Gradients", "AutodiffError", "Device", "Distribution", "DType",
                 "QuantScheme", "GradientCheckpointingStrategy", "Float", "Int", "Bool", "TensorData"]:
        assert hasattr(burn_torch, name), name


def test_tensor_cannot_be_constructed_directly():
    with pytest.raises(TypeError, match="from_data"):
        Tensor([1.0])


# ------------------------------------------------------------------- kinds and dtypes ----
def test_kinds_are_float_int_and_bool():
    assert Tensor.from_data([1.0], CPU).kind is Float
    assert Tensor.from_data([1], CPU).kind is Int
    assert Tensor.from_data([True], CPU).kind is Bool


def test_default_dtypes_are_f32_i64_and_bool():
    assert Tensor.from_data([1.0], CPU).dtype() is DType.F32
    assert Tensor.from_data([1], CPU).dtype() is DType.I64
    assert Tensor.from_data([True], CPU).dtype() is DType.BOOL


def test_dtype_maps_to_torch_dtype_and_kind():
    assert DType.F64.torch is torch.float64
    assert DType.F32.kind is Float
    assert DType.I64.kind is Int
    assert DType.BOOL.kind is Bool
    assert DType.BF16.is_float() and not DType.I32.is_float()


def test_cast_changes_the_dtype_and_keeps_values():
    t = Tensor.from_data([1.5, 2.5], CPU).cast(DType.F64)
    assert t.dtype() is DType.F64
    assert t.to_data().to_list() == [1.5, 2.5]


def test_int_float_bool_conversions():
    f = Tensor.from_data([0.0, 1.7, -2.2], CPU)
    assert f.int().to_data().to_list() == [0, 1, -2]
    assert f.bool().to_data().to_list() == [False, True, True]
    assert Tensor.from_data([1, 2], CPU).float().to_data().to_list() == [1.0, 2.0]
    assert Tensor.from_data([1, 2], CPU).float().dtype() is DType.F32


# ------------------------------------------------------------------------- from_data ----
def test_from_data_infers_float_from_float_lists():
    t = Tensor.from_data([[1.0, 2.0], [3.0, 4.5]], CPU)
    assert t.kind is Float
    assert t.dims() == [2, 2]
    assert t.to_data().to_list() == [[1.0, 2.0], [3.0, 4.5]]


def test_from_data_infers_float_from_mixed_int_and_float_lists():
    t = Tensor.from_data([1, 2.5], CPU)
    assert t.kind is Float
    assert t.to_data().to_list() == [1.0, 2.5]


def test_from_data_infers_int_from_int_lists():
    t = Tensor.from_data([[1, 2, 3]], CPU)
    assert t.kind is Int
    assert t.to_data().to_list() == [[1, 2, 3]]


def test_from_data_infers_bool_from_bool_lists():
    t = Tensor.from_data([True, False], CPU)
    assert t.kind is Bool
    assert t.to_data().to_list() == [True, False]


def test_from_data_keeps_a_numpy_arrays_dtype():
    t = Tensor.from_data(np.array([1.0, 2.0], dtype=np.float64), CPU)
    assert t.dtype() is DType.F64
    assert t.to_data().to_list() == [1.0, 2.0]
    assert Tensor.from_data(np.array([1, 2], dtype=np.int32), CPU).dtype() is DType.I32
    assert Tensor.from_data(np.array([True]), CPU).kind is Bool


def test_from_data_keeps_a_torch_tensors_dtype():
    t = Tensor.from_data(torch.tensor([1.0, 2.0], dtype=torch.float64), CPU)
    assert t.dtype() is DType.F64
    assert Tensor.from_data(torch.tensor([3, 4]), CPU).kind is Int
    assert Tensor.from_data(torch.tensor([True]), CPU).kind is Bool


def test_from_data_accepts_a_torch_tensor_that_requires_grad_and_drops_torch_autograd():
    src = torch.tensor([1.0, 2.0], requires_grad=True)
    t = Tensor.from_data(src, AD)
    assert t.to_torch().requires_grad is False
    assert t.to_torch().grad_fn is None
    assert t.to_data().to_list() == [1.0, 2.0]


def test_from_data_accepts_tensor_data():
    data = TensorData([1.0, 2.0, 3.0, 4.0], shape=[2, 2])
    t = Tensor.from_data(data, CPU)
    assert t.dims() == [2, 2]
    t.to_data().assert_eq(data)


def test_from_data_round_trips_to_data():
    t = Tensor.from_data([[1, 2], [3, 4]], CPU)
    assert Tensor.from_data(t.to_data(), CPU).to_data() == t.to_data()


def test_from_data_with_kind_converts():
    t = Tensor.from_data([1, 2], CPU, kind=Float)
    assert t.kind is Float and t.dtype() is DType.F32
    assert Tensor.from_data([1.9, -1.9], CPU, kind=Int).to_data().to_list() == [1, -1]


def test_from_data_with_dtype_converts():
    t = Tensor.from_data([1.0, 2.0], CPU, dtype=DType.F64)
    assert t.dtype() is DType.F64


def test_from_data_rejects_a_dtype_of_another_kind():
    with pytest.raises(TypeError, match="kind"):
        Tensor.from_data([1.0], CPU, kind=Float, dtype=DType.I64)


def test_from_data_copies_a_list_source():
    src = [1.0, 2.0]
    t = Tensor.from_data(src, CPU)
    src[0] = 100.0
    assert t.to_data().to_list() == [1.0, 2.0]


def test_from_data_copies_a_numpy_source():
    src = np.array([1.0, 2.0], dtype=np.float32)
    t = Tensor.from_data(src, CPU)
    src[0] = 100.0
    assert t.to_data().to_list() == [1.0, 2.0]


def test_from_data_copies_a_torch_source():
    src = torch.tensor([1.0, 2.0])
    t = Tensor.from_data(src, CPU)
    src[0] = 100.0
    assert t.to_data().to_list() == [1.0, 2.0]


def test_from_data_copies_a_tensor_data_source():
    src = TensorData([1.0, 2.0])
    t = Tensor.from_data(src, CPU)
    src.to_torch()[0] = 100.0
    assert t.to_data().to_list() == [1.0, 2.0]


def test_ragged_lists_raise_value_error():
    with pytest.raises(ValueError, match="ragged"):
        Tensor.from_data([[1.0, 2.0], [3.0]], CPU)


def test_non_numeric_lists_raise_type_error():
    with pytest.raises(TypeError):
        Tensor.from_data(["a", "b"], CPU)


def test_from_data_rejects_a_non_device():
    with pytest.raises(TypeError, match="Device"):
        Tensor.from_data([1.0], torch.device("cpu"))


def test_from_data_result_is_untracked_even_on_autodiff_device():
    t = Tensor.from_data([1.0], AD)
    assert t.is_autodiff() is True
    assert t.is_tracked() is False
    assert t.is_require_grad() is False


# ------------------------------------------------------------------ from_floats/ints/bools ----
def test_from_floats_fixes_the_float_kind():
    t = Tensor.from_floats([1, 2], CPU)
    assert t.kind is Float and t.dtype() is DType.F32
    assert t.to_data().to_list() == [1.0, 2.0]


def test_from_floats_accepts_a_dtype():
    assert Tensor.from_floats([1, 2], CPU, dtype=DType.F64).dtype() is DType.F64


def test_from_ints_fixes_the_int_kind():
    t = Tensor.from_ints([1.0, 2.0], CPU)
    assert t.kind is Int and t.dtype() is DType.I64
    assert t.to_data().to_list() == [1, 2]


def test_from_bools_fixes_the_bool_kind():
    t = Tensor.from_bools([1, 0, 2], CPU)
    assert t.kind is Bool
    assert t.to_data().to_list() == [True, False, True]


# ------------------------------------------------------------- zeros/ones/full/arange ----
def test_zeros_is_float_zeros_of_the_shape():
    t = Tensor.zeros([2, 3], CPU)
    assert t.kind is Float and t.dtype() is DType.F32
    assert t.to_data().to_list() == [[0.0] * 3] * 2


def test_ones_accepts_a_kind():
    t = Tensor.ones([2], CPU, kind=Int)
    assert t.kind is Int
    assert t.to_data().to_list() == [1, 1]
    assert Tensor.ones([2], CPU, kind=Bool).to_data().to_list() == [True, True]


def test_zeros_accepts_a_dtype():
    assert Tensor.zeros([1], CPU, dtype=DType.F64).dtype() is DType.F64


def test_full_fills_the_value():
    assert Tensor.full([2, 2], 2.5, CPU).to_data().to_list() == [[2.5, 2.5], [2.5, 2.5]]
    t = Tensor.full([3], 7, CPU, kind=Int)
    assert t.kind is Int and t.to_data().to_list() == [7, 7, 7]


def test_shape_accepts_a_shape_value():
    assert Tensor.zeros(Shape([2, 1]), CPU).dims() == [2, 1]


def test_negative_dims_raise_value_error():
    with pytest.raises(ValueError, match="non-negative"):
        Tensor.zeros([2, -1], CPU)


def test_arange_is_an_int_range_with_exclusive_end():
    t = Tensor.arange(2, 6, CPU)
    assert t.kind is Int
    assert t.to_data().to_list() == [2, 3, 4, 5]


def test_arange_accepts_a_step():
    assert Tensor.arange(0, 7, CPU, step=3).to_data().to_list() == [0, 3, 6]


# ----------------------------------------------------------------------------- random ----
def test_random_default_is_uniform_on_zero_one():
    AD.seed(0)
    t = Tensor.random([2000], Distribution.default(), CPU)
    v = t.to_data().to_numpy()
    assert t.kind is Float and t.dtype() is DType.F32
    assert v.min() >= 0.0 and v.max() < 1.0
    assert 0.4 < v.mean() < 0.6


def test_random_uniform_respects_bounds():
    v = Tensor.random([2000], Distribution.uniform(2.0, 3.0), CPU).to_data().to_numpy()
    assert v.min() >= 2.0 and v.max() < 3.0


def test_random_normal_has_requested_moments():
    CPU.seed(1)
    v = Tensor.random([20000], Distribution.normal(5.0, 2.0), CPU, dtype=DType.F64).to_data().to_numpy()
    assert abs(v.mean() - 5.0) < 0.1
    assert abs(v.std() - 2.0) < 0.1


def test_random_bernoulli_gives_zeros_and_ones():
    v = Tensor.random([500], Distribution.bernoulli(0.5), CPU).to_data().to_numpy()
    assert set(np.unique(v).tolist()) == {0.0, 1.0}


def test_random_bernoulli_extremes_are_deterministic():
    assert Tensor.random([4], Distribution.bernoulli(0.0), CPU).to_data().to_list() == [0.0] * 4
    assert Tensor.random([4], Distribution.bernoulli(1.0), CPU).to_data().to_list() == [1.0] * 4


def test_invalid_distributions_raise_value_error():
    with pytest.raises(ValueError):
        Distribution.uniform(1.0, 1.0)
    with pytest.raises(ValueError):
        Distribution.normal(0.0, -1.0)
    with pytest.raises(ValueError):
        Distribution.bernoulli(1.5)


def test_random_on_autodiff_device_is_an_untracked_autodiff_tensor():
    t = Tensor.random([3], Distribution.default(), CK)
    assert t.is_autodiff() is True
    assert t.gradient_checkpointing_strategy() is BALANCED
    assert t.is_tracked() is False


# ------------------------------------------------------------------------------ *_like ----
def test_zeros_like_and_ones_like_keep_shape_dtype_and_context():
    x = Tensor.from_data(np.array([[1.0, 2.0]], dtype=np.float64), CK).require_grad()
    z = x.zeros_like()
    o = x.ones_like()
    assert z.to_data().to_list() == [[0.0, 0.0]]
    assert o.to_data().to_list() == [[1.0, 1.0]]
    for t in (z, o):
        assert t.dtype() is DType.F64
        assert t.is_autodiff() is True
        assert t.gradient_checkpointing_strategy() is BALANCED
        assert t.is_tracked() is False


def test_ones_like_of_an_int_tensor_is_int():
    t = Tensor.from_data([5, 6], CPU).ones_like()
    assert t.kind is Int and t.to_data().to_list() == [1, 1]


def test_random_like_keeps_shape_dtype_and_context():
    x = Tensor.from_data(np.zeros((2, 3), dtype=np.float64), CK)
    r = x.random_like(Distribution.uniform(-1.0, 1.0))
    assert r.dims() == [2, 3]
    assert r.dtype() is DType.F64
    assert r.gradient_checkpointing_strategy() is BALANCED
    assert r.is_tracked() is False
    v = r.to_data().to_numpy()
    assert v.min() >= -1.0 and v.max() < 1.0


def test_random_like_of_an_int_tensor_raises_type_error():
    with pytest.raises(TypeError, match="Float"):
        Tensor.from_data([1], CPU).random_like(Distribution.default())


# -------------------------------------------------------------------------- TensorData ----
def test_tensor_data_shape_and_dtype():
    d = Tensor.from_data([[1.0, 2.0, 3.0]], CPU).to_data()
    assert d.shape == [1, 3]
    assert d.dtype is DType.F32


def test_tensor_data_to_list_is_nested_python_values():
    d = Tensor.from_data([[1, 2], [3, 4]], CPU).to_data()
    assert d.to_list() == [[1, 2], [3, 4]]
    assert type(d.to_list()[0][0]) is int


def test_tensor_data_to_numpy_keeps_dtype_and_values():
    a = Tensor.from_data(np.array([1.5, 2.5]), CPU).to_data().to_numpy()
    assert a.dtype == np.float64
    np.testing.assert_array_equal(a, [1.5, 2.5])


def test_tensor_data_to_numpy_is_a_copy():
    t = Tensor.from_data([1.0, 2.0], CPU)
    a = t.to_data().to_numpy()
    a[0] = 99.0
    assert t.to_data().to_list() == [1.0, 2.0]


def test_to_data_is_a_copy_of_the_storage():
    t = Tensor.from_data([1.0, 2.0], CPU)
    d = t.to_data()
    d.to_torch()[0] = 99.0
    assert t.to_data().to_list() == [1.0, 2.0]


def test_to_data_of_a_tracked_tensor_has_no_torch_autograd():
    x = Tensor.from_data([1.0], AD).require_grad()
    assert x.to_data().to_torch().requires_grad is False


def test_tensor_data_from_values_with_shape():
    d = TensorData([1, 2, 3, 4, 5, 6], shape=[2, 3])
    assert d.shape == [2, 3]
    assert d.to_list() == [[1, 2, 3], [4, 5, 6]]


def test_assert_eq_passes_on_equal_data():
    Tensor.from_data([1.0, 2.0], CPU).to_data().assert_eq(TensorData([1.0, 2.0]))


def test_assert_eq_fails_on_different_values():
    with pytest.raises(AssertionError, match="values differ"):
        Tensor.from_data([1.0, 2.0], CPU).to_data().assert_eq(TensorData([1.0, 3.0]))


def test_assert_eq_fails_on_different_shapes():
    with pytest.raises(AssertionError, match="shapes differ"):
        TensorData([1.0, 2.0]).assert_eq(TensorData([[1.0, 2.0]]))


def test_assert_eq_strict_fails_on_different_dtypes():
    with pytest.raises(AssertionError, match="dtypes differ"):
        TensorData([1.0, 2.0]).assert_eq(TensorData([1.0, 2.0], dtype=DType.F64), strict=True)


def test_assert_eq_non_strict_ignores_dtype():
    TensorData([1.0, 2.0]).assert_eq(TensorData([1.0, 2.0], dtype=DType.F64), strict=False)
    TensorData([1.0, 2.0]).assert_eq(TensorData([1, 2]), strict=False)


def test_assert_eq_non_strict_still_compares_values():
    with pytest.raises(AssertionError, match="values differ"):
        TensorData([1.0, 2.0]).assert_eq(TensorData([1, 3]), strict=False)


def test_assert_approx_eq_passes_within_tolerance():
    TensorData([1.0, 2.0]).assert_approx_eq(TensorData([1.0 + 1e-7, 2.0 - 1e-7]))
    TensorData([1.0]).assert_approx_eq(TensorData([1.05]), tolerance=0.1)


def test_assert_approx_eq_fails_outside_tolerance():
    with pytest.raises(AssertionError, match="tolerance"):
        TensorData([1.0, 2.0]).assert_approx_eq(TensorData([1.0, 2.1]), tolerance=1e-3)


def test_assert_approx_eq_fails_on_different_shapes():
    with pytest.raises(AssertionError, match="shapes differ"):
        TensorData([1.0, 2.0]).assert_approx_eq(TensorData([1.0]))


# ------------------------------------------------------------------------- into_scalar ----
def test_into_scalar_returns_a_python_float():
    v = Tensor.from_data([2.5], CPU).into_scalar()
    assert v == 2.5 and type(v) is float


def test_into_scalar_returns_a_python_int_and_bool():
    v = Tensor.from_data([[3]], CPU).into_scalar()
    assert v == 3 and type(v) is int
    assert Tensor.from_data([True], CPU).into_scalar() is True


def test_into_scalar_of_a_reduction():
    assert Tensor.from_data([1.0, 2.0, 3.0], CPU).sum().into_scalar() == 6.0


def test_into_scalar_with_more_than_one_element_raises_value_error_naming_the_shape():
    with pytest.raises(ValueError, match=r"\[2\]"):
        Tensor.from_data([1.0, 2.0], CPU).into_scalar()


# ---------------------------------------------------------------------------- to_torch ----
def test_to_torch_is_zero_copy():
    t = Tensor.from_data([1.0, 2.0], CPU)
    storage = t.to_torch()
    assert storage is t.to_torch()
    storage[0] = 9.0  # writes through: it is the tensor's own storage, not a copy
    assert t.to_data().to_list() == [9.0, 2.0]
    assert t.clone().to_torch().data_ptr() == storage.data_ptr()


def test_to_torch_shares_storage_with_derived_views():
    t = Tensor.from_data([1.0, 2.0], CPU)
    assert t.detach().to_torch().data_ptr() == t.to_torch().data_ptr()
    assert t.autodiff().to_torch().data_ptr() == t.to_torch().data_ptr()


def test_to_torch_of_a_tracked_tensor_does_not_require_grad():
    x = Tensor.from_data([1.0, 2.0], AD).require_grad()
    y = (x * 2.0).exp()
    for t in (x, y):
        assert t.to_torch().requires_grad is False
        assert t.to_torch().grad_fn is None


# -------------------------------------------------------------------------- inspection ----
def test_dims_shape_rank_and_num_elements():
    t = Tensor.zeros([2, 3, 4], CPU)
    assert t.dims() == [2, 3, 4]
    assert t.shape() == [2, 3, 4]
    assert t.shape() == Shape([2, 3, 4])
    assert t.rank() == 3
    assert t.num_elements() == 24


def test_device_of_a_tensor_carries_its_context():
    assert Tensor.zeros([1], CK).device() == CK
    assert Tensor.zeros([1], CPU).device() == CPU


def test_repr_shows_values_shape_dtype_device_and_the_three_autodiff_flags():
    x = Tensor.from_data([1.5, 2.5], AD).require_grad()
    r = repr(x)
    assert "1.5" in r and "2.5" in r
    assert "[2]" in r
    assert "F32" in r
    assert "cpu" in r
    assert "is_autodiff: True" in r
    assert "is_tracked: True" in r
    assert "is_require_grad: True" in r


def test_repr_of_a_plain_tensor_shows_false_flags():
    r = repr(Tensor.from_data([7], CPU))
    assert "7" in r and "I64" in r
    assert "is_autodiff: False" in r
    assert "is_tracked: False" in r
    assert "is_require_grad: False" in r


def test_repr_of_an_intermediate_is_tracked_but_not_require_grad():
    x = Tensor.from_data([1.0], AD).require_grad()
    r = repr(x * 2.0)
    assert "is_tracked: True" in r
    assert "is_require_grad: False" in r


def test_tensor_has_no_truth_value():
    with pytest.raises(TypeError):
        bool(Tensor.from_data([1.0], CPU))


# ------------------------------------------------------ context carried by every kind ----
@pytest.mark.parametrize("make", [
    lambda d: Tensor.from_data([1.0], d),
    lambda d: Tensor.from_data([1], d),
    lambda d: Tensor.from_data([True], d),
    lambda d: Tensor.from_floats([1], d),
    lambda d: Tensor.from_ints([1], d),
    lambda d: Tensor.from_bools([True], d),
    lambda d: Tensor.zeros([1], d),
    lambda d: Tensor.ones([1], d, kind=Int),
    lambda d: Tensor.full([1], True, d, kind=Bool),
    lambda d: Tensor.arange(0, 3, d),
    lambda d: Tensor.random([1], Distribution.default(), d),
], ids=["from_data_float", "from_data_int", "from_data_bool", "from_floats", "from_ints",
        "from_bools", "zeros", "ones_int", "full_bool", "arange", "random"])
def test_tensor_created_on_an_autodiff_device_carries_its_context_whatever_its_kind(make):
    t = make(CK)
    assert t.is_autodiff() is True
    assert t.gradient_checkpointing_strategy() is BALANCED
    assert t.device() == CK
    assert t.is_tracked() is False
    assert make(CPU).is_autodiff() is False
    assert make(CPU).gradient_checkpointing_strategy() is None


def test_from_floats_with_f64_dtype_keeps_full_precision():
    t = Tensor.from_floats([0.9, 0.1], Device.cpu(), dtype=DType.F64)
    assert t.to_data().to_list() == [0.9, 0.1]
