"""The package's architecture as tests: no import cycle between its top-level modules and
packages, and an engine that imports none of its users."""
import ast
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parents[1] / "src" / "burn_torch"


def _unit(path: Path) -> str:
    """The top-level module or package a source file belongs to (``tensor``, ``autodiff``...)."""
    rel = path.relative_to(PACKAGE).parts
    return rel[0][:-3] if len(rel) == 1 else rel[0]


def _is_type_checking(node: ast.If) -> bool:
    test = node.test
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING")


def _imports(path: Path) -> set[str]:
    """The burn_torch units ``path`` imports, at module level or inside functions (imports under
    ``if TYPE_CHECKING:`` are annotations only and do not count)."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    skipped = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.If) and _is_type_checking(node):
            skipped.update(id(n) for n in ast.walk(node))
    rel = path.relative_to(PACKAGE).parts
    package = ["burn_torch", *rel[:-1]]
    found = set()
    for node in ast.walk(tree):
        if id(node) in skipped:
            continue
        if isinstance(node, ast.Import):
            names = [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package[:len(package) - node.level + 1]
                mod = ".".join(base + ([node.module] if node.module else []))
            else:
                mod = node.module or ""
            names = [mod] if node.module else [f"{mod}.{a.name}" for a in node.names]
        else:
            continue
        for name in names:
            parts = name.split(".")
            if parts[0] == "burn_torch" and len(parts) > 1:
                found.add(parts[1])
    return found


def _graph() -> dict[str, set[str]]:
    graph: dict[str, set[str]] = {}
    for path in PACKAGE.rglob("*.py"):
        if path.name == "__init__.py" and path.parent == PACKAGE:
            continue  # the package root re-exports everything
        unit = _unit(path)
        graph.setdefault(unit, set()).update(_imports(path) - {unit})
    return graph


def _cycle(graph):
    """One import cycle as a list of units, or None."""
    state = {}

    def visit(u, path):
        state[u] = 1
        for v in sorted(graph.get(u, ())):
            if state.get(v) == 1:
                return path[path.index(v):] + [v]
            if v not in state:
                found = visit(v, path + [v])
                if found:
                    return found
        state[u] = 2
        return None

    for u in sorted(graph):
        if u not in state:
            found = visit(u, [u])
            if found:
                return found
    return None


def test_no_import_cycle_between_top_level_modules_and_packages():
    cycle = _cycle(_graph())
    assert cycle is None, "import cycle: " + " -> ".join(cycle)


@pytest.mark.parametrize("user", ["distributed", "module", "memory", "nn", "optim", "testing",
                                  "compat", "interop", "functional", "methods", "tensor"])
def test_the_autodiff_engine_does_not_import_its_users(user):
    assert user not in _graph()["autodiff"]


def test_the_op_table_imports_only_torch():
    assert _graph()["ops"] == set()
