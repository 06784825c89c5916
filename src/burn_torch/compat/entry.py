"""One catalog entry: a PyTorch snippet, its literal burn_torch translation and the port.

An entry is a Python file under the repository's top-level ``compat/<category>/`` holding:

* ``ID`` (the file's stem), ``TITLE``, ``CATEGORY`` (its directory, which is also the guide
  section), ``SEVERITY`` (``"silent"``: the literal translation runs and gives different results;
  ``"loud"``: it raises), ``WHAT`` (one line: what differs), ``WHY`` (why Burn differs),
  ``RECIPE`` (one line: how to port) and ``DETECTORS`` (the porting checker's detectors that
  find the PyTorch idiom, possibly empty);
* three snippet functions without arguments: ``torch_side`` (PyTorch, real torch autograd),
  ``burn_literal`` (the same code written with burn_torch names) and ``burn_side`` (the port);
* ``TORCH``, ``LITERAL`` and ``BURN``: what each snippet does, either a dict of observations or
  ``Raises(type, message)``.

A snippet is run statement by statement (``run_snippet``). Its *observations* are the
expression statements ending its body that the entry declares an outcome for: each is evaluated
and recorded under its source text (``ast.unparse``), so ``x.grad.tolist()`` as the last line
with ``TORCH = {"x.grad.tolist()": [4.0, 8.0]}`` records and checks the gradient. A snippet that
raises must raise in its last statement. The same source is rendered into the migration guide
with every observation annotated (``render_snippet``), so the guide shows executed code.
"""
from __future__ import annotations

import ast
import importlib.util
import inspect
import textwrap
import warnings
from dataclasses import dataclass, fields
from pathlib import Path
from types import ModuleType
from typing import Callable, Collection, Union

from .catalog import CatalogEntry

SEVERITIES = ("silent", "loud")
SIDES = (("torch_side", "TORCH"), ("burn_literal", "LITERAL"), ("burn_side", "BURN"))
_FIELDS = ("ID", "TITLE", "CATEGORY", "SEVERITY", "WHAT", "WHY", "RECIPE", "DETECTORS")


@dataclass(frozen=True)
class Raises:
    """Expectation that a snippet raises exactly ``type`` with ``message`` in its text."""

    type: type
    message: str

    def matches(self, exc: BaseException) -> bool:
        return type(exc) is self.type and self.message in str(exc)

    def __str__(self) -> str:
        return f"raises {self.type.__name__}: {self.message}"


Outcome = Union[dict, Raises]


@dataclass(frozen=True)
class Snippet:
    """A snippet function's body split into statements, with its observation expressions."""

    function: Callable
    statements: tuple[ast.stmt, ...]
    observations: tuple[str, ...]  # ast.unparse of each trailing expression statement
    source_lines: tuple[str, ...]   # the dedented body lines, comments included
    first_line: int                 # line of the body's first statement in the entry file

    @classmethod
    def of(cls, fn: Callable, observed: Collection[str] = ()) -> "Snippet":
        """Parses ``fn``'s body; its observations are the trailing expression statements whose
        source text is in ``observed``. Raises ValueError for a body containing ``return``."""
        lines, start = inspect.getsourcelines(fn)
        tree = ast.parse(textwrap.dedent("".join(lines)))
        definition = tree.body[0]
        assert isinstance(definition, (ast.FunctionDef, ast.AsyncFunctionDef))  # fn's own source
        body = definition.body
        if any(_returns(stmt) for stmt in body):
            raise ValueError(f"{fn.__qualname__}: snippets end with observations, not return")
        ast.increment_lineno(tree, start - 1)
        trailing = []
        for stmt in reversed(body):
            if not isinstance(stmt, ast.Expr) or ast.unparse(stmt.value) not in observed:
                break
            trailing.append(ast.unparse(stmt.value))
        first = body[0].lineno
        source = textwrap.dedent("".join(lines[first - start:]))
        return cls(fn, tuple(body), tuple(reversed(trailing)), tuple(source.rstrip().splitlines()),
                   first)


_SCOPES = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Lambda)


def _returns(node: ast.AST) -> bool:
    """Whether ``node`` holds a ``return`` of the snippet itself (one inside a function or class
    the snippet defines returns from that definition, which is allowed)."""
    if isinstance(node, ast.Return):
        return True
    return not isinstance(node, _SCOPES) and any(map(_returns, ast.iter_child_nodes(node)))


@dataclass(frozen=True)
class Run:
    """What running a snippet did: its observations, or the exception and the statement raising it."""

    values: dict | None
    error: BaseException | None = None
    error_statement: int | None = None  # index into Snippet.statements


