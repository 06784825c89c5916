"""Graph-level properties and Burn's forward semantics, drawn by hypothesis.

Per-op forward values and gradients are the op-table spec's job (``tests/test_op_spec.py``: every
entry, broadcast patterns, both checkpointing strategies). This file checks what one row cannot:
gradients through random graphs (shared operands, several paths to a leaf, constants, mixed float
dtypes, random expression DAGs under both strategies) and Burn's own spelling of slices, selects
and ``mask_where`` against independent torch references (``ref=``).
"""
from __future__ import annotations

import numpy as np
import pytest
import torch
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from burn_torch import Device, Tensor, activation
from burn_torch.testing import Const, assert_grads_match_torch, covers
from burn_torch.testing.report import difference
from burn_torch.testing.strategies import dims, float_arrays, index_arrays, masks, shapes

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


def test_binary_gradient_reduced_to_each_input_shape():
    rng = np.random.default_rng(0)
    a, b = rng.standard_normal((3, 1, 4)), rng.uniform(0.5, 2.0, (1, 5, 1))
    for bf, tf in BINARY.values():
        res = check(bf, a, b, ref=tf or bf)
        assert res.grads[0].dims() == [3, 1, 4]
        assert res.grads[1].dims() == [1, 5, 1]


def test_clamp_gradient_at_the_bounds_passes_through():
    # Burn (like torch) lets the gradient through where x equals a bound.
    x = np.array([-1.0, -0.5, 0.0, 0.5, 1.0, 2.0])
    res = check(lambda x: x.clamp(-0.5, 1.0), x, loss="sum", numeric=False)  # kinks hit on purpose
    assert res.grads[0].to_data().to_list() == [0.0, 1.0, 1.0, 1.0, 1.0, 0.0]


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


@covers("mask_where")
@SETTINGS
@given(shape=shapes(), seed=seeds, pattern=const_patterns, loss=losses, data=st.data())
def test_mask_where(shape, seed, pattern, loss, data):
    x, v, m = data.draw(float_arrays(shape)), data.draw(float_arrays(shape)), data.draw(masks(shape))
    a, b = wrap_pair(pattern, x, v)
    # Burn: values where the mask is set, self elsewhere (torch.where's order is the other way)
    check(lambda x, v, m: x.mask_where(m, v), a, b, m, ref=lambda x, v, m: torch.where(m, v, x),
          loss=loss, seed=seed)


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
