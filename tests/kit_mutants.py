"""Plausible bugs for the testing kit's mutation tests (tests/test_testing_kit_mutations.py) and
the table of which mode catches each (benchmarks/testing_kit_mutations.py writes
docs/testing-kit-mutations.md).

A mutant is a bug in a backward rule or a forward kernel of the op table (patched in for the
duration of the check), in Burn's semantics (which tied index wins, a shape, a rounding rule), or
in a user's composite (the burn_torch code is wrong, its torch twin right). Each records the
modes that catch it: ``reference`` (assert_matches_torch against the torch twin), ``oracle``
(assert_grads_match_torch, with its finite-difference check) and ``numeric``
(check_grads_numerically, element by element).
"""
from __future__ import annotations

import contextlib
import math
from dataclasses import dataclass, field
from typing import Callable

import numpy as np
import torch
import torch.nn.functional as F

from burn_torch import activation
from burn_torch.ops import OPS
from burn_torch.ops import reduce as reduce_ops
from burn_torch.testing import twins

MODES = ("reference", "oracle", "numeric")
KINDS = ("backward rule", "forward kernel", "Burn semantics", "user composite")

_rng = np.random.default_rng(0)
X = _rng.standard_normal((3, 4))
Y = _rng.standard_normal((3, 4))
SQ = _rng.standard_normal((3, 3))
POS = np.abs(X) + 0.5
EDGES = np.array([[-1.0, 0.0, 1.0, 0.5], [2.5, -0.5, 1.5, -2.0], [0.3, -1.2, 0.9, 1.0]])
TIED = np.array([[1.0, 3.0, 3.0, 0.0], [2.0, 2.0, -1.0, 0.5], [0.0, 1.0, 1.0, 1.0]])
IDX = np.array([[0, 0, 2, 1]])
MASK = X > 0


@dataclass(frozen=True)
class Mutant:
    """One bug: ``patch()`` applies it (a context manager; a composite bug patches nothing),
    ``burn`` is the burn_torch code checked, ``torch`` its correct torch twin, ``correct`` the
    correct burn_torch code (the control: it must pass every mode); ``caught``: the modes that
    catch the bug."""

    name: str
    kind: str
    burn: Callable
    torch: Callable
    inputs: tuple
    caught: frozenset
    patch: Callable = contextlib.nullcontext
    correct: Callable | None = None
    options: dict = field(default_factory=dict)
    at_edges: bool = False  # inputs at kinks or jumps: element-wise differences do not apply

    @property
    def control(self) -> Callable:
        return self.correct or self.burn


@contextlib.contextmanager
def _swap(obj, attr, value):
    saved = getattr(obj, attr)
    setattr(obj, attr, value)
    try:
        yield
    finally:
        setattr(obj, attr, saved)


def rule(op: str, index: int, fn: Callable) -> Callable:
    """A patch replacing input ``index``'s backward rule of entry ``op`` by ``fn(g, s)``."""
    def patch():
        rules = OPS[op].rules
        return _swap(OPS[op], "rules", tuple(fn if i == index else r for i, r in enumerate(rules)))
    return patch


def kernel(op: str, fn: Callable) -> Callable:
    """A patch replacing entry ``op``'s forward kernel by ``fn``."""
    return lambda: _swap(OPS[op], "forward", fn)


def attribute(module, name: str, value) -> Callable:
    return lambda: _swap(module, name, value)


def _expand(g, shape):
    return g.expand(shape).clone()


ALL = frozenset(MODES)
REF = frozenset({"reference"})
REF_ORACLE = frozenset({"reference", "oracle"})
REF_NUMERIC = frozenset({"reference", "numeric"})


def _ln(x, unbiased=False):
    var = x.var(1) if unbiased else x.var_bias(1)
    return (x - x.mean_dim(1)) / (var + 1e-5).sqrt()


def _attention(q, k, scale=True):
    s = q @ k.transpose()
    return activation.softmax(s / math.sqrt(4) if scale else s, 1) @ k


