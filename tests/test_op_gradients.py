"""Property tests: every differentiable op's forward values and gradients equal torch autograd's.

Shapes (rank 1-4, sizes 1-5), broadcasting patterns, dims, scalars and which operands are
constants are drawn by hypothesis; values come from a numpy generator seeded by hypothesis. The
oracle (tests/oracle.py) checks values, tracking, gradient shapes/dtypes and values.
"""
from __future__ import annotations


import numpy as np
import pytest
import torch
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from burn_torch import DType, Tensor, activation
from oracle import AD, CPU, Const, away_from_zero, check, distinct, normal, positive

SETTINGS = settings(deadline=None, max_examples=40,
                    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])

seeds = st.integers(0, 2**32 - 1)
losses = st.sampled_from(["weighted", "sum", "direct"])
multi_losses = st.sampled_from(["weighted", "sum"])


def shapes(min_rank=1, max_rank=4, min_side=1, max_side=5):
    return st.lists(st.integers(min_side, max_side), min_size=min_rank, max_size=max_rank).map(tuple)


@st.composite
def broadcast_pair(draw, min_rank=1, max_rank=4):
    """Two same-rank shapes that broadcast (each dim is the base size or 1, on either side)."""
    base = draw(shapes(min_rank, max_rank))
    a = tuple(1 if draw(st.booleans()) and draw(st.booleans()) else d for d in base)
    b = tuple(1 if draw(st.booleans()) and draw(st.booleans()) else d for d in base)
    return a, b


# Which operand is a constant: both tracked, or one of them an untracked autodiff / plain tensor.
const_patterns = st.sampled_from(["both", "a_untracked", "b_untracked", "a_plain", "b_plain"])


def wrap_pair(pattern, a, b):
    if pattern == "a_untracked":
        return Const(a), b
    if pattern == "b_untracked":
        return a, Const(b)
    if pattern == "a_plain":
        return Const(a, "plain"), b
    if pattern == "b_plain":
        return a, Const(b, "plain")
    return a, b


def rand_dim(draw, rank):
    """A dim index, sometimes negative."""
    d = draw(st.integers(0, rank - 1))
    return d - rank if draw(st.booleans()) else d


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


@pytest.mark.parametrize("name", sorted(BINARY))
@SETTINGS
@given(shapes_=broadcast_pair(), pattern=const_patterns, seed=seeds, loss=losses)
def test_binary_broadcast(name, shapes_, pattern, seed, loss):
    rng = np.random.default_rng(seed)
    sa, sb = shapes_
    a = normal(rng, sa)
    b = away_from_zero(rng, sb) if name.startswith("div") else normal(rng, sb)
    bf, tf = BINARY[name]
    check(bf, tf, *wrap_pair(pattern, a, b), loss=loss, seed=seed)


def test_binary_gradient_reduced_to_each_input_shape():
    rng = np.random.default_rng(0)
    a, b = normal(rng, (3, 1, 4)), away_from_zero(rng, (1, 5, 1))
    for bf, tf in BINARY.values():
        res = check(bf, tf, a, b)
        assert res.burn_grads[0].dims() == [3, 1, 4]
        assert res.burn_grads[1].dims() == [1, 5, 1]


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


@pytest.mark.parametrize("name", sorted(SCALAR))
@SETTINGS
@given(shape=shapes(), seed=seeds, s=st.one_of(st.floats(0.25, 4.0), st.integers(1, 5)),
       negate=st.booleans(), loss=losses)
def test_scalar_forms(name, shape, seed, s, negate, loss):
    rng = np.random.default_rng(seed)
    s = -s if negate else s
    x = away_from_zero(rng, shape) if name == "s/x" else normal(rng, shape)
    bf, tf = SCALAR[name]
    if tf is None:
        tf = bf
    check(lambda x: bf(x, s), lambda x: tf(x, s), x, loss=loss, seed=seed)


# =============================================================================================
# Unary float math and activations
# =============================================================================================
def _t(name, *args):
    return lambda x: getattr(x, name)(*args)


