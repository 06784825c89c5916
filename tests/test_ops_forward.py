"""Forward semantics of the non-differentiable ops and Burn-specific shapes and kinds.

Comparisons give Bool tensors, argmax/argmin give Int with the dim kept, Int arithmetic is
integer arithmetic as in Rust (division truncates toward zero, remainder takes the divisor's
sign), Int/Bool tensors are never tracked, reductions have Burn's shapes, and shape/kind errors
raise ValueError/IndexError/TypeError with the shapes in the message.
"""
from __future__ import annotations

import operator

import numpy as np
import pytest
import torch
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from burn_torch import Bool, DType, Float, Int, Tensor
from helpers import AD, CPU

SETTINGS = settings(deadline=None, max_examples=25,
                    suppress_health_check=[HealthCheck.too_slow])
seeds = st.integers(0, 2**32 - 1)


def shapes(min_rank=1, max_rank=4):
    return st.lists(st.integers(1, 5), min_size=min_rank, max_size=max_rank).map(tuple)


def values(t: Tensor):
    return t.to_data().to_list()


def tracked_float(arr) -> Tensor:
    return Tensor.from_data(np.asarray(arr, dtype=np.float64), AD).require_grad()


# =============================================================================================
# Comparisons: Bool results, never tracked, autodiff association kept
# =============================================================================================
COMPARISONS = {
    "equal": torch.eq, "not_equal": torch.ne, "greater": torch.gt,
    "greater_equal": torch.ge, "lower": torch.lt, "lower_equal": torch.le,
}


@pytest.mark.parametrize("name", sorted(COMPARISONS))
@SETTINGS
@given(shape=shapes(), seed=seeds, kind=st.sampled_from(["float", "int"]))
def test_comparisons(name, shape, seed, kind):
    rng = np.random.default_rng(seed)
    # small integer-valued data so equal/greater_equal see ties
    a = rng.integers(-2, 3, shape)
    b = rng.integers(-2, 3, shape)
    if kind == "float":
        x, y = tracked_float(a), Tensor.from_data(b.astype(np.float64), AD)
    else:
        x, y = Tensor.from_ints(a, AD), Tensor.from_ints(b, AD)
    ref = COMPARISONS[name](torch.from_numpy(a), torch.from_numpy(b))
    for out in (getattr(x, name)(y), getattr(x, name + "_elem")(1)):
        assert out.kind is Bool and out.dtype() is DType.BOOL
        assert out.dims() == list(shape)
        assert not out.is_tracked() and out.is_autodiff()
    assert torch.equal(getattr(x, name)(y).to_torch(), ref)
    assert torch.equal(getattr(x, name + "_elem")(1).to_torch(),
                       COMPARISONS[name](torch.from_numpy(a), 1))


def test_comparison_elem_with_float_value():
    x = Tensor.from_floats([0.5, 1.5, 2.5], CPU)
    assert values(x.greater_elem(1.5)) == [False, False, True]
    assert values(x.greater_equal_elem(1.5)) == [False, True, True]
    assert values(x.lower_elem(1.5)) == [True, False, False]
    assert values(x.equal_elem(2.5)) == [False, False, True]


def test_comparison_kind_mismatch_raises_type_error():
    x = Tensor.from_floats([1.0, 2.0], AD)
    i = Tensor.from_ints([1, 2], AD)
    for name in COMPARISONS:
        with pytest.raises(TypeError):
            getattr(x, name)(i)


# =============================================================================================
# argmax / argmin / max_dim_with_indices
# =============================================================================================
@SETTINGS
@given(shape=shapes(), seed=seeds, data=st.data(), kind=st.sampled_from(["float", "int"]))
def test_argmax_argmin(shape, seed, data, kind):
    rng = np.random.default_rng(seed)
    rank = len(shape)
    dim = data.draw(st.integers(-rank, rank - 1))
    n = int(np.prod(shape))
    arr = rng.permutation(n).reshape(shape)  # distinct: no ties
    x = tracked_float(arr * 0.5) if kind == "float" else Tensor.from_ints(arr, AD)
    ref = torch.from_numpy(arr)
    for name, f in (("argmax", torch.argmax), ("argmin", torch.argmin)):
        out = getattr(x, name)(dim)
        expect_dims = list(shape)
        expect_dims[dim] = 1
        assert out.kind is Int and out.dims() == expect_dims
        assert not out.is_tracked()
        assert torch.equal(out.to_torch(), f(ref, dim, keepdim=True))


