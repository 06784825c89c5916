"""Property tests: Burn's autodiff invariants hold over random sequences of calls.

For every float tensor at every step (seed 000):

    is_require_grad() => is_tracked() => is_autodiff()
    (gradient_checkpointing_strategy() is not None) == is_autodiff()

Each call is also checked against a small reference model of the rules (association, strategy,
leaf / intermediate / untracked, consumed steps), so every exception must be an AutodiffError
subclass raised exactly where the rules say, and nowhere else.
"""
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from burn_torch import (AutodiffDisabledError, AutodiffError, GraphConsumedError,
                        NonLeafRequireGradError, NotTrackedError, StrategyMismatchError, Tensor)
from helpers import AD, BALANCED, CK, CPU, DISABLED


class MNode:
    """Model graph node: a leaf (parents None) or an intermediate step."""

    __slots__ = ("parents", "consumed")

    def __init__(self, parents=None):
        self.parents = parents
        self.consumed = False

    @property
    def leaf(self):
        return self.parents is None


class M:
    """Model of one tensor: its strategy (None = no autodiff association) and its node."""

    __slots__ = ("strategy", "node")

    def __init__(self, strategy, node=None):
        self.strategy = strategy
        self.node = node


def check_invariants(t, m=None):
    ad, tracked, req = t.is_autodiff(), t.is_tracked(), t.is_require_grad()
    strategy = t.gradient_checkpointing_strategy()
    assert (not req) or tracked
    assert (not tracked) or ad
    assert (strategy is not None) == ad
    if m is not None:
        assert strategy is m.strategy
        assert tracked == (m.node is not None)
        assert req == (m.node is not None and m.node.leaf)


def reachable(root):
    seen, stack = [root], [root]
    while stack:
        n = stack.pop()
        for p in n.parents or ():
            if all(p is not s for s in seen):
                seen.append(p)
                stack.append(p)
    return seen


def derived(m, op_node=True):
    """A unary op's result: same association, an intermediate step if the input is tracked."""
    return M(m.strategy, MNode([m.node]) if (op_node and m.node is not None) else None)


def expect(exc, fn):
    """Runs fn; exc is the exception the model predicts (None: none may be raised)."""
    if exc is None:
        return fn()
    with pytest.raises(exc) as info:
        fn()
    assert isinstance(info.value, AutodiffError)
    assert isinstance(info.value, RuntimeError)
    return None


def step(pool, models, action, i, j, choice):
    t, m = pool[i], models[i]
    out = None
    if action == "autodiff":
        out = t.autodiff()
        mo = m if m.strategy is not None else M(DISABLED)
        if m.strategy is not None:
            assert out is t
    elif action == "without_autodiff":
        out = t.without_autodiff() if choice else t.inner()
        mo = M(None)
    elif action in ("require_grad", "set_require_grad_true"):
        if m.node is not None and not m.node.leaf:
            exc = NonLeafRequireGradError
        elif m.strategy is None:
            exc = AutodiffDisabledError
        else:
            exc = None
        call = t.require_grad if action == "require_grad" else (lambda: t.set_require_grad(True))
        out = expect(exc, call)
        if exc is not None:
            return
        mo = m if m.node is not None else M(m.strategy, MNode())
        if m.node is not None:
            assert out is t
    elif action == "set_require_grad_false":
        out = t.set_require_grad(False)
        mo = M(m.strategy)
    elif action == "detach":
        out = t.detach()
        mo = M(m.strategy, MNode() if (m.node is not None and m.node.leaf) else None)
    elif action == "with_strategy":
        strategy = BALANCED if choice else DISABLED
        out = expect(None if m.strategy is not None else AutodiffDisabledError,
                     lambda: t.with_gradient_checkpointing_strategy(strategy))
        if m.strategy is None:
            return
        mo = M(strategy, m.node)
    elif action == "to_device":
        out = t.to_device(AD if choice else CPU)
        mo = derived(m)
    elif action == "mul_scalar":
        out = t.mul_scalar(0.5)
        mo = derived(m)
    elif action == "exp":
        out = t.exp()
        mo = derived(m)
    elif action == "clone":
        out = t.clone()
        mo = m
    elif action == "int_float":
        mid = t.int()
        check_invariants(mid, M(m.strategy))
        out = mid.float()
        mo = M(m.strategy)
    elif action == "add":
        u, mu = pool[j], models[j]
        if m.strategy is not None and mu.strategy is not None and m.strategy is not mu.strategy:
            expect(StrategyMismatchError, lambda: t + u)
            return
        out = t + u
        parents = [n for n in (m.node, mu.node) if n is not None]
        mo = M(m.strategy or mu.strategy, MNode(parents) if parents else None)
    elif action == "backward":
        if m.node is None:
            expect(NotTrackedError, t.backward)
            return
        nodes = reachable(m.node)
        if any(n.consumed for n in nodes):
            expect(GraphConsumedError, t.backward)
            return
        grads = t.backward()
        for n in nodes:
            if not n.leaf:
                n.consumed = True
        leaves = [n for n in nodes if n.leaf]
        assert len(grads) == len(leaves)
        for other, mother in zip(pool, models):
            g = other.grad(grads)
            reached = mother.node is not None and any(mother.node is n for n in leaves)
            assert (g is not None) == reached
            if g is not None:
                check_invariants(g, M(None))
                assert g.dims() == other.dims()
        return
    else:  # pragma: no cover
        raise AssertionError(action)
    check_invariants(out, mo)
    pool.append(out)
    models.append(mo)


ACTIONS = ["autodiff", "without_autodiff", "require_grad", "set_require_grad_true",
           "set_require_grad_false", "detach", "with_strategy", "to_device", "mul_scalar", "exp",
           "clone", "int_float", "add", "backward"]

calls = st.lists(
    st.tuples(st.sampled_from(ACTIONS), st.integers(0, 63), st.integers(0, 63), st.booleans()),
    min_size=1, max_size=30)


def fresh_pool():
    values = np.array([0.5, -0.25], dtype=np.float64)
    pool = [Tensor.from_data(values, CPU), Tensor.from_data(values, AD),
            Tensor.from_data(values, CK), Tensor.from_data(values, AD).require_grad()]
    models = [M(None), M(DISABLED), M(BALANCED), M(DISABLED, MNode())]
    return pool, models


@settings(max_examples=100, deadline=None)
@given(calls)
def test_invariants_and_rules_hold_for_every_tensor_at_every_step(seq):
    pool, models = fresh_pool()
    for t, m in zip(pool, models):
        check_invariants(t, m)
    for action, i, j, choice in seq:
        step(pool, models, action, i % len(pool), j % len(pool), choice)
        for t, m in zip(pool, models):
            check_invariants(t, m)


@settings(max_examples=100, deadline=None)
@given(calls)
def test_backward_after_random_calls_consumes_exactly_the_reachable_steps(seq):
    """Every call sequence followed by a backward from each pool tensor stays consistent."""
    pool, models = fresh_pool()
    for action, i, j, choice in seq:
        step(pool, models, action, i % len(pool), j % len(pool), choice)
    for k in range(len(pool)):
        step(pool, models, "backward", k, 0, False)
    for t, m in zip(pool, models):
        check_invariants(t, m)


def test_model_detects_a_wrong_prediction():
    """Guard: the checker can fail (a tracked leaf is not modelled as untracked)."""
    x = Tensor.from_data([1.0], AD).require_grad()
    with pytest.raises(AssertionError):
        check_invariants(x, M(DISABLED))