UNARY = {
    # name: (burn fn, torch fn, domain)
    "neg": (_t("neg"), torch.neg, normal),
    "neg_op": (lambda x: -x, None, normal),
    "exp": (_t("exp"), torch.exp, normal),
    "log": (_t("log"), torch.log, positive),
    "log1p": (_t("log1p"), torch.log1p, lambda r, s: positive(r, s, -0.5, 2.0)),
    "sqrt": (_t("sqrt"), torch.sqrt, positive),
    "abs": (_t("abs"), torch.abs, away_from_zero),
    "recip": (_t("recip"), torch.reciprocal, away_from_zero),
    "square": (_t("square"), torch.square, normal),
    "sin": (_t("sin"), torch.sin, lambda r, s: normal(r, s, 3.0)),
    "cos": (_t("cos"), torch.cos, lambda r, s: normal(r, s, 3.0)),
    "tanh": (_t("tanh"), torch.tanh, lambda r, s: normal(r, s, 2.0)),
    "erf": (_t("erf"), torch.erf, normal),
    "relu": (activation.relu, torch.relu, away_from_zero),
    "sigmoid": (activation.sigmoid, torch.sigmoid, lambda r, s: normal(r, s, 3.0)),
    "gelu": (activation.gelu, lambda x: torch.nn.functional.gelu(x), lambda r, s: normal(r, s, 2.0)),
    "act_tanh": (activation.tanh, torch.tanh, normal),
}


@pytest.mark.parametrize("name", sorted(UNARY))
@SETTINGS
@given(shape=shapes(), seed=seeds, loss=losses)
def test_unary(name, shape, seed, loss):
    bf, tf, domain = UNARY[name]
    x = domain(np.random.default_rng(seed), shape)
    check(bf, tf, x, loss=loss, seed=seed)


@pytest.mark.parametrize("name", ["softmax", "log_softmax"])
@SETTINGS
@given(shape=shapes(), seed=seeds, data=st.data(), loss=losses)
def test_softmax(name, shape, seed, data, loss):
    dim = rand_dim(data.draw, len(shape))
    x = normal(np.random.default_rng(seed), shape, 2.0)
    check(lambda x: getattr(activation, name)(x, dim), lambda x: getattr(torch, name)(x, dim), x,
          loss=loss, seed=seed)


@SETTINGS
@given(shapes_=broadcast_pair(), pattern=const_patterns, seed=seeds, loss=losses)
def test_powf(shapes_, pattern, seed, loss):
    rng = np.random.default_rng(seed)
    a, b = positive(rng, shapes_[0], 0.3, 2.5), normal(rng, shapes_[1])
    check(lambda a, b: a.powf(b), torch.pow, *wrap_pair(pattern, a, b), loss=loss, seed=seed)


@SETTINGS
@given(shape=shapes(), seed=seeds, e=st.floats(-2.5, 3.5), loss=losses)
def test_powf_scalar(shape, seed, e, loss):
    x = positive(np.random.default_rng(seed), shape, 0.3, 2.5)
    check(lambda x: x.powf_scalar(e), lambda x: x.pow(e), x, loss=loss, seed=seed)


@SETTINGS
@given(shape=shapes(), seed=seeds, n=st.integers(-3, 4), loss=losses)
def test_powi_scalar(shape, seed, n, loss):
    x = away_from_zero(np.random.default_rng(seed), shape)
    check(lambda x: x.powi_scalar(n), lambda x: x.pow(n), x, loss=loss, seed=seed)


@SETTINGS
@given(shape=shapes(), seed=seeds, lo=st.floats(-1.5, 0.5), width=st.floats(0.0, 2.0),
       which=st.sampled_from(["clamp", "clamp_min", "clamp_max"]), loss=losses)
def test_clamp(shape, seed, lo, width, which, loss):
    x = normal(np.random.default_rng(seed), shape)
    hi = lo + width
    if which == "clamp":
        check(lambda x: x.clamp(lo, hi), lambda x: x.clamp(lo, hi), x, loss=loss, seed=seed)
    elif which == "clamp_min":
        check(lambda x: x.clamp_min(lo), lambda x: x.clamp_min(lo), x, loss=loss, seed=seed)
    else:
        check(lambda x: x.clamp_max(hi), lambda x: x.clamp_max(hi), x, loss=loss, seed=seed)


def test_clamp_gradient_at_the_bounds_passes_through():
    # Burn (like torch) lets the gradient through where x equals a bound.
    x = np.array([-1.0, -0.5, 0.0, 0.5, 1.0, 2.0])
    res = check(lambda x: x.clamp(-0.5, 1.0), lambda x: x.clamp(-0.5, 1.0), x, loss="sum")
    assert res.burn_grads[0].to_data().to_list() == [0.0, 1.0, 1.0, 1.0, 1.0, 0.0]


