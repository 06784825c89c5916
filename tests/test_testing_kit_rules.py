"""Burn's rules are the spec: every row of burn_rules.BURN_RULES is a real difference from torch
autograd that the engine follows, its twin gives Burn's gradient, the op-table oracle follows
it (and would follow torch's rule without it), and the migration guide lists it."""
from __future__ import annotations

import contextlib
from pathlib import Path

import numpy as np
import pytest
import torch
import torch.nn.functional as F

from burn_torch import Device, Tensor, activation
from burn_torch.ops import OPS
from burn_torch.ops.index import IndexingUpdateOp as U
from burn_torch.testing import BURN_RULES, assert_grads_match_torch, assert_matches_torch, twins

ROOT = Path(__file__).resolve().parent.parent
AD = Device.cpu().autodiff()
IDX = torch.tensor([0, 0])
RULES = {r.id: r for r in BURN_RULES}


class Case:
    """A row's concrete point: the burn_torch function, plain torch's and the twin, inputs."""

    def __init__(self, burn, plain, twin, *inputs):
        self.burn, self.plain, self.twin, self.inputs = burn, plain, twin, inputs


CASES = {
    "leaky_relu_at_zero": Case(lambda x: activation.leaky_relu(x, 0.1),
                               lambda x: F.leaky_relu(x, 0.1), lambda x: twins.leaky_relu(x, 0.1),
                               np.array([0.0, 1.0, -1.0])),
    "max_min_ties": Case(lambda x: x.max() + x.min(), lambda x: x.max() + x.min(),
                         lambda x: twins.max(x) + twins.min(x), np.array([2.0, 2.0, 1.0, 1.0])),
    "scatter_extremum_ties": Case(
        lambda x, v: x.scatter(0, IDX, v, U.MAX) + x.scatter(0, IDX, v, U.MIN),
        lambda x, v: (x.scatter_reduce(0, IDX, v, "amax", include_self=True)
                      + x.scatter_reduce(0, IDX, v, "amin", include_self=True)),
        lambda x, v: twins.scatter_reduce(x, 0, IDX, v, "amax") + twins.scatter_reduce(x, 0, IDX, v, "amin"),
        np.array([1.0, 0.0]), np.array([1.0, 1.0])),
    "scatter_mul_repeated": Case(
        lambda x, v: x.scatter(0, IDX, v, U.MUL),
        lambda x, v: x.scatter_reduce(0, IDX, v, "prod", include_self=True),
        lambda x, v: twins.scatter_reduce(x, 0, IDX, v, "prod"),
        np.array([3.0, 5.0]), np.array([2.0, 7.0])),
}


def test_every_row_has_a_case():
    assert sorted(CASES) == sorted(r.id for r in BURN_RULES)


def test_every_op_a_row_names_is_in_the_op_table():
    assert [op for r in BURN_RULES for op in r.ops if op not in OPS] == []


def _torch_grads(fn, inputs):
    ts = [torch.tensor(x, requires_grad=True) for x in inputs]
    return [g.tolist() for g in torch.autograd.grad(fn(*ts).sum(), ts)]


def _burn_grads(fn, inputs):
    ts = [Tensor.from_data(torch.tensor(x), AD).require_grad() for x in inputs]
    grads = fn(*ts).sum().backward()
    return [t.grad(grads).to_data().to_list() for t in ts]


@pytest.mark.parametrize("row", sorted(CASES))
def test_the_engine_gives_the_twins_gradient(row):
    case = CASES[row]
    assert _burn_grads(case.burn, case.inputs) == _torch_grads(case.twin, case.inputs)


@pytest.mark.parametrize("row", sorted(CASES))
def test_plain_torch_autograd_differs_there(row):
    case = CASES[row]
    assert _torch_grads(case.plain, case.inputs) != _torch_grads(case.twin, case.inputs)


@pytest.mark.parametrize("row", sorted(CASES))
def test_the_reference_passes_with_the_twin_and_fails_with_plain_torch(row):
    case = CASES[row]
    numeric = RULES[row].derivative
    assert_matches_torch(case.burn, case.twin, *case.inputs, loss="sum", numeric=numeric)
    with pytest.raises(AssertionError, match="gradient of"):
        assert_matches_torch(case.burn, case.plain, *case.inputs, loss="sum", numeric=numeric)


@pytest.mark.parametrize("row", sorted(CASES))
def test_the_op_table_oracle_follows_burn_at_the_point(row):
    case = CASES[row]
    assert_grads_match_torch(case.burn, *case.inputs, loss="sum", numeric=RULES[row].derivative)


@pytest.mark.parametrize("row", ["leaky_relu_at_zero", "scatter_extremum_ties", "scatter_mul_repeated"])
def test_without_the_table_the_oracle_follows_torch_and_fails_correct_code(row):
    case = CASES[row]
    with pytest.raises(AssertionError, match="gradient of"):
        assert_grads_match_torch(case.burn, *case.inputs, loss="sum", burn_rules=False, numeric=False)


@contextlib.contextmanager
def rule_replaced(name, index, fn):
    """Runs the body with input ``index``'s backward rule of entry ``name`` replaced by ``fn``
    (reading only what the original rule reads)."""
    op = OPS[name]
    saved = op.rules
    op.rules = tuple(fn if i == index else r for i, r in enumerate(saved))
    try:
        yield
    finally:
        op.rules = saved


def test_a_leaky_relu_rule_following_torch_at_zero_fails_the_oracle():
    with rule_replaced("leaky_relu", 0, lambda g, s: torch.where(s.x > 0, g, g * s.slope)):
        with pytest.raises(AssertionError, match="gradient of x"):
            assert_grads_match_torch(CASES["leaky_relu_at_zero"].burn, np.array([0.0, 1.0, -1.0]),
                                     loss="sum", strategies=())


def test_the_migration_guide_lists_every_row():
    guide = (ROOT / "migration_guide" / "6-testing-against-torch.md").read_text(encoding="utf-8")
    assert [r.id for r in BURN_RULES if f"| `{r.id}` |" not in guide] == []


@pytest.mark.parametrize("row", [r for r in sorted(CASES) if RULES[r].derivative])
def test_finite_differences_call_a_derivative_rows_point_non_smooth_not_wrong(row):
    case = CASES[row]
    res = assert_matches_torch(case.burn, case.twin, *case.inputs, loss="sum", numeric=True)
    assert [n for n in res.notes if n.startswith("non-smooth point")]
