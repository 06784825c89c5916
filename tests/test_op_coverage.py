"""Every op-table entry is tested.

A differentiable op (``backward`` not None) needs a property test that declares it with
``burn_torch.testing.covers(...)`` (the declarations are collected by importing every
tests/test_*.py module). A non-differentiable op (``backward`` None) must produce no graph: its
result on a tracked input is untracked; each one is run here through a public call.
"""
from __future__ import annotations

import importlib
import pathlib
import sys

import numpy as np
import pytest

from burn_torch import Device, Tensor
from burn_torch.ops import OPS
from burn_torch.testing import covered_ops

TESTS = pathlib.Path(__file__).parent
AD = Device.cpu().autodiff()


def _import_test_modules() -> dict[str, str]:
    """Imports every tests/test_*.py module (registering their ``covers``); returns import errors."""
    if str(TESTS) not in sys.path:
        sys.path.insert(0, str(TESTS))
    errors = {}
    for path in sorted(TESTS.glob("test_*.py")):
        try:
            importlib.import_module(path.stem)
        except Exception as e:  # reported by the coverage test, which it may explain
            errors[path.name] = f"{type(e).__name__}: {e}"
    return errors


@pytest.fixture(scope="module")
def covered():
    errors = _import_test_modules()
    return covered_ops(), errors


def test_every_differentiable_op_has_a_covering_property_test(covered):
    cov, errors = covered
    missing = sorted(name for name, op in OPS.items() if op.backward is not None and name not in cov)
    hint = f"; test modules that failed to import: {errors}" if errors else ""
    assert not missing, (
        f"{len(missing)} differentiable ops have no property test declaring them with "
        f"burn_torch.testing.covers(...): {', '.join(missing)}{hint}")


def test_covers_names_only_ops_of_the_table(covered):
    cov, _ = covered
    unknown = {name: sorted(tests) for name, tests in cov.items() if name not in OPS}
    assert not unknown, f"covers(...) names ops that are not in burn_torch.ops.OPS: {unknown}"


# -- non-differentiable ops: a public call per op, on a tracked (3, 4) float64 leaf ------------
NON_DIFFERENTIABLE_CALLS = {
    "equal": lambda x: x.equal(x * 2.0),
    "not_equal": lambda x: x.not_equal_elem(0.5),
    "greater": lambda x: x.greater(x * 2.0),
    "greater_equal": lambda x: x.greater_equal_elem(0.0),
    "lower": lambda x: x.lower(x * 2.0),
    "lower_equal": lambda x: x.lower_equal_elem(0.0),
    "is_nan": lambda x: x.is_nan(),
    "is_inf": lambda x: x.is_inf(),
    "is_finite": lambda x: x.is_finite(),
    "is_close": lambda x: x.is_close(x * 2.0),
    "contains_nan": lambda x: x.contains_nan(),
    "bool_and": lambda x: x.greater_elem(0.0).bool_and(x.lower_elem(1.0)),
    "bool_or": lambda x: x.greater_elem(0.0).bool_or(x.lower_elem(-1.0)),
    "bool_not": lambda x: x.greater_elem(0.0).bool_not(),
    "argmax": lambda x: x.argmax(1),
    "argmin": lambda x: x.argmin(0),
    "argsort": lambda x: x.argsort(1),
    "any": lambda x: x.any(),
    "all": lambda x: x.all(),
    "any_dim": lambda x: x.any_dim(0),
    "all_dim": lambda x: x.all_dim(1),
    "one_hot": lambda x: (x * 0.0).one_hot(3),
    "argwhere": lambda x: x.greater_elem(0.0).argwhere(),
}


def test_every_non_differentiable_op_has_an_example_call():
    missing = sorted(name for name, op in OPS.items()
                     if op.backward is None and name not in NON_DIFFERENTIABLE_CALLS)
    assert not missing, (f"{len(missing)} non-differentiable ops have no example call in "
                         f"NON_DIFFERENTIABLE_CALLS (tests/test_op_coverage.py): {', '.join(missing)}")


@pytest.mark.parametrize("name", sorted(NON_DIFFERENTIABLE_CALLS))
def test_non_differentiable_op_gives_an_untracked_result(name):
    assert name in OPS and OPS[name].backward is None, f"{name!r} is not a non-differentiable op of OPS"
    x = Tensor.from_data(np.random.default_rng(0).standard_normal((3, 4)), AD).require_grad()
    op, forward, calls = OPS[name], OPS[name].forward, []

    def counted(*args, **kwargs):
        calls.append(name)
        return forward(*args, **kwargs)

    op.forward = counted  # proves the example call runs this very op
    try:
        out = NON_DIFFERENTIABLE_CALLS[name](x)
    finally:
        op.forward = forward
    assert calls, f"the example call for {name!r} does not run the op"
    for i, o in enumerate(out if isinstance(out, tuple) else (out,)):
        assert not o.is_tracked(), f"{name}: output {i} is tracked"
        assert o.is_autodiff(), f"{name}: output {i} lost the autodiff association"
        data = o.to_torch()
        assert data.grad_fn is None and not data.requires_grad, f"{name}: output {i} has a torch graph"