@SETTINGS
@given(shapes_=broadcast_pair(), pattern=const_patterns, seed=seeds, loss=losses,
       op=st.booleans())
def test_remainder(shapes_, pattern, seed, loss, op):
    rng = np.random.default_rng(seed)
    a, b = normal(rng, shapes_[0], 3.0), away_from_zero(rng, shapes_[1])
    bf = (lambda a, b: a % b) if op else (lambda a, b: a.remainder(b))
    check(bf, torch.remainder, *wrap_pair(pattern, a, b), loss=loss, seed=seed)


@SETTINGS
@given(shape=shapes(), seed=seeds, s=st.floats(0.5, 3.0), negate=st.booleans(), op=st.booleans())
def test_remainder_scalar(shape, seed, s, negate, op):
    s = -s if negate else s
    x = normal(np.random.default_rng(seed), shape, 3.0)
    bf = (lambda x: x % s) if op else (lambda x: x.remainder_scalar(s))
    check(bf, lambda x: torch.remainder(x, s), x, seed=seed)


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


@SETTINGS
@given(shapes_=matmul_shapes(), pattern=const_patterns, seed=seeds, loss=losses,
       op=st.booleans())
def test_matmul(shapes_, pattern, seed, loss, op):
    rng = np.random.default_rng(seed)
    a, b = normal(rng, shapes_[0]), normal(rng, shapes_[1])
    bf = (lambda a, b: a @ b) if op else (lambda a, b: a.matmul(b))
    check(bf, torch.matmul, *wrap_pair(pattern, a, b), loss=loss, seed=seed)


# =============================================================================================
# Reductions
# =============================================================================================
@SETTINGS
@given(shape=shapes(), seed=seeds, which=st.sampled_from(["sum", "mean"]), loss=losses)
def test_sum_mean(shape, seed, which, loss):
    x = normal(np.random.default_rng(seed), shape)
    res = check(_t(which), lambda x: getattr(x, which)().reshape(1), x, loss=loss, seed=seed)
    assert res.burn_outputs[0].dims() == [1]


@SETTINGS
@given(shape=shapes(), seed=seeds, data=st.data(), which=st.sampled_from(["sum", "mean"]),
       loss=losses)
def test_sum_mean_dim(shape, seed, data, which, loss):
    dim = rand_dim(data.draw, len(shape))
    x = normal(np.random.default_rng(seed), shape)
    res = check(lambda x: getattr(x, which + "_dim")(dim),
                lambda x: getattr(x, which)(dim, keepdim=True), x, loss=loss, seed=seed)
    assert res.burn_outputs[0].rank() == len(shape)


@SETTINGS
@given(shape=shapes(), seed=seeds, data=st.data(), which=st.sampled_from(["max", "min"]),
       loss=losses)
def test_max_min_dim(shape, seed, data, which, loss):
    dim = rand_dim(data.draw, len(shape))
    x = distinct(np.random.default_rng(seed), shape)
    check(lambda x: getattr(x, which + "_dim")(dim),
          lambda x: getattr(x, which)(dim, keepdim=True).values, x, loss=loss, seed=seed)
    check(lambda x: getattr(x, which + "_dim_with_indices")(dim),
          lambda x: tuple(getattr(x, which)(dim, keepdim=True)), x, seed=seed)


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


@SETTINGS
@given(case=reshape_case(), seed=seeds, loss=losses)
def test_reshape(case, seed, loss):
    shape, target = case
    x = normal(np.random.default_rng(seed), shape)
    check(lambda x: x.reshape(target), lambda x: x.reshape(target), x, loss=loss, seed=seed)


@SETTINGS
@given(shape=shapes(), seed=seeds, data=st.data(), loss=losses)
def test_swap_dims_transpose_permute(shape, seed, data, loss):
    rank = len(shape)
    x = normal(np.random.default_rng(seed), shape)
    a, b = rand_dim(data.draw, rank), rand_dim(data.draw, rank)
    check(lambda x: x.swap_dims(a, b), lambda x: x.transpose(a, b), x, loss=loss, seed=seed)
    check(_t("transpose"), lambda x: x.transpose(-2, -1) if rank >= 2 else x, x, loss=loss, seed=seed)
    perm = list(data.draw(st.permutations(range(rank))))
    check(lambda x: x.permute(perm), lambda x: x.permute(perm), x, loss=loss, seed=seed)


