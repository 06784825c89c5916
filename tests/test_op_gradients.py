"""Property tests: every differentiable op's forward values and gradients equal torch autograd's.

Each test runs its function through ``burn_torch.testing.assert_grads_match_torch`` (Burn's
backward vs torch autograd over the same kernels, in torch-oracle mode) and declares the op-table
entries it covers with ``covers``. Where Burn's forward semantics differ from torch's spelling
(shapes of reductions, slice ranges, mask_where's operand order, ...), the outputs are also
compared with an independent torch expression (``ref=``). Shapes (rank 1-4, sizes 1-5),
broadcasting patterns, dims, scalars, values and which operands are constants are drawn by
hypothesis with ``burn_torch.testing.strategies``.
"""
from __future__ import annotations

import numpy as np
import pytest
import torch
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from burn_torch import Device, DType, Tensor, activation
from burn_torch.testing import Const, assert_grads_match_torch, covers
from burn_torch.testing.report import difference
from burn_torch.testing.strategies import (broadcastable_pairs, dims, float_arrays, index_arrays,
                                           masks, shapes)

CPU = Device.cpu()
AD = CPU.autodiff()

SETTINGS = settings(deadline=None, max_examples=40,
                    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])

seeds = st.integers(0, 2**32 - 1)
losses = st.sampled_from(["weighted", "sum", "direct"])
multi_losses = st.sampled_from(["weighted", "sum"])


def torch_value(v) -> torch.Tensor:
    """The plain torch value of a checked argument (for the independent forward references)."""
    if isinstance(v, Const):
        v = v.value
    if isinstance(v, Tensor):
        return v.to_torch()
    return torch.from_numpy(np.array(v))


def check(fn, *inputs, ref=None, **kwargs):
    """``assert_grads_match_torch``; with ``ref``, the outputs also equal ``ref`` applied to the
    arguments as plain torch tensors (Burn's forward semantics, checked independently)."""
    res = assert_grads_match_torch(fn, *inputs, **kwargs)
    if ref is not None:
        expected = ref(*(torch_value(v) for v in inputs))
        expected = expected if isinstance(expected, tuple) else (expected,)
        assert len(expected) == len(res.outputs), f"{len(res.outputs)} outputs, reference has {len(expected)}"
        for i, (out, want) in enumerate(zip(res.outputs, expected)):
            problem = difference(f"output {i}", out.to_torch(), want, kwargs.get("rtol"),
                                 kwargs.get("atol"), "torch reference")
            assert problem is None, problem
    return res


# Which operand is a constant: both tracked, or one of them an untracked autodiff / plain tensor.
const_patterns = st.sampled_from(["both", "a_untracked", "b_untracked", "a_plain", "b_plain"])


def wrap_pair(pattern, a, b):
    if pattern == "a_untracked":
        return Const(a), b
    if pattern == "b_untracked":
        return a, Const(b)
    if pattern == "a_plain":
        return Tensor.from_data(a, CPU), b
    if pattern == "b_plain":
        return a, Tensor.from_data(b, CPU)
    return a, b


tensor_modes = st.sampled_from(["tracked", "tracked", "untracked", "plain"])


def wrap_mode(mode, v):
    if mode == "untracked":
        return Const(v)
    if mode == "plain":
        return Tensor.from_data(v, CPU)
    return v


def nonzero(shape):
    """Values with |v| in [0.5, 2) (divisors, reciprocals, abs away from its kink)."""
    return float_arrays(shape, -2.0, 2.0, avoid=0.0, margin=0.5)


# =============================================================================================
# Binary arithmetic, tensor ⊕ tensor, with broadcasting in both directions
# =============================================================================================
BINARY = {
    "add": (lambda a, b: a.add(b), lambda a, b: a + b),
    "sub": (lambda a, b: a.sub(b), lambda a, b: a - b),
    "mul": (lambda a, b: a.mul(b), lambda a, b: a * b),
    "div": (lambda a, b: a.div(b), lambda a, b: a / b),
    "add_op": (lambda a, b: a + b, None),
    "sub_op": (lambda a, b: a - b, None),
    "mul_op": (lambda a, b: a * b, None),
    "div_op": (lambda a, b: a / b, None),
}


@covers("add", "sub", "mul", "div")
@pytest.mark.parametrize("name", sorted(BINARY))
@SETTINGS
@given(pair=broadcastable_pairs(), pattern=const_patterns, seed=seeds, loss=losses, data=st.data())
def test_binary_broadcast(name, pair, pattern, seed, loss, data):
    sa, sb = pair
    a = data.draw(float_arrays(sa))
    b = data.draw(nonzero(sb) if name.startswith("div") else float_arrays(sb))
    bf, tf = BINARY[name]
    check(bf, *wrap_pair(pattern, a, b), ref=tf or bf, loss=loss, seed=seed)


