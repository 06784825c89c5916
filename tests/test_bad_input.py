"""Bad input meets a clear error, raised before anything is created or changed: Burn's names
where a kind or a distribution is expected, integers a dtype cannot hold, and inputs whose
float dtype differs from a layer's."""
from __future__ import annotations

import numpy as np
import pytest
import torch

from burn_torch import Bool, Device, Distribution, DType, Float, Int, Tensor, nn

CPU = Device.cpu()


@pytest.mark.parametrize("name, kind", [("float", Float), ("Float", Float), ("int", Int),
                                        ("INT", Int), ("bool", Bool)])
def test_a_kind_may_be_given_by_burns_name(name, kind):
    assert Tensor.zeros([2], CPU, name).kind is kind
    assert Tensor.full([2], 1, CPU, name).kind is kind
    assert Tensor.from_data([1, 0], CPU, name).kind is kind


@pytest.mark.parametrize("kind", ["floats", "f32", 3, None.__class__])
def test_an_unknown_kind_is_a_type_error_listing_the_kinds(kind):
    with pytest.raises(TypeError, match=r"burn_torch\.Float, burn_torch\.Int or burn_torch\.Bool "
                                        r"\(or the name 'Float', 'Int' or 'Bool'\)"):
        Tensor.zeros([2], CPU, kind)


def test_the_default_distribution_may_be_given_by_name():
    CPU.seed(3)
    named = Tensor.random([4], "default", CPU).to_torch()
    CPU.seed(3)
    assert torch.equal(named, Tensor.random([4], Distribution.default(), CPU).to_torch())


@pytest.mark.parametrize("call", [lambda: Tensor.random([2], "normal", CPU),
                                  lambda: Tensor.ones([2], CPU).random_like("uniform"),
                                  lambda: Tensor.random([2], 0.5, CPU)],
                         ids=["random", "random_like", "a number"])
def test_a_distribution_that_is_not_one_is_a_type_error_listing_burns(call):
    with pytest.raises(TypeError, match=r"Distribution\.uniform\(low, high\), Distribution\.normal"
                                        r"\(mean, std\), Distribution\.bernoulli\(p\)"):
        call()


@pytest.mark.parametrize("data", [[2 ** 70], [[1, 2], [3, 2 ** 70]], [2 ** 63], [-2 ** 63 - 1]],
                         ids=["2**70", "nested", "2**63", "-2**63-1"])
def test_an_integer_beyond_int64_names_the_value_and_the_range(data):
    flat = np.array(data, dtype=object).ravel()
    bad = next(v for v in flat if not -2 ** 63 <= v < 2 ** 63)
    with pytest.raises(ValueError, match=rf"the integer {bad} is out of the range of int64 "
                                         r"\(-9223372036854775808\.\.9223372036854775807\)"):
        Tensor.from_data(data, CPU)


def test_an_integer_the_asked_dtype_cannot_hold_is_a_value_error():
    with pytest.raises(ValueError, match=r"the integer 300 is out of the range of uint8 \(0\.\.255\)"):
        Tensor.from_data([1, 300], CPU, dtype=DType.U8)
    with pytest.raises(ValueError, match=r"the integer -1 is out of the range of uint8"):
        Tensor.from_data(np.array([-1, 2]), CPU, dtype=DType.U8)


def test_a_huge_integer_asked_for_as_a_float_converts():
    t = Tensor.from_data([2 ** 70, 1], CPU, dtype=DType.F64)
    assert t.to_torch().tolist() == [float(2 ** 70), 1.0]


def test_ragged_data_still_says_ragged():
    with pytest.raises(ValueError, match="ragged"):
        Tensor.from_data([[1, 2], [3]], CPU)


@pytest.mark.parametrize("layer, shape", [
    (lambda: nn.LinearConfig(3, 4).init(CPU), [2, 3]),
    (lambda: nn.Conv1dConfig(3, 4, 1).init(CPU), [1, 3, 5]),
    (lambda: nn.LayerNormConfig(3).init(CPU), [2, 3])], ids=["Linear", "Conv1d", "LayerNorm"])
def test_a_float64_input_to_a_float32_layer_names_both_dtypes_and_the_cast(layer, shape):
    module = layer()
    x = Tensor.from_data(torch.ones(shape, dtype=torch.float64), CPU)
    with pytest.raises(ValueError, match=r"different float dtypes \(x float64, \w+ float32.*cast x "
                                         r"with \.cast\(DType\.F32\)"):
        module.forward(x)
    assert module.forward(x.cast(DType.F32)).dtype() is DType.F32  # the cast it names works
