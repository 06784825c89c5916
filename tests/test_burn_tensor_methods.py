"""Burn's tensor methods that are compositions of op-table entries (``methods/rearrange.py``,
``methods/aggregate.py``, ``fmod``): each against a torch reference with the op-spec checks
(forward, gradients against torch autograd and a float64 finite difference, BALANCED bit-equal
to DISABLED), then the Burn semantics where Burn and torch part ways."""
from __future__ import annotations

import zlib

import pytest
import torch
import torch.nn.functional as tf

from burn_torch import PadMode, Tensor
from helpers import AD
from spec import F, I, NZ, Row, check

S = (2, 3, 4)


def _keep(fn, dims):
    def ref(x):
        for d in dims:
            x = fn(x, d)
        return x
    return ref


COMPOSED = [
    Row("t", lambda x: x.t(), lambda x: x.transpose(-2, -1), (F(*S),)),
    Row("unsqueeze_dims", lambda x: x.unsqueeze_dims([0, -1, -1]),
        lambda x: x.reshape(1, 2, 3, 4, 1, 1), (F(*S),)),
    Row("unsqueeze_dims", lambda x: x.unsqueeze_dims([1, 1, 4]), lambda x: x.reshape(2, 1, 1, 3, 1, 4),
        (F(*S),), variant="repeated axis"),
    Row("iter_dim", lambda x: list(x.iter_dim(1)), lambda x: list(torch.split(x, 1, 1)), (F(*S),)),
    Row("split_with_sizes", lambda x: x.split_with_sizes([1, 0, 3], 2),
        lambda x: list(torch.split(x, [1, 3], 2)), (F(*S),)),
    Row("roll_dim", lambda x: x.roll_dim(1, 2), lambda x: torch.roll(x, -1, 2), (F(*S),)),
    Row("roll_dim", lambda x: x.roll_dim(-5, -1), lambda x: torch.roll(x, 5, -1), (F(*S),),
        variant="negative, wrapping"),
    Row("roll", lambda x: x.roll([1, -1, 3], [0, 2, 2]), lambda x: torch.roll(x, (-1, -2), (0, 2)),
        (F(*S),)),
    Row("take", lambda x, i: x.take(1, i), lambda x, i: x[:, i], (F(*S), I(2, 2, lo=0, hi=2))),
    Row("take", lambda x, i: x.take(-1, i), lambda x, i: x[..., i], (F(*S), I(5, lo=0, hi=3)),
        variant="repeated indices"),
    Row("pad", lambda x: x.pad((1, 2, 0, 1), 0.5), lambda x: tf.pad(x, (1, 2, 0, 1), value=0.5),
        (F(*S),)),
    Row("pad", lambda x: x.pad([(1, 0), (0, 0), (2, 1)]), lambda x: tf.pad(x, (2, 1, 0, 0, 1, 0)),
        (F(*S),), variant="pairs"),
    Row("pad", lambda x: x.pad((3, 1, 2, 1), PadMode.REFLECT),
        lambda x: tf.pad(x, (3, 1, 2, 1), mode="reflect"), (F(*S),), variant="reflect"),
    Row("pad", lambda x: x.pad((2, 1, 1, 3), PadMode.EDGE),
        lambda x: tf.pad(x, (2, 1, 1, 3), mode="replicate"), (F(*S),), variant="edge"),
    Row("sum_dims", lambda x: x.sum_dims([0, -1]), lambda x: x.sum((0, 2), keepdim=True), (F(*S),)),
    Row("mean_dims", lambda x: x.mean_dims([2, 0]), lambda x: x.mean((0, 2), keepdim=True), (F(*S),)),
    Row("prod_dims", lambda x: x.prod_dims([1]), lambda x: x.prod(1, keepdim=True), (NZ(*S),)),
    Row("max_dims", lambda x: x.max_dims([0, 2]),
        _keep(lambda x, d: x.max(d, keepdim=True).values, (0, 2)), (F(*S),)),
    Row("min_dims", lambda x: x.min_dims([1, 2]),
        _keep(lambda x, d: x.min(d, keepdim=True).values, (1, 2)), (F(*S),)),
    Row("sum_dims_squeeze", lambda x: x.sum_dims_squeeze([0, 2]), lambda x: x.sum((0, 2)), (F(*S),)),
    Row("max_abs", lambda x: x.max_abs(), lambda x: x.abs().max().reshape(1), (NZ(*S),)),
    Row("max_abs_dim", lambda x: x.max_abs_dim(1), lambda x: x.abs().max(1, keepdim=True).values,
        (NZ(*S),)),
    Row("max_abs_dims", lambda x: x.max_abs_dims([1, 0]),
        _keep(lambda x, d: x.abs().max(d, keepdim=True).values, (1, 0)), (NZ(*S),)),
    Row("max_pair", lambda x, y: x.max_pair(y), torch.maximum, (F(*S), F(*S)), broadcast=(0, 1)),
    Row("min_pair", lambda x, y: x.min_pair(y), torch.minimum, (F(*S), F(*S)), broadcast=(0, 1)),
    Row("argtopk", lambda x: x.argtopk(2, 1), lambda x: torch.topk(x, 2, 1).indices, (F(*S),)),
    Row("dot", lambda x, y: x.dot(y), lambda x, y: torch.dot(x, y).reshape(1), (F(5), F(5))),
    Row("cov", lambda x: x.cov(1, 1), lambda x: torch.cov(x, correction=1), (F(3, 6),)),
    Row("cov", lambda x: x.cov(0, 0), lambda x: torch.cov(x.T, correction=0), (F(5, 2),),
        variant="observations in dim 0, population"),
    Row("fmod", lambda x, y: x.fmod(y), torch.fmod, (F(*S, lo=-4, hi=4), NZ(*S)), broadcast=(0, 1),
        numeric=False),
    Row("fmod_scalar", lambda x: x.fmod_scalar(-0.75), lambda x: torch.fmod(x, -0.75),
        (F(*S, lo=-4, hi=4),), numeric=False),
]
CASES = [(row, case_id, args) for row in COMPOSED for case_id, args in row.cases()]
NOT_DIFFERENTIABLE = {"argtopk"}