@SETTINGS
@given(shape=shapes(max_rank=3), seed=seeds, data=st.data(), loss=losses)
def test_unsqueeze_squeeze(shape, seed, data, loss):
    rank = len(shape)
    x = normal(np.random.default_rng(seed), shape)
    extra = data.draw(st.integers(0, 2))
    if data.draw(st.booleans()):
        check(_t("unsqueeze"), lambda x: x.reshape((1,) + shape), x, loss=loss, seed=seed)
    else:
        check(lambda x: x.unsqueeze(rank + extra), lambda x: x.reshape((1,) * extra + shape), x,
              loss=loss, seed=seed)
    d = data.draw(st.integers(-(rank + 1), rank))
    check(lambda x: x.unsqueeze_dim(d), lambda x: x.unsqueeze(d), x, loss=loss, seed=seed)
    # squeeze_dim on a size-1 dim
    s = data.draw(st.integers(0, rank))
    y = normal(np.random.default_rng(seed + 1), shape[:s] + (1,) + shape[s:])
    sd = s - (rank + 1) if data.draw(st.booleans()) else s
    check(lambda y: y.squeeze_dim(sd), lambda y: y.squeeze(sd), y, loss=loss, seed=seed)


@SETTINGS
@given(shape=shapes(), seed=seeds, data=st.data(), loss=losses)
def test_flatten(shape, seed, data, loss):
    rank = len(shape)
    start = data.draw(st.integers(0, rank - 1))
    end = data.draw(st.integers(start, rank - 1))
    x = normal(np.random.default_rng(seed), shape)
    check(lambda x: x.flatten(start, end), lambda x: x.flatten(start, end), x, loss=loss, seed=seed)


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


@SETTINGS
@given(case=expand_case(), seed=seeds, loss=losses)
def test_expand(case, seed, loss):
    src, target = case
    x = normal(np.random.default_rng(seed), src)
    res = check(lambda x: x.expand(target), lambda x: x.expand(target), x, loss=loss, seed=seed)
    assert res.burn_grads and res.burn_grads[0].dims() == list(src)


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


@SETTINGS
@given(shape=shapes(), seed=seeds, data=st.data(), loss=losses)
def test_slice(shape, seed, data, loss):
    k = data.draw(st.integers(1, len(shape)))
    ranges = [data.draw(burn_slice(n)) for n in shape[:k]]
    x = normal(np.random.default_rng(seed), shape)
    check(lambda x: x.slice(ranges), lambda x: reference_slice(x, ranges), x, loss=loss, seed=seed)


@SETTINGS
@given(shape=shapes(), seed=seeds, data=st.data(), loss=losses)
def test_slice_dim(shape, seed, data, loss):
    rank = len(shape)
    dim = rand_dim(data.draw, rank)
    r = data.draw(burn_slice(shape[dim]))
    x = normal(np.random.default_rng(seed), shape)
    check(lambda x: x.slice_dim(dim, r),
          lambda x: x.index_select(dim, torch.tensor(burn_range(r, shape[dim]), dtype=torch.long)),
          x, loss=loss, seed=seed)


def test_slice_negative_step_semantics():
    x = Tensor.from_data(np.arange(10.0), CPU)
    assert x.slice([slice(0, 5, -1)]).to_data().to_list() == [4.0, 3.0, 2.0, 1.0, 0.0]
    assert x.slice([slice(None, None, -3)]).to_data().to_list() == [9.0, 6.0, 3.0, 0.0]
    assert x.slice([slice(2, 8, -2)]).to_data().to_list() == [7.0, 5.0, 3.0]
    assert x.slice([slice(-4, None, -1)]).to_data().to_list() == [9.0, 8.0, 7.0, 6.0]
    assert x.slice([slice(1, 8, 3)]).to_data().to_list() == [1.0, 4.0, 7.0]


# -- cat / stack ------------------------------------------------------------------------------
tensor_modes = st.sampled_from(["tracked", "tracked", "untracked", "plain"])


def _wrap(mode, v):
    return v if mode == "tracked" else Const(v, mode)


@SETTINGS
@given(shape=shapes(), seed=seeds, data=st.data(), loss=multi_losses)
def test_cat(shape, seed, data, loss):
    rng = np.random.default_rng(seed)
    rank = len(shape)
    dim = rand_dim(data.draw, rank)
    sizes = data.draw(st.lists(st.integers(1, 4), min_size=1, max_size=4))
    ins = []
    for s in sizes:
        sh = list(shape)
        sh[dim] = s
        ins.append(_wrap(data.draw(tensor_modes), normal(rng, sh)))
    check(lambda *xs: Tensor.cat(list(xs), dim), lambda *xs: torch.cat(xs, dim), *ins,
          loss=loss, seed=seed)