def test_binary_gradient_reduced_to_each_input_shape():
    rng = np.random.default_rng(0)
    a, b = rng.standard_normal((3, 1, 4)), rng.uniform(0.5, 2.0, (1, 5, 1))
    for bf, tf in BINARY.values():
        res = check(bf, a, b, ref=tf or bf)
        assert res.grads[0].dims() == [3, 1, 4]
        assert res.grads[1].dims() == [1, 5, 1]


SCALAR = {
    "add_scalar": (lambda x, s: x.add_scalar(s), lambda x, s: x + s),
    "sub_scalar": (lambda x, s: x.sub_scalar(s), lambda x, s: x - s),
    "mul_scalar": (lambda x, s: x.mul_scalar(s), lambda x, s: x * s),
    "div_scalar": (lambda x, s: x.div_scalar(s), lambda x, s: x / s),
    "x+s": (lambda x, s: x + s, None),
    "s+x": (lambda x, s: s + x, None),
    "x-s": (lambda x, s: x - s, None),
    "s-x": (lambda x, s: s - x, None),
    "x*s": (lambda x, s: x * s, None),
    "s*x": (lambda x, s: s * x, None),
    "x/s": (lambda x, s: x / s, None),
    "s/x": (lambda x, s: s / x, None),
}


@covers("add_scalar", "sub_scalar", "rsub_scalar", "mul_scalar", "div_scalar", "rdiv_scalar")
@pytest.mark.parametrize("name", sorted(SCALAR))
@SETTINGS
@given(shape=shapes(), seed=seeds, s=st.one_of(st.floats(0.25, 4.0), st.integers(1, 5)),
       negate=st.booleans(), loss=losses, data=st.data())
def test_scalar_forms(name, shape, seed, s, negate, loss, data):
    s = -s if negate else s
    x = data.draw(nonzero(shape) if name == "s/x" else float_arrays(shape))
    bf, tf = SCALAR[name]
    tf = tf or bf
    check(lambda x: bf(x, s), x, ref=lambda x: tf(x, s), loss=loss, seed=seed)


# =============================================================================================
# Unary float math and activations
# =============================================================================================
def _t(name, *args):
    return lambda x: getattr(x, name)(*args)


UNARY = {
    # name: (burn fn, torch fn, values)
    "neg": (_t("neg"), torch.neg, float_arrays),
    "neg_op": (lambda x: -x, lambda x: -x, float_arrays),
    "exp": (_t("exp"), torch.exp, float_arrays),
    "log": (_t("log"), torch.log, lambda s: float_arrays(s, 0.5, 2.0)),
    "log1p": (_t("log1p"), torch.log1p, lambda s: float_arrays(s, -0.5, 2.0)),
    "sqrt": (_t("sqrt"), torch.sqrt, lambda s: float_arrays(s, 0.5, 2.0)),
    "abs": (_t("abs"), torch.abs, nonzero),
    "recip": (_t("recip"), torch.reciprocal, nonzero),
    "square": (_t("square"), torch.square, float_arrays),
    "sin": (_t("sin"), torch.sin, lambda s: float_arrays(s, -5.0, 5.0)),
    "cos": (_t("cos"), torch.cos, lambda s: float_arrays(s, -5.0, 5.0)),
    "tanh": (_t("tanh"), torch.tanh, lambda s: float_arrays(s, -3.0, 3.0)),
    "erf": (_t("erf"), torch.erf, float_arrays),
    "relu": (activation.relu, torch.relu, nonzero),
    "sigmoid": (activation.sigmoid, torch.sigmoid, lambda s: float_arrays(s, -6.0, 6.0)),
    "gelu": (activation.gelu, lambda x: torch.nn.functional.gelu(x), lambda s: float_arrays(s, -4.0, 4.0)),
    "act_tanh": (activation.tanh, torch.tanh, float_arrays),
}


@covers("neg", "exp", "log", "log1p", "sqrt", "abs", "recip", "square", "sin", "cos", "tanh", "erf",
        "relu", "sigmoid", "gelu")
@pytest.mark.parametrize("name", sorted(UNARY))
@SETTINGS
@given(shape=shapes(), seed=seeds, loss=losses, data=st.data())
def test_unary(name, shape, seed, loss, data):
    bf, tf, values = UNARY[name]
    check(bf, data.draw(values(shape)), ref=tf, loss=loss, seed=seed)


