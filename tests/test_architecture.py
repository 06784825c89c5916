"""The package's architecture as tests: no import cycle at any level (between the top-level
modules and packages, and between the modules of every package), and an engine that imports
none of its users."""
import ast
from pathlib import Path

import pytest

SRC = Path(__file__).resolve().parents[1] / "src"
PACKAGE = SRC / "burn_torch"


def _is_type_checking(node: ast.If) -> bool:
    test = node.test
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING")


def _module_of(path: Path, src: Path) -> list[str]:
    """The dotted name of the module a source file defines, as parts (a package's
    ``__init__.py`` defines the package)."""
    parts = list(path.relative_to(src).with_suffix("").parts)
    return parts[:-1] if parts[-1] == "__init__" else parts


def _imports(path: Path, src: Path = SRC) -> set[str]:
    """The dotted names ``path`` imports (``pkg.mod`` or ``pkg.mod.Name``), at module level or
    inside functions; imports under ``if TYPE_CHECKING:`` are annotations only and do not count."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    skipped = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.If) and _is_type_checking(node):
            skipped.update(id(n) for n in ast.walk(node))
    module = _module_of(path, src)
    package = module if path.name == "__init__.py" else module[:-1]
    found = set()
    for node in ast.walk(tree):
        if id(node) in skipped:
            continue
        if isinstance(node, ast.Import):
            found.update(a.name for a in node.names)
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = ".".join(package[:len(package) - node.level + 1])
                mod = base + (f".{node.module}" if node.module else "")
            else:
                mod = node.module or ""
            found.update(f"{mod}.{a.name}" for a in node.names)
    return found


def _existing_module(name: str, src: Path) -> str | None:
    """The longest prefix of dotted ``name`` that is a module or package under ``src``."""
    parts = name.split(".")
    for n in range(len(parts), 0, -1):
        base = src.joinpath(*parts[:n])
        if base.with_suffix(".py").is_file() or (base / "__init__.py").is_file():
            return ".".join(parts[:n])
    return None


def _package_graph(package: str, src: Path = SRC) -> dict[str, set[str]]:
    """The import graph between the direct members of ``package`` (its modules and
    sub-packages, each with everything below it, and ``__init__`` for the package's own
    ``__init__.py``): member -> the members it imports."""
    root = src.joinpath(*package.split("."))
    graph: dict[str, set[str]] = {}
    for path in root.rglob("*.py"):
        rel = path.relative_to(root).parts
        member = "__init__" if rel == ("__init__.py",) else rel[0].removesuffix(".py")
        targets = graph.setdefault(member, set())
        for name in _imports(path, src):
            target = _existing_module(name, src)
            if target == package:
                targets.add("__init__")
            elif target and target.startswith(package + "."):
                targets.add(target[len(package) + 1:].split(".")[0])
        targets.discard(member)
    return graph


def _graph() -> dict[str, set[str]]:
    """The import graph between burn_torch's top-level modules and packages (the package root
    re-exports everything, so its ``__init__`` is left out)."""
    graph = _package_graph("burn_torch")
    graph.pop("__init__", None)
    for targets in graph.values():
        targets.discard("__init__")
    return graph


def _cycle(graph):
    """One import cycle as a list of members, or None."""
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


PACKAGES = sorted(".".join(_module_of(p, SRC)) for p in PACKAGE.rglob("__init__.py")
                  if ".".join(_module_of(p, SRC)) != "burn_torch")


def test_no_import_cycle_between_top_level_modules_and_packages():
    cycle = _cycle(_graph())
    assert cycle is None, "import cycle: " + " -> ".join(cycle)


@pytest.mark.parametrize("package", PACKAGES)
def test_no_import_cycle_between_the_modules_of_a_package(package):
    cycle = _cycle(_package_graph(package))
    assert cycle is None, f"import cycle in {package}: " + " -> ".join(cycle)


def test_the_package_check_finds_a_cycle_between_two_modules(tmp_path):
    pkg = tmp_path / "demo" / "inner"
    pkg.mkdir(parents=True)
    (tmp_path / "demo" / "__init__.py").write_text("")
    (pkg / "__init__.py").write_text("from .a import A\n")
    (pkg / "a.py").write_text("class A:\n    def b(self):\n        from .b import B\n        return B\n")
    (pkg / "b.py").write_text("from .a import A\n\nclass B(A):\n    pass\n")
    assert _cycle(_package_graph("demo.inner", tmp_path)) == ["a", "b", "a"]


def test_the_package_check_ignores_imports_for_annotations_only(tmp_path):
    pkg = tmp_path / "demo"
    pkg.mkdir()
    (pkg / "__init__.py").write_text("")
    (pkg / "a.py").write_text("from .b import B\n")
    (pkg / "b.py").write_text("from typing import TYPE_CHECKING\n\nif TYPE_CHECKING:\n"
                              "    from .a import A\n\nclass B:\n    pass\n")
    assert _package_graph("demo", tmp_path) == {"__init__": set(), "a": {"b"}, "b": set()}


def test_the_package_check_counts_importing_the_package_itself(tmp_path):
    pkg = tmp_path / "demo"
    pkg.mkdir()
    (pkg / "__init__.py").write_text("from .a import A\n")
    (pkg / "a.py").write_text("from . import helper\n\nclass A:\n    pass\n")
    (pkg / "b.py").write_text("from . import A\n")
    (pkg / "helper.py").write_text("")
    graph = _package_graph("demo", tmp_path)
    assert graph["a"] == {"helper"} and graph["b"] == {"__init__"}


@pytest.mark.parametrize("user", ["distributed", "module", "memory", "nn", "optim", "testing",
                                  "compat", "interop", "functional", "methods", "tensor"])
def test_the_autodiff_engine_does_not_import_its_users(user):
    assert user not in _graph()["autodiff"]


def test_the_op_table_imports_only_torch():
    assert _graph()["ops"] == set()