def _t_attention(q, k):
    return torch.softmax(q @ k.T / math.sqrt(4), 1) @ k


MUTANTS: tuple[Mutant, ...] = (
    # -- backward rules ---------------------------------------------------------------------------
    Mutant("exp rule forgets the factor", "backward rule", lambda x: x.exp(), torch.exp, (X,), ALL,
           rule("exp", 0, lambda g, s: g)),
    Mutant("sin rule with the wrong sign", "backward rule", lambda x: x.sin(), torch.sin, (X,), ALL,
           rule("sin", 0, lambda g, s: -g * s.x.cos())),
    Mutant("tanh rule forgets the square", "backward rule", lambda x: x.tanh(), torch.tanh, (X,), ALL,
           rule("tanh", 0, lambda g, s: g * (1 - s.out))),
    Mutant("div rule for the divisor without the minus", "backward rule", lambda a, b: a / b,
           lambda a, b: a / b, (X, POS), ALL, rule("div", 1, lambda g, s: g * s.lhs / (s.rhs * s.rhs))),
    Mutant("matmul rule without the transpose", "backward rule", lambda a, b: a @ b,
           lambda a, b: a @ b, (SQ, SQ.T + 1), ALL, rule("matmul", 0, lambda g, s: g @ s.rhs)),
    Mutant("sigmoid rule forgets (1 - out)", "backward rule", activation.sigmoid, torch.sigmoid,
           (X,), ALL, rule("sigmoid", 0, lambda g, s: g * s.out)),
    Mutant("log rule copied from log1p", "backward rule", lambda x: x.log(), torch.log, (POS,), ALL,
           rule("log", 0, lambda g, s: g / (s.x + 1))),
    Mutant("sqrt rule forgets the 1/2", "backward rule", lambda x: x.sqrt(), torch.sqrt, (POS,), ALL,
           rule("sqrt", 0, lambda g, s: g / s.out)),
    Mutant("relu rule passes everything", "backward rule", activation.relu, torch.relu, (X,), ALL,
           rule("relu", 0, lambda g, s: g)),
    Mutant("mean_dim rule divides by n - 1", "backward rule", lambda x: x.mean_dim(1),
           lambda x: x.mean(1, keepdim=True), (X,), ALL,
           rule("mean_dim", 0, lambda g, s: _expand(g / (s.x_shape[s.dim] - 1), s.x_shape))),
    Mutant("powf_scalar rule forgets the exponent", "backward rule", lambda x: x.powf_scalar(3.0),
           lambda x: x ** 3.0, (X,), ALL, rule("powf_scalar", 0, lambda g, s: g * s.x ** (s.exponent - 1))),
    Mutant("softmax rule forgets the sum term", "backward rule", lambda x: activation.softmax(x, 1),
           lambda x: torch.softmax(x, 1), (X,), ALL, rule("softmax", 0, lambda g, s: g * s.out)),
    Mutant("log_softmax rule forgets the sum", "backward rule", lambda x: activation.log_softmax(x, 1),
           lambda x: torch.log_softmax(x, 1), (X,), ALL,
           rule("log_softmax", 0, lambda g, s: g - s.out.exp() * g)),
    Mutant("abs rule forgets the sign", "backward rule", lambda x: x.abs(), torch.abs, (X,), ALL,
           rule("abs", 0, lambda g, s: g)),
    Mutant("cumsum rule without the flips", "backward rule", lambda x: x.cumsum(1),
           lambda x: x.cumsum(1), (X,), ALL, rule("cumsum", 0, lambda g, s: g.cumsum(s.dim))),
    Mutant("gather rule overwrites repeated indices", "backward rule",
           lambda x, i: x.gather(1, i), lambda x, i: x.gather(1, i), (X, np.repeat(IDX, 3, 0)), ALL,
           rule("gather", 0, lambda g, s: g.new_zeros(s.x_shape).scatter(s.dim, s.indices, g))),
    Mutant("select rule overwrites repeated indices", "backward rule",
           lambda x, i: x.select(1, i), lambda x, i: x.index_select(1, i), (X, np.array([0, 0, 2])), ALL,
           rule("select", 0, lambda g, s: g.new_zeros(s.x_shape).index_copy(s.dim, s.indices, g))),
    Mutant("var rule ignores the correction", "backward rule", lambda x: x.var(1),
           lambda x: x.var(1, keepdim=True), (X,), ALL,
           rule("var", 0, lambda g, s: (s.x - s.x.mean(s.dim, keepdim=True)) * g * 2 / s.x.shape[s.dim])),
    Mutant("erf rule forgets 2/sqrt(pi)", "backward rule", lambda x: x.erf(), torch.erf, (X,), ALL,
           rule("erf", 0, lambda g, s: g * torch.exp(-s.x.square()))),
    Mutant("square rule forgets the 2", "backward rule", lambda x: x.square(), torch.square, (X,), ALL,
           rule("square", 0, lambda g, s: g * s.x)),
    Mutant("silu rule forgets the product rule", "backward rule", activation.silu, F.silu, (X,), ALL,
           rule("silu", 0, lambda g, s: g * torch.sigmoid(s.x))),
    Mutant("gelu rule of the tanh approximation", "backward rule", activation.gelu, F.gelu, (X,), ALL,
           rule("gelu", 0, lambda g, s: torch.ops.aten.gelu_backward(g, s.x, approximate="tanh"))),
    Mutant("prod rule divides by x (NaN at zeros)", "backward rule", lambda x: x.prod(),
           lambda x: x.prod().reshape(1), (EDGES,), ALL,
           rule("prod", 0, lambda g, s: g * s.x.prod() / s.x)),
    Mutant("mask_where rule passes the values' gradient everywhere", "backward rule",
           lambda x, m, v: x.mask_where(m, v), lambda x, m, v: torch.where(m, v, x), (X, MASK, Y), ALL,
           rule("mask_where", 1, lambda g, s: g)),
    Mutant("scatter MAX rule gives tied values nothing", "Burn semantics",
           lambda x, i, v: x.scatter(1, i, v, _update("MAX")),
           lambda x, i, v: twins.scatter_reduce(x, 1, i, v, "amax"),
           (TIED[:1], np.array([[1, 1]]), np.array([[3.0, 3.0]])), REF_ORACLE,
           rule("scatter_max", 1, lambda g, s: torch.where(s.values > s.place.take(s.out),
                                                           s.place.take(g), 0)),
           options={"numeric": False}),
    Mutant("leaky_relu rule follows torch at 0", "Burn semantics",
           lambda x: activation.leaky_relu(x, 0.1), lambda x: twins.leaky_relu(x, 0.1), (EDGES,),
           REF_ORACLE, rule("leaky_relu", 0, lambda g, s: torch.where(s.x > 0, g, g * s.slope)),
           at_edges=True),
    Mutant("clamp rule excludes the bounds", "Burn semantics", lambda x: x.clamp(-1.0, 1.0),
           lambda x: x.clamp(-1.0, 1.0), (EDGES,), REF_ORACLE,
           rule("clamp", 0, lambda g, s: torch.where((s.x > s.min) & (s.x < s.max), g, 0)),
           at_edges=True),
    # -- forward kernels --------------------------------------------------------------------------
    Mutant("exp kernel is expm1 (the rule reads the output)", "forward kernel", lambda x: x.exp(),
           torch.exp, (X,), ALL,
           kernel("exp", torch.expm1)),
    Mutant("gelu kernel is the tanh approximation", "forward kernel", activation.gelu, F.gelu, (X,),
           ALL, kernel("gelu", lambda x: F.gelu(x, approximate="tanh"))),
    Mutant("sigmoid kernel with the wrong sign", "forward kernel", activation.sigmoid, torch.sigmoid,
           (X,), ALL, kernel("sigmoid", lambda x: 1 / (1 + torch.exp(x)))),
    Mutant("mean_dim kernel divides by n - 1", "forward kernel", lambda x: x.mean_dim(1),
           lambda x: x.mean(1, keepdim=True), (X,), ALL,
           kernel("mean_dim", lambda x, dim: x.sum(dim, keepdim=True) / (x.shape[dim] - 1))),
    Mutant("cumsum kernel is exclusive", "forward kernel", lambda x: x.cumsum(1),
           lambda x: x.cumsum(1), (X,), ALL, kernel("cumsum", lambda x, dim: torch.cumsum(x, dim) - x)),
    Mutant("leaky_relu kernel ignores the slope", "forward kernel",
           lambda x: activation.leaky_relu(x, 0.2), lambda x: F.leaky_relu(x, 0.2), (X,), ALL,
           kernel("leaky_relu", lambda x, slope: F.leaky_relu(x, 0.01))),
    Mutant("softmax kernel without the max shift overflows", "forward kernel",
           lambda x: activation.softmax(x, 1), lambda x: torch.softmax(x, 1), (X * 1000,), REF_NUMERIC,
           kernel("softmax", lambda x, dim: x.exp() / x.exp().sum(dim, keepdim=True))),
    Mutant("var kernel ignores the correction", "forward kernel", lambda x: x.var_bias(1),
           lambda x: x.var(1, keepdim=True, correction=0), (X,), ALL,
           kernel("var", lambda x, dim, correction: x.var(dim, keepdim=True, correction=1))),
    Mutant("tanh kernel computes in float32", "forward kernel", lambda x: x.tanh(), torch.tanh, (X,),
           ALL, kernel("tanh", lambda x: torch.tanh(x.float()).to(x.dtype))),
    Mutant("log kernel is log2", "forward kernel", lambda x: x.log(), torch.log, (POS,), ALL,
           kernel("log", torch.log2)),
    # -- Burn semantics ---------------------------------------------------------------------------
    Mutant("max() gives the gradient to the last tied maximum", "Burn semantics", lambda x: x.max(),
           twins.max, (TIED,), REF,
           attribute(reduce_ops, "flat_argmax", lambda x: (x.numel() - 1 - torch.argmax(x.flatten().flip(0))).reshape(1)),
           options={"numeric": False}),
    Mutant("round halves away from zero", "Burn semantics", lambda x: x.round(), torch.round,
           (EDGES,), REF, kernel("round", lambda x: torch.sign(x) * torch.floor(x.abs() + 0.5)),
           at_edges=True),
    Mutant("sum() has shape [] instead of [1]", "Burn semantics", lambda x: x.sum(),
           lambda x: x.sum().reshape(1), (X,), REF, kernel("sum", lambda x: torch.sum(x))),
    Mutant("remainder truncates (fmod) instead of flooring", "Burn semantics",
           lambda a, b: a.remainder(b), torch.remainder, (X * 3, POS), REF_ORACLE,
           kernel("remainder", torch.fmod), options={"numeric": False}),
    # -- user composites --------------------------------------------------------------------------
    Mutant("softmax over the wrong dim", "user composite", lambda x: activation.softmax(x, 0),
           lambda x: torch.softmax(x, 1), (X,), REF, correct=lambda x: activation.softmax(x, 1)),
    Mutant("attention without the 1/sqrt(d) scale", "user composite",
           lambda q, k: _attention(q, k, scale=False), _t_attention, (X, Y), REF, correct=_attention),
    Mutant("layer norm with the unbiased variance", "user composite",
           lambda x: _ln(x, unbiased=True), lambda x: F.layer_norm(x, (4,)), (X,), REF, correct=_ln),
    Mutant("a stray detach on the normaliser", "user composite",
           lambda x: x / x.exp().sum_dim(1).detach(), lambda x: x / x.exp().sum(1, keepdim=True), (X,),
           REF_NUMERIC, correct=lambda x: x / x.exp().sum_dim(1), options={"numeric": False}),
    Mutant("logsumexp forgets to add the max back", "user composite",
           lambda x: (x - x.max_dim(1)).exp().sum_dim(1).log(),
           lambda x: torch.logsumexp(x, 1, keepdim=True), (X,), REF,
           correct=lambda x: (x - x.max_dim(1)).exp().sum_dim(1).log() + x.max_dim(1)),
    Mutant("masked mean divides by every element", "user composite",
           lambda x, m: x.mask_fill(m.bool_not(), 0.0).sum_dim(1) / 4.0,
           lambda x, m: (x * m).sum(1, keepdim=True) / m.sum(1, keepdim=True), (X, MASK | (np.arange(4) == 0)),
           REF, correct=lambda x, m: x.mask_fill(m.bool_not(), 0.0).sum_dim(1) / m.float().sum_dim(1)),
    Mutant("gelu where the twin uses the tanh approximation", "user composite", activation.gelu,
           lambda x: F.gelu(x, approximate="tanh"), (X,), REF, correct=activation.gelu_tanh),
    Mutant("SwiGLU with sigmoid instead of silu", "user composite",
           lambda a, b: a * activation.sigmoid(b), lambda a, b: a * F.silu(b), (X, Y), REF,
           correct=lambda a, b: a * activation.silu(b)),
    Mutant("GRU update with z and 1 - z swapped", "user composite",
           lambda h, n: activation.sigmoid(h) * n + (1.0 - activation.sigmoid(h)) * h,
           lambda h, n: (1 - torch.sigmoid(h)) * n + torch.sigmoid(h) * h, (X, Y), REF,
           correct=lambda h, n: (1.0 - activation.sigmoid(h)) * n + activation.sigmoid(h) * h),
    Mutant("MSE with a sum instead of a mean", "user composite",
           lambda a, b: (a - b).square().sum(), lambda a, b: F.mse_loss(a, b).reshape(1), (X, Y), REF,
           correct=lambda a, b: (a - b).square().mean()),
    Mutant("residual connection forgotten", "user composite", lambda x: x.tanh(),
           lambda x: x + torch.tanh(x), (X,), REF, correct=lambda x: x + x.tanh()),
    Mutant("epsilon outside the square root", "user composite",
           lambda x: x / (x.var_bias(1).sqrt() + 1e-5), lambda x: x / torch.sqrt(x.var(1, keepdim=True, correction=0) + 1e-5),
           (X,), REF, correct=lambda x: x / (x.var_bias(1) + 1e-5).sqrt()),
)