@covers("softmax", "log_softmax")
@pytest.mark.parametrize("name", ["softmax", "log_softmax"])
@SETTINGS
@given(shape=shapes(), seed=seeds, data=st.data(), loss=losses)
def test_softmax(name, shape, seed, data, loss):
    dim = data.draw(dims(len(shape)))
    x = data.draw(float_arrays(shape, -4.0, 4.0))
    check(lambda x: getattr(activation, name)(x, dim), x, ref=lambda x: getattr(torch, name)(x, dim),
          loss=loss, seed=seed)


@covers("powf")
@SETTINGS
@given(pair=broadcastable_pairs(), pattern=const_patterns, seed=seeds, loss=losses, data=st.data())
def test_powf(pair, pattern, seed, loss, data):
    a, b = data.draw(float_arrays(pair[0], 0.3, 2.5)), data.draw(float_arrays(pair[1]))
    check(lambda a, b: a.powf(b), *wrap_pair(pattern, a, b), ref=torch.pow, loss=loss, seed=seed)


@covers("powf_scalar")
@SETTINGS
@given(shape=shapes(), seed=seeds, e=st.floats(-2.5, 3.5), loss=losses, data=st.data())
def test_powf_scalar(shape, seed, e, loss, data):
    x = data.draw(float_arrays(shape, 0.3, 2.5))
    check(lambda x: x.powf_scalar(e), x, ref=lambda x: x.pow(e), loss=loss, seed=seed)


@covers("powi_scalar")
@SETTINGS
@given(shape=shapes(), seed=seeds, n=st.integers(-3, 4), loss=losses, data=st.data())
def test_powi_scalar(shape, seed, n, loss, data):
    x = data.draw(nonzero(shape))
    check(lambda x: x.powi_scalar(n), x, ref=lambda x: x.pow(n), loss=loss, seed=seed)


@covers("clamp")
@SETTINGS
@given(shape=shapes(), seed=seeds, lo=st.floats(-1.5, 0.5), width=st.floats(0.0, 2.0),
       which=st.sampled_from(["clamp", "clamp_min", "clamp_max"]), loss=losses, data=st.data())
def test_clamp(shape, seed, lo, width, which, loss, data):
    x = data.draw(float_arrays(shape))
    hi = lo + width
    if which == "clamp":
        check(lambda x: x.clamp(lo, hi), x, ref=lambda x: x.clamp(lo, hi), loss=loss, seed=seed)
    elif which == "clamp_min":
        check(lambda x: x.clamp_min(lo), x, ref=lambda x: x.clamp_min(lo), loss=loss, seed=seed)
    else:
        check(lambda x: x.clamp_max(hi), x, ref=lambda x: x.clamp_max(hi), loss=loss, seed=seed)


def test_clamp_gradient_at_the_bounds_passes_through():
    # Burn (like torch) lets the gradient through where x equals a bound.
    x = np.array([-1.0, -0.5, 0.0, 0.5, 1.0, 2.0])
    res = check(lambda x: x.clamp(-0.5, 1.0), x, loss="sum", numeric=False)  # kinks hit on purpose
    assert res.grads[0].to_data().to_list() == [0.0, 1.0, 1.0, 1.0, 1.0, 0.0]


@covers("remainder")
@SETTINGS
@given(pair=broadcastable_pairs(), pattern=const_patterns, seed=seeds, loss=losses,
       op=st.booleans(), data=st.data())
def test_remainder(pair, pattern, seed, loss, op, data):
    a, b = data.draw(float_arrays(pair[0], -6.0, 6.0)), data.draw(nonzero(pair[1]))
    bf = (lambda a, b: a % b) if op else (lambda a, b: a.remainder(b))
    check(bf, *wrap_pair(pattern, a, b), ref=torch.remainder, loss=loss, seed=seed)


@covers("remainder_scalar")
@SETTINGS
@given(shape=shapes(), seed=seeds, s=st.floats(0.5, 3.0), negate=st.booleans(), op=st.booleans(),
       data=st.data())
def test_remainder_scalar(shape, seed, s, negate, op, data):
    s = -s if negate else s
    x = data.draw(float_arrays(shape, -6.0, 6.0))
    bf = (lambda x: x % s) if op else (lambda x: x.remainder_scalar(s))
    check(bf, x, ref=lambda x: torch.remainder(x, s), seed=seed)


# =============================================================================================
# Matrix product
# =============================================================================================
@st.composite
def matmul_shapes(draw):
    batch = draw(shapes(0, 2))
    n, k, m = draw(st.integers(1, 5)), draw(st.integers(1, 5)), draw(st.integers(1, 5))
    ba = tuple(1 if draw(st.booleans()) else d for d in batch)
    bb = tuple(1 if draw(st.booleans()) else d for d in batch)
    return ba + (n, k), bb + (k, m)