@SETTINGS
@given(shape=shapes(max_rank=3), seed=seeds, data=st.data(), loss=multi_losses)
def test_stack(shape, seed, data, loss):
    rng = np.random.default_rng(seed)
    dim = data.draw(st.integers(-(len(shape) + 1), len(shape)))
    n = data.draw(st.integers(1, 4))
    ins = [_wrap(data.draw(tensor_modes), normal(rng, shape)) for _ in range(n)]
    check(lambda *xs: Tensor.stack(list(xs), dim), lambda *xs: torch.stack(xs, dim), *ins,
          loss=loss, seed=seed)


# =============================================================================================
# Indexing and masking
# =============================================================================================
@SETTINGS
@given(shape=shapes(), seed=seeds, data=st.data(), loss=losses)
def test_select_repeated_indices(shape, seed, data, loss):
    rank = len(shape)
    dim = rand_dim(data.draw, rank)
    n = shape[dim]
    idx = data.draw(st.lists(st.integers(0, n - 1), min_size=1, max_size=7))
    x = normal(np.random.default_rng(seed), shape)
    i = np.array(idx, dtype=np.int64)
    # indices as an Int input tensor (constant on the autodiff device) ...
    check(lambda x, i: x.select(dim, i), lambda x, i: x.index_select(dim, i), x, i, loss=loss, seed=seed)
    # ... and as a plain-device Int tensor
    check(lambda x: x.select(dim, Tensor.from_ints(idx, CPU)),
          lambda x: x.index_select(dim, torch.tensor(idx)), x, loss=loss, seed=seed)


def test_select_repeated_indices_accumulate():
    x = Tensor.from_data(np.arange(4.0), AD).require_grad()
    g = x.select(0, Tensor.from_ints([1, 1, 3, 1], AD)).sum().backward()
    assert x.grad(g).to_data().to_list() == [0.0, 3.0, 0.0, 1.0]


@SETTINGS
@given(shape=shapes(), seed=seeds, data=st.data(), loss=losses)
def test_gather(shape, seed, data, loss):
    rng = np.random.default_rng(seed)
    rank = len(shape)
    dim = rand_dim(data.draw, rank)
    ishape = list(shape)
    ishape[dim] = data.draw(st.integers(1, 5))
    idx = rng.integers(0, shape[dim], ishape)
    x = normal(rng, shape)
    check(lambda x, i: x.gather(dim, i), lambda x, i: torch.gather(x, dim, i), x, idx,
          loss=loss, seed=seed)


@SETTINGS
@given(shape=shapes(), seed=seeds, value=st.floats(-3, 3), loss=losses)
def test_mask_fill(shape, seed, value, loss):
    rng = np.random.default_rng(seed)
    x, m = normal(rng, shape), rng.random(shape) < 0.5
    check(lambda x, m: x.mask_fill(m, value), lambda x, m: x.masked_fill(m, value), x, m,
          loss=loss, seed=seed)


@SETTINGS
@given(shape=shapes(), seed=seeds, pattern=const_patterns, loss=losses)
def test_mask_where(shape, seed, pattern, loss):
    rng = np.random.default_rng(seed)
    x, v, m = normal(rng, shape), normal(rng, shape), rng.random(shape) < 0.5
    a, b = wrap_pair(pattern, x, v)
    # Burn: values where the mask is set, self elsewhere (torch.where's order is the other way)
    check(lambda x, v, m: x.mask_where(m, v), lambda x, v, m: torch.where(m, v, x), a, b, m,
          loss=loss, seed=seed)


# =============================================================================================
# Conversions
# =============================================================================================
@SETTINGS
@given(shape=shapes(), seed=seeds, loss=losses)
def test_cast_f64_f32_f64(shape, seed, loss):
    x = normal(np.random.default_rng(seed), shape)
    res = check(lambda x: x.cast(DType.F32).cast(DType.F64),
                lambda x: x.to(torch.float32).to(torch.float64), x, loss=loss, seed=seed)
    assert res.burn_grads[0].dtype() is DType.F64
    # an f32 leaf: the result is f32 and its gradient comes back as f32
    res = check(lambda x: x.cast(DType.F64).exp().cast(DType.F32),
                lambda x: x.to(torch.float64).exp().to(torch.float32),
                x.astype(np.float32), loss=loss, seed=seed, rtol=1e-6, atol=1e-6)
    assert res.burn_grads[0].dtype() is DType.F32