@pytest.mark.parametrize("row,case_id,args", CASES, ids=[f"{r.id}-{c}" for r, c, _ in CASES])
def test_composed_method_matches_torch_in_value_and_gradient(row, case_id, args):
    check(row, args, zlib.crc32(f"{row.id}-{case_id}".encode()), row.op not in NOT_DIFFERENTIABLE)


def ints(values):
    return Tensor.from_data(values, AD)


def floats(values):
    return Tensor.from_data(torch.tensor(values, dtype=torch.float64), AD)


# ================================================================== Burn's own expectations ====
def test_roll_dim_rolls_towards_lower_indices_as_burns_tests():
    x = ints([[0, 1, 2], [3, 4, 5]])
    assert x.roll_dim(1, 0).to_torch().tolist() == [[3, 4, 5], [0, 1, 2]]
    assert x.roll_dim(-1, 1).to_torch().tolist() == [[2, 0, 1], [5, 3, 4]]
    assert x.roll([1, -1], [0, 1]).to_torch().tolist() == [[5, 3, 4], [2, 0, 1]]
    assert x.roll([2 * 32 + 1, 3 * (-400) - 1], [0, 1]).to_torch().tolist() == [[5, 3, 4], [2, 0, 1]]


def test_roll_needs_one_shift_per_dim():
    with pytest.raises(ValueError):
        ints([[0, 1, 2]]).roll([1, 2], [0])
    with pytest.raises(IndexError):
        ints([[0, 1, 2]]).roll([1], [2])


def test_unsqueeze_dims_counts_each_further_negative_axis_one_place_earlier():
    x = Tensor.ones([3, 4, 5], AD)
    assert x.unsqueeze_dims([0, -1, -1]).dims() == [1, 3, 4, 5, 1, 1]
    assert x.unsqueeze_dims([0, 3, -1, -5]).dims() == [1, 1, 3, 1, 4, 5, 1]
    with pytest.raises(IndexError):
        x.unsqueeze_dims([4])


def test_split_with_sizes_rejects_sizes_that_do_not_sum_to_the_dim():
    with pytest.raises(ValueError):
        Tensor.ones([2, 5], AD).split_with_sizes([2, 2], 1)


def test_take_keeps_the_index_shape_in_place_of_the_dim():
    x = Tensor.from_data(torch.arange(24).reshape(2, 3, 4), AD)
    idx = ints([[0, 2], [1, 1], [2, 0]])
    assert x.take(1, idx).dims() == [2, 3, 2, 4]
    assert torch.equal(x.take(1, idx).to_torch(), torch.arange(24).reshape(2, 3, 4)[:, idx.to_torch()])


def test_pad_reflect_needs_pads_smaller_than_the_dim():
    with pytest.raises(ValueError):
        Tensor.ones([2, 3], AD).pad((3, 0, 0, 0), PadMode.REFLECT)


def test_pad_keeps_the_int_kind_and_rejects_bool():
    padded = ints([[1, 2]]).pad((1, 1, 0, 0), 7)
    assert padded.to_torch().tolist() == [[7, 1, 2, 7]]
    assert ints([[1, 2]]).pad((0, 1, 1, 0)).to_torch().tolist() == [[0, 0, 0], [1, 2, 0]]
    with pytest.raises(TypeError):
        Tensor.from_bools([[True]], AD).pad((1, 1, 0, 0))


def test_pad_rejects_a_flat_padding_of_other_than_four_ints():
    with pytest.raises(TypeError):
        Tensor.ones([2, 3], AD).pad((1, 2))


def test_max_pair_gives_ties_and_their_gradient_to_self():
    x, y = floats([1.0, 2.0, 3.0]).require_grad(), floats([1.0, 5.0, 0.0]).require_grad()
    grads = x.max_pair(y).sum().backward()
    assert x.grad(grads).to_torch().tolist() == [1.0, 0.0, 1.0]
    assert y.grad(grads).to_torch().tolist() == [0.0, 1.0, 0.0]


def test_min_pair_keeps_self_where_other_is_nan():
    out = floats([1.0, 2.0]).min_pair(floats([float("nan"), 0.5]))
    assert out.to_torch().tolist() == [1.0, 0.5]


def test_max_abs_of_an_int_tensor():
    assert ints([[3, -7], [2, 5]]).max_abs().to_torch().tolist() == [7]


def test_argtopk_needs_k_smaller_than_the_dim_as_burn():
    with pytest.raises(ValueError):
        floats([[1.0, 2.0, 3.0]]).argtopk(3, 1)


def test_dot_needs_two_vectors_of_the_same_length():
    with pytest.raises(ValueError):
        floats([[1.0, 2.0]]).dot(floats([[1.0, 2.0]]))


def test_fmod_by_an_infinite_divisor_returns_the_dividend():
    x = floats([1.5, -2.5])
    assert x.fmod(floats([float("inf"), float("-inf")])).to_torch().tolist() == [1.5, -2.5]
    assert x.fmod_scalar(float("inf")).to_torch().tolist() == [1.5, -2.5]


def test_fmod_needs_float_tensors():
    with pytest.raises(TypeError):
        ints([3]).fmod(ints([2]))