@covers("matmul")
@SETTINGS
@given(pair=matmul_shapes(), pattern=const_patterns, seed=seeds, loss=losses, op=st.booleans(),
       data=st.data())
def test_matmul(pair, pattern, seed, loss, op, data):
    a, b = data.draw(float_arrays(pair[0])), data.draw(float_arrays(pair[1]))
    bf = (lambda a, b: a @ b) if op else (lambda a, b: a.matmul(b))
    check(bf, *wrap_pair(pattern, a, b), ref=torch.matmul, loss=loss, seed=seed)


# =============================================================================================
# Reductions
# =============================================================================================
@covers("sum", "mean")
@SETTINGS
@given(shape=shapes(), seed=seeds, which=st.sampled_from(["sum", "mean"]), loss=losses, data=st.data())
def test_sum_mean(shape, seed, which, loss, data):
    res = check(_t(which), data.draw(float_arrays(shape)), ref=lambda x: getattr(x, which)().reshape(1),
                loss=loss, seed=seed)
    assert res.outputs[0].dims() == [1]


@covers("sum_dim", "mean_dim")
@SETTINGS
@given(shape=shapes(), seed=seeds, data=st.data(), which=st.sampled_from(["sum", "mean"]),
       loss=losses)
def test_sum_mean_dim(shape, seed, data, which, loss):
    dim = data.draw(dims(len(shape)))
    res = check(lambda x: getattr(x, which + "_dim")(dim), data.draw(float_arrays(shape)),
                ref=lambda x: getattr(x, which)(dim, keepdim=True), loss=loss, seed=seed)
    assert res.outputs[0].rank() == len(shape)


@covers("gather")  # max_dim/min_dim: argmax/argmin, then a gather
@SETTINGS
@given(shape=shapes(), seed=seeds, data=st.data(), which=st.sampled_from(["max", "min"]),
       loss=losses)
def test_max_min_dim(shape, seed, data, which, loss):
    dim = data.draw(dims(len(shape)))
    x = data.draw(float_arrays(shape, distinct=True))
    check(lambda x: getattr(x, which + "_dim")(dim), x,
          ref=lambda x: getattr(x, which)(dim, keepdim=True).values, loss=loss, seed=seed)
    check(lambda x: getattr(x, which + "_dim_with_indices")(dim), x,
          ref=lambda x: tuple(getattr(x, which)(dim, keepdim=True)), seed=seed)


# =============================================================================================
# Shape and layout
# =============================================================================================
def _divisors(n):
    return [d for d in range(1, n + 1) if n % d == 0]


@st.composite
def reshape_case(draw):
    shape = draw(shapes())
    rest = int(np.prod(shape))
    target = []
    for _ in range(draw(st.integers(0, 3))):
        d = draw(st.sampled_from(_divisors(rest)))
        target.append(d)
        rest //= d
    target.append(rest)
    order = draw(st.permutations(range(len(target))))
    target = [target[i] for i in order]
    if draw(st.booleans()):
        target[draw(st.integers(0, len(target) - 1))] = -1
    return shape, target


@covers("reshape")
@SETTINGS
@given(case=reshape_case(), seed=seeds, loss=losses, data=st.data())
def test_reshape(case, seed, loss, data):
    shape, target = case
    check(lambda x: x.reshape(target), data.draw(float_arrays(shape)), ref=lambda x: x.reshape(target),
          loss=loss, seed=seed)


@covers("swap_dims", "permute")
@SETTINGS
@given(shape=shapes(), seed=seeds, data=st.data(), loss=losses)
def test_swap_dims_transpose_permute(shape, seed, data, loss):
    rank = len(shape)
    x = data.draw(float_arrays(shape))
    a, b = data.draw(dims(rank)), data.draw(dims(rank))
    check(lambda x: x.swap_dims(a, b), x, ref=lambda x: x.transpose(a, b), loss=loss, seed=seed)
    check(_t("transpose"), x, ref=lambda x: x.transpose(-2, -1) if rank >= 2 else x, loss=loss, seed=seed)
    perm = list(data.draw(st.permutations(range(rank))))
    check(lambda x: x.permute(perm), x, ref=lambda x: x.permute(perm), loss=loss, seed=seed)