@SETTINGS
@given(shape=shapes(), seed=seeds, loss=losses)
def test_to_device_same_device(shape, seed, loss):
    x = normal(np.random.default_rng(seed), shape)
    res = check(lambda x: (x.to_device(CPU) * 2.0).to_device(AD).exp(),
                lambda x: (x.to("cpu") * 2.0).exp(), x, loss=loss, seed=seed)
    assert not res.burn_outputs[0].is_require_grad()


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
       loss=losses)
def test_mixed_graphs(name, n, seed, which, loss):
    rng = np.random.default_rng(seed)
    x, y = normal(rng, (n, n)), normal(rng, (n, n))
    if which == "y_const":
        y = Const(y)
    elif which == "x_const":
        x = Const(x)
    elif which == "y_plain":
        y = Const(y, "plain")
    bf, tf = MIXED[name]
    check(bf, tf, x, y, loss=loss, seed=seed)


def test_same_leaf_twice_accumulates():
    x = Tensor.from_data(np.array([1.0, -2.0, 3.0]), AD).require_grad()
    g = (x * x + x).sum().backward()
    assert x.grad(g).to_data().to_list() == [3.0, -3.0, 7.0]
    assert len(g) == 1


def test_tuple_outputs_with_shared_leaf():
    rng = np.random.default_rng(3)
    x = normal(rng, (3, 4))
    check(lambda x: (x.exp(), x.sum_dim(1), x * 3.0),
          lambda x: (x.exp(), x.sum(1, keepdim=True), x * 3.0), x)


def test_all_constant_inputs_give_untracked_output():
    rng = np.random.default_rng(4)
    res = check(lambda a, b: a * b + a.exp(), None, Const(normal(rng, (2, 3))),
                Const(normal(rng, (2, 3)), "plain"))
    assert not res.burn_outputs[0].is_tracked()
    assert res.burn_outputs[0].is_autodiff()


# -- random expression DAGs over a pool of same-shape tensors ---------------------------------
DAG_UNARY = [
    (lambda x: x.tanh(), torch.tanh),
    (lambda x: x.sin(), torch.sin),
    (lambda x: x.tanh().exp(), lambda x: x.tanh().exp()),
    (lambda x: activation.sigmoid(x), torch.sigmoid),
    (lambda x: x * 0.5, lambda x: x * 0.5),
    (lambda x: -x, lambda x: -x),
    (lambda x: x.square().add_scalar(1.0).sqrt(), lambda x: (x.square() + 1.0).sqrt()),
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


def _run_dag(steps, n_out, xs, side):
    pool = list(xs)
    for step in steps:
        if step[0] == "u":
            f = DAG_UNARY[step[1]][side]
            pool.append(f(pool[step[2]]))
        else:
            pool.append(DAG_BINARY[step[1]](pool[step[2]], pool[step[3]]))
    return tuple(pool[-n_out:])


@pytest.mark.parametrize("strategy", ["disabled", "balanced"])
@SETTINGS
@given(prog=dag_program(), shape=shapes(max_rank=3), seed=seeds, loss=multi_losses)
def test_random_dag(strategy, prog, shape, seed, loss):
    n_inputs, steps, n_out, modes = prog
    rng = np.random.default_rng(seed)
    xs = [_wrap(m, normal(rng, shape)) for m in modes]
    device = AD.gradient_checkpointing() if strategy == "balanced" else AD
    check(lambda *a: _run_dag(steps, n_out, a, 0), lambda *a: _run_dag(steps, n_out, a, 1), *xs,
          loss=loss, seed=seed, device=device)


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
    a, b = away_from_zero(rng, (3, 4)), away_from_zero(rng, (3, 4))
    a = a.astype(np.float32) if f32_first else a
    b = b if f32_first else b.astype(np.float32)
    bf, tf = MIXED_DTYPE[name]
    res = check(bf, tf, a, b, rtol=1e-5, atol=1e-6)
    assert res.burn_grads[0].to_torch().dtype == torch.from_numpy(a).dtype
    assert res.burn_grads[1].to_torch().dtype == torch.from_numpy(b).dtype