@pytest.mark.parametrize("which", ["max", "min"])
def test_max_min_dim_with_indices(which):
    x = tracked_float([[1.0, 5.0, 3.0], [4.0, -2.0, 6.0]])
    vals, idx = getattr(x, which + "_dim_with_indices")(1)
    assert vals.dims() == [2, 1] and idx.dims() == [2, 1]
    assert vals.kind is Float and idx.kind is Int
    assert vals.is_tracked() and not idx.is_tracked()
    if which == "max":
        assert values(vals) == [[5.0], [6.0]] and values(idx) == [[1], [2]]
    else:
        assert values(vals) == [[1.0], [-2.0]] and values(idx) == [[0], [1]]
    g = vals.sum().backward()
    expect = [[0.0, 1.0, 0.0], [0.0, 0.0, 1.0]] if which == "max" else [[1.0, 0.0, 0.0], [0.0, 1.0, 0.0]]
    assert values(x.grad(g)) == expect
    # max_dim / min_dim are the values alone
    assert values(getattr(x, which + "_dim")(0)) == ([[4.0, 5.0, 6.0]] if which == "max" else [[1.0, -2.0, 3.0]])


def test_max_dim_on_int():
    x = Tensor.from_ints([[1, 7, 3], [9, 2, 4]], AD)
    vals, idx = x.max_dim_with_indices(0)
    assert vals.kind is Int and values(vals) == [[9, 7, 4]] and values(idx) == [[1, 0, 1]]
    assert not vals.is_tracked()


# =============================================================================================
# Int arithmetic: Rust integer semantics
# =============================================================================================
def rust_div(a: int, b: int) -> int:
    """Rust's `/` on integers: truncates toward zero."""
    q = abs(a) // abs(b)
    return q if (a >= 0) == (b > 0) else -q


def rem_divisor_sign(a: int, b: int) -> int:
    """Remainder with the sign of the divisor (Burn's/torch's remainder, Python's %)."""
    return a % b


@SETTINGS
@given(shape=shapes(), seed=seeds)
def test_int_arithmetic(shape, seed):
    rng = np.random.default_rng(seed)
    a = rng.integers(-20, 21, shape)
    b = rng.integers(1, 7, shape) * rng.choice([-1, 1], shape)
    x, y = Tensor.from_ints(a, AD), Tensor.from_ints(b, AD)
    fa, fb = a.ravel().tolist(), b.ravel().tolist()
    cases = {
        "add": (x.add(y), x + y, [p + q for p, q in zip(fa, fb)]),
        "sub": (x.sub(y), x - y, [p - q for p, q in zip(fa, fb)]),
        "mul": (x.mul(y), x * y, [p * q for p, q in zip(fa, fb)]),
        "div": (x.div(y), x / y, [rust_div(p, q) for p, q in zip(fa, fb)]),
        "remainder": (x.remainder(y), x % y, [rem_divisor_sign(p, q) for p, q in zip(fa, fb)]),
    }
    for name, (method, op, expect) in cases.items():
        for out in (method, op):
            assert out.kind is Int, name
            assert out.dtype() is DType.I64, name
            assert out.dims() == list(shape), name
            assert not out.is_tracked() and out.is_autodiff(), name
            assert out.to_torch().ravel().tolist() == expect, name


@SETTINGS
@given(shape=shapes(), seed=seeds, s=st.integers(1, 6), negate=st.booleans())
def test_int_scalar_arithmetic(shape, seed, s, negate):
    s = -s if negate else s
    rng = np.random.default_rng(seed)
    a = rng.integers(-20, 21, shape)
    x = Tensor.from_ints(a, AD)
    fa = a.ravel().tolist()
    cases = {
        "add_scalar": (x.add_scalar(s), x + s, [p + s for p in fa]),
        "sub_scalar": (x.sub_scalar(s), x - s, [p - s for p in fa]),
        "mul_scalar": (x.mul_scalar(s), x * s, [p * s for p in fa]),
        "div_scalar": (x.div_scalar(s), x / s, [rust_div(p, s) for p in fa]),
        "remainder_scalar": (x.remainder_scalar(s), x % s, [p % s for p in fa]),
        "rsub": (s - x, s - x, [s - p for p in fa]),
        "radd": (s + x, s + x, [s + p for p in fa]),
        "rmul": (s * x, s * x, [s * p for p in fa]),
    }
    nonzero = [p if p != 0 else 1 for p in fa]
    y = Tensor.from_ints(np.array(nonzero).reshape(shape), AD)
    cases["rdiv"] = (s / y, s / y, [rust_div(s, p) for p in nonzero])
    for name, (method, op, expect) in cases.items():
        for out in (method, op):
            assert out.kind is Int, name
            assert not out.is_tracked(), name
            assert out.to_torch().ravel().tolist() == expect, name