@covers("unsqueeze_dim", "squeeze_dim", "reshape")
@SETTINGS
@given(shape=shapes(max_rank=3), seed=seeds, data=st.data(), loss=losses)
def test_unsqueeze_squeeze(shape, seed, data, loss):
    rank = len(shape)
    x = data.draw(float_arrays(shape))
    extra = data.draw(st.integers(0, 2))
    if data.draw(st.booleans()):
        check(_t("unsqueeze"), x, ref=lambda x: x.reshape((1,) + shape), loss=loss, seed=seed)
    else:
        check(lambda x: x.unsqueeze(rank + extra), x, ref=lambda x: x.reshape((1,) * extra + shape),
              loss=loss, seed=seed)
    d = data.draw(st.integers(-(rank + 1), rank))
    check(lambda x: x.unsqueeze_dim(d), x, ref=lambda x: x.unsqueeze(d), loss=loss, seed=seed)
    # squeeze_dim on a size-1 dim
    s = data.draw(st.integers(0, rank))
    y = data.draw(float_arrays(shape[:s] + (1,) + shape[s:]))
    sd = s - (rank + 1) if data.draw(st.booleans()) else s
    check(lambda y: y.squeeze_dim(sd), y, ref=lambda y: y.squeeze(sd), loss=loss, seed=seed)


@covers("flatten")
@SETTINGS
@given(shape=shapes(), seed=seeds, data=st.data(), loss=losses)
def test_flatten(shape, seed, data, loss):
    rank = len(shape)
    start = data.draw(st.integers(0, rank - 1))
    end = data.draw(st.integers(start, rank - 1))
    check(lambda x: x.flatten(start, end), data.draw(float_arrays(shape)),
          ref=lambda x: x.flatten(start, end), loss=loss, seed=seed)


@st.composite
def expand_case(draw):
    base = draw(shapes(1, 3))
    src = tuple(1 if draw(st.booleans()) else d for d in base)
    lead = draw(shapes(0, 1))
    target = list(lead + base)
    for i in range(len(lead), len(target)):  # -1 keeps the source dim
        if draw(st.booleans()) and draw(st.booleans()):
            target[i] = -1
    return src, target


@covers("expand")
@SETTINGS
@given(case=expand_case(), seed=seeds, loss=losses, data=st.data())
def test_expand(case, seed, loss, data):
    src, target = case
    res = check(lambda x: x.expand(target), data.draw(float_arrays(src)), ref=lambda x: x.expand(target),
                loss=loss, seed=seed)
    assert res.grads[0].dims() == list(src)


# -- slice: Burn semantics, checked against an independent index-list reference ---------------
def burn_range(r, n):
    """The indices Burn's range ``r`` selects in a dim of size ``n``: a..b with step k walks
    a, a+k, ... < b; with step -k it walks b-1, b-1-k, ... >= a. An int selects one index."""
    if isinstance(r, int):
        return [r + n if r < 0 else r]
    start = 0 if r.start is None else (r.start + n if r.start < 0 else r.start)
    stop = n if r.stop is None else (r.stop + n if r.stop < 0 else r.stop)
    step = 1 if r.step is None else r.step
    if step > 0:
        return list(range(start, stop, step))
    return list(range(stop - 1, start - 1, step))


@st.composite
def burn_slice(draw, n):
    """A non-empty in-range Burn range for a dim of size ``n``."""
    if draw(st.integers(0, 5)) == 0:
        i = draw(st.integers(0, n - 1))
        return i - n if draw(st.booleans()) else i
    start = draw(st.one_of(st.none(), st.integers(0, n - 1)))
    lo = 0 if start is None else start
    stop = draw(st.one_of(st.none(), st.integers(lo + 1, n)))
    if start is not None and draw(st.booleans()):
        start -= n
    if stop is not None and stop < n and draw(st.booleans()):
        stop -= n
    step = draw(st.one_of(st.none(), st.integers(1, 3), st.integers(-3, -1)))
    return slice(start, stop, step)


def reference_slice(x, ranges):
    for d, r in enumerate(ranges):
        x = x.index_select(d, torch.tensor(burn_range(r, x.shape[d]), dtype=torch.long))
    return x


@covers("slice")
@SETTINGS
@given(shape=shapes(), seed=seeds, data=st.data(), loss=losses)
def test_slice(shape, seed, data, loss):
    k = data.draw(st.integers(1, len(shape)))
    ranges = [data.draw(burn_slice(n)) for n in shape[:k]]
    check(lambda x: x.slice(ranges), data.draw(float_arrays(shape)),
          ref=lambda x: reference_slice(x, ranges), loss=loss, seed=seed)


