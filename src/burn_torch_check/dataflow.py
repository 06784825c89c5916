"""Where a local value comes from: the expression last assigned to a name before a use.

The detectors that depend on how a value was made (an Int tensor, a quantized tensor, a loss
reduced with ``reduction="none"``, an intermediate rather than a leaf) follow a name back to its
assignment in the same function with ``origin``. Only plain ``name = expr`` assignments are
followed; anything else (a loop target, a parameter, an unpacked tuple) has no origin.
"""
from __future__ import annotations

import ast

from .analysis import Analysis

_MAX_DEPTH = 8


def _position(node: ast.AST) -> tuple[int, int]:
    return node.lineno, node.col_offset


class _Index:
    """Every plain assignment of a file by (scope, name), its loops by scope, and the values
    assigned to ``self.<attr>`` by (class, attr): built once per analysis, so that following
    a name is a lookup rather than a walk."""

    def __init__(self, a: Analysis) -> None:
        self.assignments: dict[tuple[ast.AST, str], list[ast.Assign]] = {}
        self.loops: dict[ast.AST, list[ast.AST]] = {}
        self.self_attrs: dict[tuple[ast.AST, str], list[ast.expr]] = {}
        for node in ast.walk(a.tree):
            if isinstance(node, ast.Assign) and len(node.targets) == 1:
                target = node.targets[0]
                if isinstance(target, ast.Name):
                    self.assignments.setdefault((a.scope_of(node), target.id), []).append(node)
            if isinstance(node, ast.Assign):
                for t in node.targets:
                    if isinstance(t, ast.Attribute) and isinstance(t.value, ast.Name) and t.value.id == "self":
                        cls = a.enclosing_class(node)
                        if cls is not None:
                            self.self_attrs.setdefault((cls, t.attr), []).append(node.value)
            elif isinstance(node, (ast.For, ast.AsyncFor, ast.comprehension)):
                self.loops.setdefault(a.scope_of(node.iter), []).append(node)
        for assigns in self.assignments.values():
            assigns.sort(key=_position)


def index(a: Analysis) -> _Index:
    """The assignment index of ``a`` (built on first use)."""
    found = getattr(a, "_dataflow_index", None)
    if found is None:
        found = _Index(a)
        a._dataflow_index = found
    return found


def assigned_value(a: Analysis, name: ast.Name) -> ast.expr | None:
    """The value of the last ``name = value`` of ``name``'s scope that precedes ``name``, or
    None when there is none (a parameter, a loop variable, a global)."""
    best = None
    for node in index(a).assignments.get((a.scope_of(name), name.id), ()):
        if _position(node) >= _position(name):
            break
        best = node
    return best.value if best is not None else None


def origin(a: Analysis, expr: ast.AST, depth: int = 0) -> ast.AST:
    """``expr``, or for a name the expression it was last assigned from (followed through
    further names)."""
    while isinstance(expr, ast.Name) and depth < _MAX_DEPTH:
        value = assigned_value(a, expr)
        if value is None:
            break
        expr, depth = value, depth + 1
    return expr


def chain(a: Analysis, expr: ast.AST) -> list[ast.AST]:
    """The expressions ``expr`` is computed from by method calls, outermost first, through
    assigned names: ``y`` with ``y = x.float()`` and ``x = torch.tensor([1, 2])`` gives
    ``[x.float(), torch.tensor([1, 2])]``."""
    out: list[ast.AST] = []
    expr = origin(a, expr)
    while len(out) < 4 * _MAX_DEPTH:
        out.append(expr)
        if isinstance(expr, ast.Call) and isinstance(expr.func, ast.Attribute) \
                and a.qualname(expr.func) is None:
            expr = origin(a, expr.func.value)
        else:
            break
    return out


def made_by(a: Analysis, func: ast.AST) -> ast.AST | None:
    """The expression that built the value ``func`` holds: for ``self.lstm``, the one value
    assigned to ``self.lstm`` in the enclosing class; for a name, its last assignment."""
    if isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name) and func.value.id == "self":
        cls = a.enclosing_class(func)
        sources = index(a).self_attrs.get((cls, func.attr), []) if cls else []
        return sources[0] if len(sources) == 1 else None
    if isinstance(func, ast.Name):
        return origin(a, func)
    return None


def loops_in(a: Analysis, scope: ast.AST) -> list[ast.AST]:
    """The ``for`` loops and comprehensions of ``scope``."""
    return index(a).loops.get(scope, [])