def run_snippet(snippet: Snippet, globals_: dict | None = None) -> Run:
    """Executes the snippet's statements in a fresh namespace over ``globals_`` (default: its
    module's globals).

    Warnings are silenced (a snippet that cares records them itself). Returns the observations
    (source text → value) or the first exception raised with the index of its statement."""
    fn = snippet.function
    ns = dict(fn.__globals__ if globals_ is None else globals_)
    filename = inspect.getsourcefile(fn) or "<snippet>"
    n_actions = len(snippet.statements) - len(snippet.observations)
    values: dict = {}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for i, stmt in enumerate(snippet.statements):
            try:
                if i < n_actions:
                    exec(compile(ast.Module([stmt], []), filename, "exec"), ns)
                else:
                    assert isinstance(stmt, ast.Expr)  # an observation is an expression statement
                    code = compile(ast.Expression(stmt.value), filename, "eval")
                    values[snippet.observations[i - n_actions]] = eval(code, ns)
            except Exception as exc:  # the outcome under test
                return Run(None, exc, i)
    return Run(values)


def mismatches(expected: Outcome, run: Run, n_statements: int) -> list[str]:
    """Why ``run`` does not match ``expected`` (empty when it does)."""
    if isinstance(expected, Raises):
        if run.error is None:
            return [f"expected to {expected}, but it returned {run.values!r}"]
        if not expected.matches(run.error):
            return [f"expected to {expected}, but it raised {type(run.error).__name__}: {run.error}"]
        if run.error_statement != n_statements - 1:
            assert run.error_statement is not None  # set with error
            return [f"raised in statement {run.error_statement + 1} of {n_statements}; "
                    "a raising snippet must raise in its last statement"]
        return []
    if run.error is not None:
        return [f"expected {expected!r}, but it raised {type(run.error).__name__}: {run.error}"]
    if run.values != expected:
        return [f"expected {expected!r}, got {run.values!r}"]
    return []


def _end_line(stmt: ast.stmt) -> int:
    """The last line of a parsed statement (parsed nodes always carry their position)."""
    assert stmt.end_lineno is not None
    return stmt.end_lineno


def render_snippet(snippet: Snippet, outcome: Outcome) -> str:
    """The snippet's source with each observation's last line annotated ``# → value`` and, for
    a raising snippet, the last statement annotated ``# raises Type: message``."""
    lines = list(snippet.source_lines)
    offset = snippet.first_line
    notes: dict[int, str] = {}
    if isinstance(outcome, Raises):
        notes[_end_line(snippet.statements[-1]) - offset] = f"# {outcome}"
    else:
        n_actions = len(snippet.statements) - len(snippet.observations)
        for stmt, key in zip(snippet.statements[n_actions:], snippet.observations):
            notes[_end_line(stmt) - offset] = f"# → {outcome[key]!r}"
    for index, note in notes.items():
        lines[index] = f"{lines[index]}  {note}"
    return "\n".join(lines)


@dataclass(frozen=True)
class SourceEntry(CatalogEntry):
    """A catalog entry loaded from its file: metadata, snippets and expected outcomes."""

    path: Path
    module: ModuleType

    def snippet(self, side: str) -> Snippet:
        expected = self.expected(side)
        return Snippet.of(getattr(self.module, side), () if isinstance(expected, Raises) else expected)

    def expected(self, side: str) -> Outcome:
        return getattr(self.module, dict(SIDES)[side])

    def metadata(self) -> dict:
        """The machine-readable fields (what ``catalog.json`` holds for this entry)."""
        shared = {f.name: getattr(self, f.name) for f in fields(CatalogEntry)}
        return {**shared, "detectors": list(self.detectors)}


def load_entry(path: Path) -> SourceEntry:
    """Imports the entry file at ``path``. Raises ValueError naming a missing or invalid field."""
    spec = importlib.util.spec_from_file_location(f"burn_torch_compat_entry_{path.stem}", path)
    assert spec is not None and spec.loader is not None  # a .py path always has a loader
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    missing = [f for f in _FIELDS if not hasattr(module, f)]
    missing += [fn for fn, const in SIDES for name in (fn, const) if not hasattr(module, name)]
    if missing:
        raise ValueError(f"{path}: missing {', '.join(dict.fromkeys(missing))}")
    if module.SEVERITY not in SEVERITIES:
        raise ValueError(f"{path}: SEVERITY must be one of {SEVERITIES}, got {module.SEVERITY!r}")
    return SourceEntry(module.ID, module.TITLE, module.CATEGORY, module.SEVERITY,
                       " ".join(module.WHAT.split()), " ".join(module.WHY.split()),
                       " ".join(module.RECIPE.split()), tuple(module.DETECTORS), path, module)


def load_entries(root: Path) -> list[SourceEntry]:
    """Every entry under ``root`` (``compat/``): ``<category>/<id>.py``, sorted by path."""
    return [load_entry(p) for p in sorted(root.glob("*/*.py")) if not p.name.startswith("_")]