def _update(name: str):
    from burn_torch.ops.index import IndexingUpdateOp

    return IndexingUpdateOp[name]


def applicable(mutant: Mutant) -> tuple[str, ...]:
    """The modes that apply: ``numeric`` (element-wise finite differences) not where the check
    turns finite differences off (a point where Burn's rule is no derivative, a jump, a detach)."""
    return MODES if mutant.options.get("numeric", True) and not mutant.at_edges else MODES[:2]


def run_mode(mode: str, fn: Callable, mutant: Mutant) -> bool:
    """Whether ``mode`` passes on ``fn`` (a burn_torch function) for the mutant's inputs; any
    exception other than AssertionError propagates."""
    from burn_torch.testing import assert_grads_match_torch, assert_matches_torch, check_grads_numerically

    try:
        if mode == "reference":
            assert_matches_torch(fn, mutant.torch, *mutant.inputs, **mutant.options)
        elif mode == "oracle":
            assert_grads_match_torch(fn, *mutant.inputs, **mutant.options)
        else:
            check_grads_numerically(fn, *mutant.inputs)
    except AssertionError:
        return False
    return True


def catching_modes(mutant: Mutant) -> frozenset:
    """The applicable modes that fail with the bug in place."""
    with mutant.patch():
        return frozenset(m for m in applicable(mutant) if not run_mode(m, mutant.burn, mutant))