def test_int_division_examples():
    a = Tensor.from_ints([-7, 7, -7, 7, 0, 5], CPU)
    b = Tensor.from_ints([2, 2, -2, -2, 3, 5], CPU)
    assert values(a / b) == [-3, 3, 3, -3, 0, 1]
    assert values(a % b) == [1, 1, -1, -1, 0, 0]
    assert values(a.div_scalar(-2)) == [3, -3, 3, -3, 0, -2]
    assert values(a.remainder_scalar(-3)) == [-1, -2, -1, -2, 0, -1]


def test_int_float_scalar_raises_type_error():
    x = Tensor.from_ints([1, 2, 3], AD)
    for f in (lambda: x.add_scalar(1.5), lambda: x + 1.5, lambda: x.mul_scalar(2.0),
              lambda: x.div_scalar(0.5), lambda: 1.5 - x):
        with pytest.raises(TypeError):
            f()


def test_int_tensors_never_tracked():
    x = Tensor.from_ints([[1, 2], [3, 4]], AD)
    assert x.is_autodiff() and not x.is_tracked() and not x.is_require_grad()
    with pytest.raises(TypeError):
        x.require_grad()
    ys = [x + x, x * 2, x.sum(), x.sum_dim(0), x.reshape([4]), x.transpose(), x.slice([slice(0, 1)]),
          Tensor.cat([x, x], 0), x.select(0, Tensor.from_ints([1, 1], AD)), x.neg(), x.abs(),
          x.expand([3, 2, 2]), x.mean()]
    for y in ys:
        assert y.kind is Int and not y.is_tracked() and y.is_autodiff()
    # a tracked float converted to Int is a constant; a graph through it stops there
    f = Tensor.from_floats([1.7, -2.2], AD).require_grad()
    i = f.int()
    assert i.kind is Int and not i.is_tracked() and i.is_autodiff()
    assert values(i) == [1, -2]  # truncation
    h = i.float()
    assert h.kind is Float and not h.is_tracked()
    loss = (f * h).sum()
    assert values(f.grad(loss.backward())) == [1.0, -2.0]


def test_bool_tensors_never_tracked():
    f = Tensor.from_floats([1.0, -2.0], AD).require_grad()
    m = f.greater_elem(0.0)
    assert m.kind is Bool and not m.is_tracked() and m.is_autodiff()
    with pytest.raises(TypeError):
        m.require_grad()