@covers("slice")
@SETTINGS
@given(shape=shapes(), seed=seeds, data=st.data(), loss=losses)
def test_slice_dim(shape, seed, data, loss):
    dim = data.draw(dims(len(shape)))
    r = data.draw(burn_slice(shape[dim]))
    check(lambda x: x.slice_dim(dim, r), data.draw(float_arrays(shape)),
          ref=lambda x: x.index_select(dim, torch.tensor(burn_range(r, shape[dim]), dtype=torch.long)),
          loss=loss, seed=seed)


def test_slice_negative_step_semantics():
    x = Tensor.from_data(np.arange(10.0), CPU)
    assert x.slice([slice(0, 5, -1)]).to_data().to_list() == [4.0, 3.0, 2.0, 1.0, 0.0]
    assert x.slice([slice(None, None, -3)]).to_data().to_list() == [9.0, 6.0, 3.0, 0.0]
    assert x.slice([slice(2, 8, -2)]).to_data().to_list() == [7.0, 5.0, 3.0]
    assert x.slice([slice(-4, None, -1)]).to_data().to_list() == [9.0, 8.0, 7.0, 6.0]
    assert x.slice([slice(1, 8, 3)]).to_data().to_list() == [1.0, 4.0, 7.0]


# -- cat / stack ------------------------------------------------------------------------------
@covers("cat")
@SETTINGS
@given(shape=shapes(), seed=seeds, data=st.data(), loss=multi_losses)
def test_cat(shape, seed, data, loss):
    dim = data.draw(dims(len(shape)))
    sizes = data.draw(st.lists(st.integers(1, 4), min_size=1, max_size=4))
    ins = []
    for s in sizes:
        sh = list(shape)
        sh[dim] = s
        ins.append(wrap_mode(data.draw(tensor_modes), data.draw(float_arrays(tuple(sh)))))
    check(lambda *xs: Tensor.cat(list(xs), dim), *ins, ref=lambda *xs: torch.cat(xs, dim),
          loss=loss, seed=seed)


@covers("stack")
@SETTINGS
@given(shape=shapes(max_rank=3), seed=seeds, data=st.data(), loss=multi_losses)
def test_stack(shape, seed, data, loss):
    dim = data.draw(st.integers(-(len(shape) + 1), len(shape)))
    n = data.draw(st.integers(1, 4))
    ins = [wrap_mode(data.draw(tensor_modes), data.draw(float_arrays(shape))) for _ in range(n)]
    check(lambda *xs: Tensor.stack(list(xs), dim), *ins, ref=lambda *xs: torch.stack(xs, dim),
          loss=loss, seed=seed)


# =============================================================================================
# Indexing and masking
# =============================================================================================
@covers("select")
@SETTINGS
@given(shape=shapes(), seed=seeds, data=st.data(), loss=losses)
def test_select_repeated_indices(shape, seed, data, loss):
    dim = data.draw(dims(len(shape)))
    i = data.draw(index_arrays(shape, dim, mode="select", max_len=7))
    x = data.draw(float_arrays(shape))
    # indices as an Int argument (a constant on the autodiff device) ...
    check(lambda x, i: x.select(dim, i), x, i, ref=lambda x, i: x.index_select(dim, i), loss=loss,
          seed=seed)
    # ... and as a plain-device Int tensor
    check(lambda x: x.select(dim, Tensor.from_ints(i.tolist(), CPU)), x,
          ref=lambda x: x.index_select(dim, torch.from_numpy(i)), loss=loss, seed=seed)


def test_select_repeated_indices_accumulate():
    x = Tensor.from_data(np.arange(4.0), AD).require_grad()
    g = x.select(0, Tensor.from_ints([1, 1, 3, 1], AD)).sum().backward()
    assert x.grad(g).to_data().to_list() == [0.0, 3.0, 0.0, 1.0]


@covers("gather")
@SETTINGS
@given(shape=shapes(), seed=seeds, data=st.data(), loss=losses)
def test_gather(shape, seed, data, loss):
    dim = data.draw(dims(len(shape)))
    idx = data.draw(index_arrays(shape, dim))
    check(lambda x, i: x.gather(dim, i), data.draw(float_arrays(shape)), idx,
          ref=lambda x, i: torch.gather(x, dim, i), loss=loss, seed=seed)


@covers("mask_fill")
@SETTINGS
@given(shape=shapes(), seed=seeds, value=st.floats(-3, 3), loss=losses, data=st.data())
def test_mask_fill(shape, seed, value, loss, data):
    x, m = data.draw(float_arrays(shape)), data.draw(masks(shape))
    check(lambda x, m: x.mask_fill(m, value), x, m, ref=lambda x, m: x.masked_fill(m, value),
          loss=loss, seed=seed)


