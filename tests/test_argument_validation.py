"""Bad arguments at the public boundary raise the documented exception type (TypeError wrong
type, ValueError bad value, IndexError out of range; see ``burn_torch.validate``) with a
message naming the op, before anything is recorded; foreign operands (numpy arrays, torch
tensors) raise TypeError telling how to convert them, from either side of an operator."""
from __future__ import annotations

import numpy as np
import pytest
import torch

from burn_torch import Device, Distribution, Tensor, nn
from burn_torch.autodiff.graph import new_leaf

CPU = Device.cpu()
AD = CPU.autodiff()
X = Tensor.from_data(np.arange(12, dtype=np.float32).reshape(3, 4), AD).require_grad()
IDS = Tensor.from_ints([0, 2], CPU)

# (call, expected type, fragment naming the op, fragment naming what was received)
BAD = [
    (lambda: X.sum_dim(None), TypeError, "sum_dim", "None"),
    (lambda: X.sum_dim(1.5), TypeError, "sum_dim", "1.5"),
    (lambda: X.sum_dim(True), TypeError, "sum_dim", "True"),
    (lambda: X.sum_dim("0"), TypeError, "sum_dim", "'0'"),
    (lambda: X.sum_dim(2), IndexError, "sum_dim", "dimension 2"),
    (lambda: X.mean_dim(-3), IndexError, "mean_dim", "dimension -3"),
    (lambda: X.flip([1.5]), TypeError, "flip", "1.5"),
    (lambda: X.flip(1), TypeError, "flip", "int"),
    (lambda: X.flip([2]), IndexError, "flip", "dimension 2"),
    (lambda: X.swap_dims(0, 1.0), TypeError, "swap_dims", "1.0"),
    (lambda: X.argmax(None), TypeError, "argmax", "None"),
    (lambda: X.cumsum(4), IndexError, "cumsum", "dimension 4"),
    (lambda: X.squeeze_dims([0.0]), TypeError, "squeeze_dims", "0.0"),
    (lambda: X.unsqueeze_dim(3), IndexError, "unsqueeze_dim", "dimension 3"),
    (lambda: X.unsqueeze_dim(1.0), TypeError, "unsqueeze_dim", "1.0"),
    (lambda: X.unsqueeze(2.0), TypeError, "unsqueeze", "2.0"),
    (lambda: X.reshape([3.5, 2]), TypeError, "reshape", "3.5"),
    (lambda: X.reshape([-2, 6]), ValueError, "reshape", "-2"),
    (lambda: X.reshape([-1, -1]), ValueError, "reshape", "-1"),
    (lambda: X.reshape([2, 0, 0]), ValueError, "reshape", "dims[2] is 0"),
    (lambda: X.expand([3.0, 4]), TypeError, "expand", "3.0"),
    (lambda: X.narrow(0, 0.5, 1), TypeError, "narrow", "0.5"),
    (lambda: X.split(1.5, 0), TypeError, "split", "1.5"),
    (lambda: X.chunk(0, 0), ValueError, "chunk", "0"),
    (lambda: X.chunk(2.0, 0), TypeError, "chunk", "2.0"),
    (lambda: X.repeat([2.0]), TypeError, "repeat", "2.0"),
    (lambda: X.repeat_dim(0, 1.5), TypeError, "repeat_dim", "1.5"),
    (lambda: X.unfold(0, 2.0, 1), TypeError, "unfold", "2.0"),
    (lambda: X.permute([0, 1.0]), TypeError, "permute", "1.0"),
    (lambda: Tensor.stack([X, X], 3), IndexError, "stack", "dimension 3"),
    (lambda: Tensor.cat([X, X], 2.0), TypeError, "cat", "2.0"),
    (lambda: X.powf_scalar("2"), TypeError, "powf_scalar", "'2'"),
    (lambda: X.powf_scalar(None), TypeError, "powf_scalar", "None"),
    (lambda: X.powi_scalar(2.0), TypeError, "powi_scalar", "2.0"),
    (lambda: X.add_scalar("1"), TypeError, "add_scalar", "str"),
    (lambda: X.clamp("0", 1), TypeError, "clamp", "'0'"),
    (lambda: X.clamp(2, 1), ValueError, "clamp", "2"),
    (lambda: X.clamp_min(None), TypeError, "clamp_min", "None"),
    (lambda: X.clamp_max("1"), TypeError, "clamp_max", "'1'"),
    (lambda: X.mask_fill(X.greater_elem(1.0), "x"), TypeError, "mask_fill", "'x'"),
    (lambda: X.select(0, [0, 3]), IndexError, "select", "index 3"),
    (lambda: X.select(1, [-1]), IndexError, "select", "index -1"),
    (lambda: X.gather(1, [[0], [4], [1]]), IndexError, "gather", "index 4"),
    (lambda: X.select(2, [0]), IndexError, "select", "dimension 2"),
    (lambda: X.topk(1.0, 0), TypeError, "topk", "float"),
    (lambda: Tensor.from_ints([1, 2], CPU).one_hot(3.0), TypeError, "one_hot", "3.0"),
    (lambda: Tensor.zeros([2.5], CPU), TypeError, "zeros", "2.5"),
    (lambda: Tensor.ones([2, -1], CPU), ValueError, "ones", "-1"),
    (lambda: Tensor.full([2], "x", CPU), TypeError, "full", "'x'"),
    (lambda: Tensor.full(2, 0.0, CPU), TypeError, "full", "int"),
    (lambda: Tensor.random([1.5], Distribution.default(), CPU),
     TypeError, "random", "1.5"),
    (lambda: Tensor.arange(0, 4.0, CPU), TypeError, "arange", "4.0"),
    (lambda: Tensor.arange(0, 4, CPU, 0), ValueError, "arange", "step"),
    (lambda: X.full_like("1"), TypeError, "full_like", "'1'"),
    (lambda: X.grad(None), TypeError, "grad", "NoneType"),
    (lambda: X.grad_remove({}), TypeError, "grad_remove", "dict"),
    (lambda: X.grad_replace(None, X.without_autodiff()), TypeError, "grad_replace", "NoneType"),
    (lambda: nn.LinearConfig(0, 2).init(CPU), ValueError, "LinearConfig.init", "d_input"),
    (lambda: nn.LinearConfig(2, 2.0).init(CPU), TypeError, "LinearConfig.init", "d_output"),
    (lambda: nn.EmbeddingConfig(0, 2).init(CPU), ValueError, "EmbeddingConfig.init", "n_embedding"),
    (lambda: nn.Conv1dConfig(0, 2, 3).init(CPU), ValueError, "Conv1dConfig.init", "channels_in"),
    (lambda: nn.Conv2dConfig([1, 2], [0, 3]).init(CPU), ValueError, "Conv2dConfig.init", "kernel_size"),
    (lambda: nn.LayerNormConfig(0).init(CPU), ValueError, "LayerNormConfig.init", "d_model"),
    (lambda: nn.BatchNormConfig(0).init(CPU), ValueError, "BatchNormConfig.init", "num_features"),
    (lambda: nn.GroupNormConfig(0, 4).init(CPU), ValueError, "GroupNormConfig.init", "num_groups"),
    (lambda: nn.LstmConfig(2, 0, True).init(CPU), ValueError, "LstmConfig.init", "d_hidden"),
    (lambda: nn.MultiHeadAttentionConfig(8, 0).init(CPU), ValueError, "MultiHeadAttentionConfig.init", "n_heads"),
    (lambda: nn.DropoutConfig("0.5").init(), TypeError, "DropoutConfig.init", "'0.5'"),
    (lambda: nn.DropoutConfig(1.5).init(), ValueError, "DropoutConfig.init", "1.5"),
    (lambda: nn.MaxPool2dConfig([0, 2]).init(), ValueError, "MaxPool2dConfig.init", "kernel_size"),
    (lambda: nn.Conv2dConfig([1, 2], [3, 3]).init(CPU).forward(Tensor.ones([4, 4], CPU)), ValueError,
     "Conv2d", "[batch, 1, height, width]"),
    (lambda: nn.Conv1dConfig(1, 2, 3).init(CPU).forward(Tensor.ones([4, 4], CPU)), ValueError,
     "Conv1d", "[batch, 1, length]"),
    (lambda: nn.EmbeddingConfig(4, 2).init(CPU).forward(Tensor.from_ints([[1, 4]], CPU)), IndexError,
     "embedding", "index 4"),
]


