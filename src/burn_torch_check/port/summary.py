"""The translation's report: each code line of the original, model code (inside ``nn.Module``
classes) or loop code (the rest, imports and docstrings aside), counted as unchanged,
translated or left (by reason).

A line "needs no hand edit" when it is unchanged or translated; a left line carries its
``# burn-torch-port: BTnnn`` marker. The figures are per line of the original file: a statement
spanning several lines counts each of them. Torch-free.
"""
from __future__ import annotations

import ast
import json
from collections import Counter
from dataclasses import dataclass, field

from .translate import Translation

UNCHANGED, TRANSLATED, LEFT = "unchanged", "translated", "left"


@dataclass
class Part:
    """The counts of one part of the program (``model`` or ``loop``)."""

    lines: int = 0
    translated: int = 0
    left: int = 0
    reasons: Counter = field(default_factory=Counter)

    @property
    def no_edit(self) -> int:
        return self.lines - self.left

    @property
    def share(self) -> float:
        """The share of lines needing no hand edit (1.0 for an empty part)."""
        return self.no_edit / self.lines if self.lines else 1.0


@dataclass
class Summary:
    """Per-line statuses and the model/loop counts of one translation."""

    status: dict[int, str]
    parts: dict[str, Part]

    def as_dict(self) -> dict:
        return {name: {"lines": p.lines, "translated": p.translated, "unchanged": p.lines - p.translated - p.left,
                       "left": p.left, "no_edit_share": round(p.share, 4), "left_by_reason": dict(p.reasons)}
                for name, p in self.parts.items()}

    def text(self, path: str = "") -> str:
        """The report printed by ``burn-torch-port``."""
        out = [f"burn-torch-port: {path}" if path else "burn-torch-port:"]
        for name, p in self.parts.items():
            out.append(f"  {name} code: {p.lines} lines, {p.translated} translated, "
                       f"{p.lines - p.translated - p.left} unchanged, {p.left} left "
                       f"({100 * p.share:.1f}% need no hand edit)")
            for reason, n in p.reasons.most_common():
                out.append(f"    {n:3d} left  {reason}")
        return "\n".join(out)

    def json(self) -> str:
        return json.dumps(self.as_dict(), indent=1, sort_keys=True)


def _statement_spans(tree: ast.Module) -> list[tuple[int, int, str]]:
    """(first line, last line, part) of every statement's own lines (a compound statement's
    header only), imports and docstrings left out."""
    spans: list[tuple[int, int, str]] = []
    module_classes = _module_classes(tree)

    def walk(body, part):
        for i, stmt in enumerate(body):
            if isinstance(stmt, (ast.Import, ast.ImportFrom)):
                continue
            if isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Constant) and isinstance(stmt.value.value, str):
                continue  # a docstring or a bare string
            if isinstance(stmt, ast.ClassDef):
                inner = "model" if stmt.name in module_classes else part
                first = min([stmt.lineno, *(d.lineno for d in stmt.decorator_list)])
                spans.append((first, stmt.body[0].lineno - 1 if stmt.body[0].lineno > stmt.lineno else stmt.lineno, inner))
                walk(stmt.body, inner)
                continue
            children = [getattr(stmt, name) for name in ("body", "orelse", "finalbody", "handlers")
                        if isinstance(getattr(stmt, name, None), list)]
            nested = [s for block in children for s in block if isinstance(s, ast.stmt)]
            if nested:
                first = min([stmt.lineno, *(d.lineno for d in getattr(stmt, "decorator_list", []))])
                head_end = max(first, nested[0].lineno - 1)
                spans.append((first, min(head_end, _header_end(stmt)), part))
                for block in children:
                    walk([s for s in block if isinstance(s, ast.stmt)], part)
                for handler in getattr(stmt, "handlers", []):
                    spans.append((handler.lineno, handler.lineno, part))
                    walk(handler.body, part)
            else:
                spans.append((stmt.lineno, stmt.end_lineno, part))

    walk(tree.body, "loop")
    return spans


def _header_end(stmt: ast.stmt) -> int:
    """The last line of a compound statement's header (its test, iterable or signature)."""
    ends = [stmt.lineno]
    for name in ("test", "iter", "target", "args", "items", "returns"):
        value = getattr(stmt, name, None)
        values = value if isinstance(value, list) else [value]
        for v in values:
            end = getattr(v, "end_lineno", None) or getattr(getattr(v, "context_expr", None), "end_lineno", None)
            if end:
                ends.append(end)
    return max(ends)


def _module_classes(tree: ast.Module) -> set[str]:
    from ..analysis import Analysis
    return set(Analysis(tree)._module_classes)


def summarize(translation: Translation) -> Summary:
    """The per-line statuses and counts of ``translation`` (see the module docstring)."""
    tree = ast.parse(translation.source)
    spans = _statement_spans(tree)
    status: dict[int, str] = {}
    parts = {"model": Part(), "loop": Part()}
    for first, last, part in spans:
        events = [e for e in translation.events if first <= e.line <= last]
        left = [e for e in events if e.kind == "left"]
        state = LEFT if left else TRANSLATED if events else UNCHANGED
        lines = [n for n in range(first, last + 1) if n not in status]
        counts = parts[part]
        for n in lines:
            status[n] = state
            counts.lines += 1
            counts.translated += state == TRANSLATED
            counts.left += state == LEFT
        if left and lines:
            for reason in {(e.code or ("no catalog entry" if e.row else "no row")) + " " + (e.row or _short(e.reason))
                           for e in left}:
                counts.reasons[reason] += len(lines)
    return Summary(status, parts)


def _short(reason: str) -> str:
    return reason.split(":")[0][:60]