@covers("mask_where")
@SETTINGS
@given(shape=shapes(), seed=seeds, pattern=const_patterns, loss=losses, data=st.data())
def test_mask_where(shape, seed, pattern, loss, data):
    x, v, m = data.draw(float_arrays(shape)), data.draw(float_arrays(shape)), data.draw(masks(shape))
    a, b = wrap_pair(pattern, x, v)
    # Burn: values where the mask is set, self elsewhere (torch.where's order is the other way)
    check(lambda x, v, m: x.mask_where(m, v), a, b, m, ref=lambda x, v, m: torch.where(m, v, x),
          loss=loss, seed=seed)


# =============================================================================================
# Conversions
# =============================================================================================
@covers("cast")
@SETTINGS
@given(shape=shapes(), seed=seeds, loss=losses, data=st.data())
def test_cast_f64_f32_f64(shape, seed, loss, data):
    x = data.draw(float_arrays(shape))
    res = check(lambda x: x.cast(DType.F32).cast(DType.F64), x, numeric=False,  # f32 steps: no FD
                ref=lambda x: x.to(torch.float32).to(torch.float64), loss=loss, seed=seed)
    assert res.grads[0].dtype() is DType.F64
    # an f32 leaf: the result is f32 and its gradient comes back as f32
    res = check(lambda x: x.cast(DType.F64).exp().cast(DType.F32), x.astype(np.float32),
                ref=lambda x: x.to(torch.float64).exp().to(torch.float32), loss=loss, seed=seed,
                rtol=1e-6, atol=1e-6)
    assert res.grads[0].dtype() is DType.F32


@covers("to_device")
@SETTINGS
@given(shape=shapes(), seed=seeds, loss=losses, data=st.data())
def test_to_device_same_device(shape, seed, loss, data):
    res = check(lambda x: (x.to_device(CPU) * 2.0).to_device(AD).exp(), data.draw(float_arrays(shape)),
                ref=lambda x: (x * 2.0).exp(), loss=loss, seed=seed)
    assert not res.outputs[0].is_require_grad()


# =============================================================================================
# Mixed graphs: shared operands, several paths to a leaf, constants
# =============================================================================================
MIXED = {
    "x*x": (lambda x, y: x * x, None),
    "x+x": (lambda x, y: x + x, None),
    "x-x+y": (lambda x, y: x - x + y, None),
    "x/(x*x+1)": (lambda x, y: x / (x * x + 1.0), None),
    "paths": (lambda x, y: (x * y + x.exp() * y - (x * 2.0).sin()) * x, None),
    "reused_intermediate": (lambda x, y: (lambda h: h * h + h.tanh() * y + h)(x * y + 1.0), None),
    "sum_dim_path": (lambda x, y: x * y.sum_dim(0) + x.mean_dim(-1),
                     lambda x, y: x * y.sum(0, keepdim=True) + x.mean(-1, keepdim=True)),
    "matmul_self": (lambda x, y: x @ x.transpose() + y, lambda x, y: x @ x.mT + y),
}


@pytest.mark.parametrize("name", sorted(MIXED))
@SETTINGS
@given(n=st.integers(1, 4), seed=seeds, which=st.sampled_from(["both", "y_const", "x_const", "y_plain"]),
       loss=losses, data=st.data())
def test_mixed_graphs(name, n, seed, which, loss, data):
    x, y = data.draw(float_arrays((n, n))), data.draw(float_arrays((n, n)))
    if which == "y_const":
        y = Const(y)
    elif which == "x_const":
        x = Const(x)
    elif which == "y_plain":
        y = Tensor.from_data(y, CPU)
    bf, tf = MIXED[name]
    check(bf, x, y, ref=tf or bf, loss=loss, seed=seed)


def test_same_leaf_twice_accumulates():
    x = Tensor.from_data(np.array([1.0, -2.0, 3.0]), AD).require_grad()
    g = (x * x + x).sum().backward()
    assert x.grad(g).to_data().to_list() == [3.0, -3.0, 7.0]
    assert len(g) == 1


def test_same_leaf_as_two_arguments_gets_the_total_gradient():
    x = Tensor.from_data(np.array([1.0, -2.0, 3.0]), AD).require_grad()
    res = check(lambda a, b: a * b + a, x, x, loss="sum")
    assert res.grads[0].to_data().to_list() == [3.0, -3.0, 7.0]
    assert res.grads[1].to_data().to_list() == [3.0, -3.0, 7.0]


def test_tuple_outputs_with_shared_leaf():
    x = np.random.default_rng(3).standard_normal((3, 4))
    check(lambda x: (x.exp(), x.sum_dim(1), x * 3.0), x,
          ref=lambda x: (x.exp(), x.sum(1, keepdim=True), x * 3.0))