@pytest.mark.parametrize("case", range(len(BAD)))
def test_a_bad_argument_raises_the_documented_type_naming_the_op_and_the_value(case):
    call, error, op, received = BAD[case]
    before = new_leaf((1,), torch.float32).id
    with pytest.raises(error) as info:
        call()
    assert type(info.value) is error or (error is ValueError and isinstance(info.value, ValueError))
    message = str(info.value)
    assert op in message, f"{op!r} not in {message!r}"
    assert received in message, f"{received!r} not in {message!r}"
    assert new_leaf((1,), torch.float32).id == before + 1, "a node was recorded before the error"


def test_the_bad_argument_catalogue_is_as_large_as_reported():
    assert len(BAD) == 73


def test_an_index_error_names_op_dim_index_and_size():
    with pytest.raises(IndexError, match=r"select: index 3 is out of range for dim 0 of size 3"):
        X.select(0, [0, 3])


def test_grad_none_says_what_to_pass():
    with pytest.raises(TypeError, match=r"expected the Gradients container returned by backward\(\)"):
        X.grad(None)


# ----------------------------------------------------------------------- valid arguments ----
def test_integer_scalars_of_numpy_and_negative_dims_are_accepted():
    assert X.sum_dim(np.int64(1)).dims() == [3, 1]
    assert X.sum_dim(-1).dims() == [3, 1]
    assert X.flip([-1]).dims() == [3, 4]