# =============================================================================================
# Reductions: Burn shapes
# =============================================================================================
@SETTINGS
@given(shape=shapes(), seed=seeds, data=st.data())
def test_reduction_shapes(shape, seed, data):
    rng = np.random.default_rng(seed)
    arr = rng.standard_normal(shape)
    x = Tensor.from_data(arr, AD)
    assert x.sum().dims() == [1] and x.mean().dims() == [1]
    np.testing.assert_allclose(values(x.sum()), [arr.sum()], rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(values(x.mean()), [arr.mean()], rtol=1e-12, atol=1e-12)
    dim = data.draw(st.integers(-len(shape), len(shape) - 1))
    keep = list(shape)
    keep[dim] = 1
    for name in ("sum_dim", "mean_dim", "max_dim", "min_dim", "argmax", "argmin"):
        assert getattr(x, name)(dim).dims() == keep, name
    np.testing.assert_allclose(x.sum_dim(dim).to_data().to_numpy(), arr.sum(dim, keepdims=True),
                               rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(x.mean_dim(dim).to_data().to_numpy(), arr.mean(dim, keepdims=True),
                               rtol=1e-12, atol=1e-12)


def test_int_reductions():
    x = Tensor.from_ints([[1, 2, 4], [-3, -5, 9]], AD)
    s = x.sum()
    assert s.kind is Int and s.dims() == [1] and values(s) == [8]
    assert values(x.sum_dim(1)) == [[7], [1]]
    # Int mean is integer division of the sum, truncating as in Rust
    m = x.mean()
    assert m.kind is Int and m.dims() == [1] and values(m) == [1]  # 8 / 6
    assert values(x.mean_dim(1)) == [[2], [0]]  # 7 / 3, 1 / 3
    assert values(x.mean_dim(0)) == [[-1, -1, 6]]  # -2/2, -3/2 -> -1, 13/2 -> 6


def test_int_sum_keeps_dtype():
    x = Tensor.from_ints([1, 2, 3], CPU, dtype=DType.I32)
    assert x.sum().dtype() is DType.I32
    assert x.sum_dim(0).dtype() is DType.I32


def test_sum_of_scalar_tensor_backward_shape():
    x = Tensor.from_floats([[1.0, 2.0]], AD).require_grad()
    loss = x.sum()
    assert loss.dims() == [1] and loss.rank() == 1
    g = loss.backward()
    assert x.grad(g).dims() == [1, 2]


# =============================================================================================
# Errors
# =============================================================================================
def _raises(exc, fn, *fragments):
    with pytest.raises(exc) as info:
        fn()
    msg = str(info.value)
    for frag in fragments:
        assert frag in msg, f"{frag!r} not in {msg!r}"


def test_shape_errors_name_the_shapes():
    a = Tensor.from_data(np.ones((2, 3)), AD).require_grad()
    b = Tensor.from_data(np.ones((4,)), AD)
    c = Tensor.from_data(np.ones((4, 5)), AD)
    _raises(ValueError, lambda: a.add(b), "[2, 3]", "[4]")
    _raises(ValueError, lambda: a + b, "[2, 3]", "[4]")
    _raises(ValueError, lambda: a.mul(c), "[2, 3]", "[4, 5]")
    _raises(ValueError, lambda: a.matmul(c), "[2, 3]", "[4, 5]")
    _raises(ValueError, lambda: a.matmul(b), "[2, 3]", "[4]")
    _raises(ValueError, lambda: a.reshape([4, 2]), "[2, 3]")
    _raises(ValueError, lambda: a.reshape([-1, -1]))
    _raises(ValueError, lambda: a.squeeze_dim(0), "[2, 3]")
    _raises(ValueError, lambda: a.expand([2, 4]), "[2, 3]")
    _raises(ValueError, lambda: a.permute([0, 0]), "[2, 3]")
    _raises(ValueError, lambda: Tensor.cat([a, c], 0), "[2, 3]", "[4, 5]")
    _raises(ValueError, lambda: Tensor.stack([a, c], 0), "[2, 3]", "[4, 5]")
    _raises(ValueError, lambda: a.gather(0, Tensor.from_ints([0, 1], AD)), "[2, 3]")
    _raises(ValueError, lambda: a.select(0, Tensor.from_ints([[0]], AD)), "[1, 1]")
    m = Tensor.from_bools([True, False], AD)
    _raises(ValueError, lambda: a.mask_where(m, a), "[2, 3]")
    _raises(ValueError, lambda: a.slice([slice(0, 1), slice(0, 1), slice(0, 1)]))
    _raises(ValueError, lambda: a.clamp(1.0, 0.0))
    # nothing was recorded by the failed ops: a is still a usable leaf
    g = (a * 2.0).sum().backward()
    assert values(a.grad(g)) == [[2.0] * 3] * 2


def test_index_errors():
    a = Tensor.from_data(np.ones((2, 3)), AD)
    _raises(IndexError, lambda: a.sum_dim(2), "2")
    _raises(IndexError, lambda: a.mean_dim(-3))
    _raises(IndexError, lambda: a.swap_dims(0, 2))
    _raises(IndexError, lambda: a.unsqueeze_dim(4))
    _raises(IndexError, lambda: a.squeeze_dim(5))
    _raises(IndexError, lambda: a.slice([5]), "5")
    _raises(IndexError, lambda: a.slice([-3]))
    _raises(IndexError, lambda: Tensor.stack([a, a], 4))
    _raises(IndexError, lambda: a.argmax(2))


FLOAT_BINARY = ["add", "sub", "mul", "div", "remainder", "powf", "matmul",
                "equal", "greater", "lower_equal"]


@pytest.mark.parametrize("name", FLOAT_BINARY)
@pytest.mark.parametrize("order", ["float_int", "int_float"])
def test_float_op_with_int_operand_raises_type_error(name, order):
    f = Tensor.from_data(np.ones((2, 2)), AD).require_grad()
    i = Tensor.from_ints([[1, 2], [3, 4]], AD)
    a, b = (f, i) if order == "float_int" else (i, f)
    with pytest.raises(TypeError) as info:
        getattr(a, name)(b)
    assert "Int" in str(info.value) and "Float" in str(info.value)


@pytest.mark.parametrize("op", [operator.add, operator.sub, operator.mul, operator.truediv,
                                operator.mod, operator.matmul])
def test_float_operator_with_int_operand_raises_type_error(op):
    f = Tensor.from_data(np.ones((2, 2)), AD).require_grad()
    i = Tensor.from_ints([[1, 2], [3, 4]], AD)
    with pytest.raises(TypeError):
        op(f, i)
    with pytest.raises(TypeError):
        op(i, f)


def test_float_op_with_int_operand_other_forms():
    f = Tensor.from_data(np.ones((2, 2)), AD).require_grad()
    i = Tensor.from_ints([[1, 2], [3, 4]], AD)
    m = f.greater_elem(0.0)
    with pytest.raises(TypeError):
        f.mask_where(m, i)
    with pytest.raises(TypeError):
        Tensor.cat([f, i], 0)
    with pytest.raises(TypeError):
        Tensor.stack([i, f], 0)
    with pytest.raises(TypeError):
        f.mask_fill(i, 0.0)  # the mask must be Bool
    with pytest.raises(TypeError):
        f.select(0, f)  # indices must be Int
    with pytest.raises(TypeError):
        f.gather(0, f)
    with pytest.raises(TypeError):
        f.powi_scalar(1.5)


@pytest.mark.parametrize("name", ["exp", "log", "log1p", "sqrt", "recip", "sin", "cos", "tanh", "erf"])
def test_float_math_on_int_raises_type_error(name):
    # Burn defines these on Float tensors only
    i = Tensor.from_ints([1, 2, 3], AD)
    with pytest.raises(TypeError) as info:
        getattr(i, name)()
    assert "Int" in str(info.value)


# =============================================================================================
# Misc forward semantics
# =============================================================================================
def test_mask_where_and_mask_fill_order():
    x = Tensor.from_floats([1.0, 2.0, 3.0], CPU)
    v = Tensor.from_floats([10.0, 20.0, 30.0], CPU)
    m = Tensor.from_bools([True, False, True], CPU)
    assert values(x.mask_where(m, v)) == [10.0, 2.0, 30.0]
    assert values(x.mask_fill(m, -1.0)) == [-1.0, 2.0, -1.0]


def test_unsqueeze_prepends_and_transpose_swaps_last_two():
    x = Tensor.from_data(np.zeros((2, 3, 4)), CPU)
    assert x.unsqueeze().dims() == [1, 2, 3, 4]
    assert x.unsqueeze(5).dims() == [1, 1, 2, 3, 4]
    assert x.transpose().dims() == [2, 4, 3]
    assert x.flatten(0, 1).dims() == [6, 4]
    assert x.flatten(1, 2).dims() == [2, 12]
    assert x.reshape([-1, 4]).dims() == [6, 4]
    assert x.swap_dims(0, 2).dims() == [4, 3, 2]
    assert x.permute([2, 0, 1]).dims() == [4, 2, 3]
    with pytest.raises(ValueError):
        x.unsqueeze(2)


def test_gather_and_select_values():
    x = Tensor.from_floats([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]], CPU)
    assert values(x.select(1, Tensor.from_ints([2, 0, 2], CPU))) == [[3.0, 1.0, 3.0], [6.0, 4.0, 6.0]]
    assert values(x.gather(1, Tensor.from_ints([[2, 2], [0, 1]], CPU))) == [[3.0, 3.0], [4.0, 5.0]]


def test_cast_and_kind_conversions():
    x = Tensor.from_data(np.array([1.25, -2.75]), AD).require_grad()
    assert x.dtype() is DType.F64
    y = x.cast(DType.F32)
    assert y.dtype() is DType.F32 and y.is_tracked()
    z = x.cast(DType.I64)
    assert z.kind is Int and not z.is_tracked() and z.is_autodiff()
    assert values(z) == [1, -2]
    b = x.bool()
    assert b.kind is Bool and values(b) == [True, True]
