"""Which op-table entries the tests property-test: the
[`covers`][burn_torch.testing.coverage.covers] registry."""
from __future__ import annotations

from typing import Callable, TypeVar

F = TypeVar("F", bound=Callable)

_COVERED: dict[str, set[str]] = {}


def covers(*op_names: str) -> Callable[[F], F]:
    """Decorator declaring that the decorated test property-tests the named ``burn_torch.ops.OPS``
    entries. Returns the test unchanged (apply it above or below ``@given``/parametrize). Names
    are checked against the op table by tests/test_op_coverage.py, not here. Raises ValueError
    when no name is given."""
    if not op_names or not all(isinstance(n, str) for n in op_names):
        raise ValueError("covers(...) needs one or more op names (strings)")

    def register(test: F) -> F:
        where = f"{getattr(test, '__module__', '?')}.{getattr(test, '__qualname__', repr(test))}"
        for name in op_names:
            _COVERED.setdefault(name, set()).add(where)
        return test

    return register


def covered_ops() -> dict[str, set[str]]:
    """A copy of the registry: op name -> names of the tests declaring to cover it."""
    return {name: set(tests) for name, tests in _COVERED.items()}