def test_reshape_follows_burn_signed_arguments():
    assert X.reshape([0, -1]).dims() == [3, 4]   # 0 keeps dim 0, -1 is inferred
    assert X.reshape([2, -1]).dims() == [2, 6]
    assert X.reshape([0, 2, 2]).dims() == [3, 2, 2]


def test_selecting_in_range_indices_still_works():
    assert X.select(1, IDS).dims() == [3, 2]


# -------------------------------------------------------------------- foreign operands ----
FOREIGN = {"numpy array": lambda: np.ones((3, 4), dtype=np.float32),
           "torch tensor": lambda: torch.ones(3, 4)}
OPERATORS = {
    "+": (lambda a, b: a + b, lambda a, b: b + a),
    "-": (lambda a, b: a - b, lambda a, b: b - a),
    "*": (lambda a, b: a * b, lambda a, b: b * a),
    "/": (lambda a, b: a / b, lambda a, b: b / a),
    "%": (lambda a, b: a % b, lambda a, b: b % a),
    "@": (lambda a, b: a @ b.T, lambda a, b: b.T @ a),
}


@pytest.mark.parametrize("side", [0, 1], ids=["tensor-left", "tensor-right"])
@pytest.mark.parametrize("symbol", sorted(OPERATORS))
@pytest.mark.parametrize("kind", sorted(FOREIGN))
def test_a_foreign_operand_raises_type_error_saying_how_to_convert(kind, symbol, side):
    a = Tensor.ones([3, 4], CPU)
    with pytest.raises(TypeError, match=r"convert it first with Tensor.from_data\(x, device\)"):
        OPERATORS[symbol][side](a, FOREIGN[kind]())


def test_numpy_scalars_still_combine_with_tensors():
    a = Tensor.ones([2], CPU)
    assert (a + np.float32(1.0)).to_data().to_list() == [2.0, 2.0]
    assert (np.float64(2.0) * a).to_data().to_list() == [2.0, 2.0]


def test_a_method_given_a_numpy_array_says_how_to_convert():
    with pytest.raises(TypeError, match=r"add: cannot combine a burn_torch Tensor with a numpy.ndarray"):
        Tensor.ones([2], CPU).add(np.ones(2))