def test_all_constant_inputs_give_untracked_output():
    rng = np.random.default_rng(4)
    res = check(lambda a, b: a * b + a.exp(), Const(rng.standard_normal((2, 3))),
                Tensor.from_data(rng.standard_normal((2, 3)), CPU))
    assert not res.outputs[0].is_tracked()
    assert res.outputs[0].is_autodiff()


# -- random expression DAGs over a pool of same-shape tensors ---------------------------------
DAG_UNARY = [
    lambda x: x.tanh(),
    lambda x: x.sin(),
    lambda x: x.tanh().exp(),
    activation.sigmoid,
    lambda x: x * 0.5,
    lambda x: -x,
    lambda x: x.square().add_scalar(1.0).sqrt(),
]
DAG_BINARY = [
    lambda a, b: a + b,
    lambda a, b: a - b,
    lambda a, b: a * b,
    lambda a, b: a / (b * b + 1.0),
]


@st.composite
def dag_program(draw):
    n_inputs = draw(st.integers(1, 3))
    steps = []
    for k in range(draw(st.integers(1, 8))):
        pool = n_inputs + k
        if draw(st.booleans()):
            steps.append(("u", draw(st.integers(0, len(DAG_UNARY) - 1)), draw(st.integers(0, pool - 1))))
        else:
            steps.append(("b", draw(st.integers(0, len(DAG_BINARY) - 1)),
                          draw(st.integers(0, pool - 1)), draw(st.integers(0, pool - 1))))
    n_out = draw(st.integers(1, 2))
    modes = [draw(tensor_modes) for _ in range(n_inputs)]
    return n_inputs, steps, n_out, modes


def _run_dag(steps, n_out, xs):
    pool = list(xs)
    for step in steps:
        if step[0] == "u":
            pool.append(DAG_UNARY[step[1]](pool[step[2]]))
        else:
            pool.append(DAG_BINARY[step[1]](pool[step[2]], pool[step[3]]))
    return tuple(pool[-n_out:])


def _on_device(mode, v, device):
    if mode == "tracked":
        return Tensor.from_data(v, device).require_grad()
    return Tensor.from_data(v, device if mode == "untracked" else CPU)


@pytest.mark.parametrize("strategy", ["disabled", "balanced"])
@SETTINGS
@given(prog=dag_program(), shape=shapes(max_rank=3), seed=seeds, loss=multi_losses, data=st.data())
def test_random_dag(strategy, prog, shape, seed, loss, data):
    n_inputs, steps, n_out, modes = prog
    device = AD.gradient_checkpointing() if strategy == "balanced" else AD
    xs = [_on_device(m, data.draw(float_arrays(shape)), device) for m in modes]
    check(lambda *a: _run_dag(steps, n_out, a), *xs, loss=loss, seed=seed)


# -- mixed float dtypes: each leaf's gradient comes back in the leaf's own dtype ---------------
MIXED_DTYPE = {
    "add": (lambda a, b: a + b, None),
    "mul": (lambda a, b: a * b, None),
    "div": (lambda a, b: a / b, None),
    "powf": (lambda a, b: a.abs().powf(b), lambda a, b: a.abs().pow(b)),
    "remainder": (lambda a, b: a.remainder(b), torch.remainder),
    "mask_where": (lambda a, b: a.mask_where(a.greater_elem(0.0), b), lambda a, b: torch.where(a > 0, b, a)),
    "cat": (lambda a, b: Tensor.cat([a, b], 0), lambda a, b: torch.cat([a, b], 0)),
    "stack": (lambda a, b: Tensor.stack([a, b], 1), lambda a, b: torch.stack([a, b], 1)),
}


@pytest.mark.parametrize("name", sorted(MIXED_DTYPE))
@pytest.mark.parametrize("f32_first", [True, False])
def test_mixed_float_dtypes_grad_dtype(name, f32_first):
    rng = np.random.default_rng(7)
    a = rng.uniform(0.5, 2.0, (3, 4)) * rng.choice([-1.0, 1.0], (3, 4))
    b = rng.uniform(0.5, 2.0, (3, 4)) * rng.choice([-1.0, 1.0], (3, 4))
    a = a.astype(np.float32) if f32_first else a
    b = b if f32_first else b.astype(np.float32)
    bf, tf = MIXED_DTYPE[name]
    res = check(bf, a, b, ref=tf or bf, rtol=1e-5, atol=1e-6)
    assert res.grads[0].to_torch().dtype == torch.from_numpy(a).dtype
    assert res.grads[1].to_torch().dtype == torch.from_numpy(b).dtype
