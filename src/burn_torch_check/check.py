"""Checking one source: the findings, each a catalog entry at a place, with its code.

``check_source`` parses a file, runs the detectors the catalog's entries name and drops the
findings a ``# noqa`` comment suppresses or a ``Selection`` leaves out. No torch import.
"""
from __future__ import annotations

import ast
from dataclasses import dataclass
from typing import Iterable, Sequence

from .catalog import CatalogEntry, catalog
from .detectors import Fix, run_detectors
from .noqa import suppressed, suppressions

GUIDE = "migration_guide/README.md"


@dataclass(frozen=True)
class Finding:
    """One place where a catalog entry's PyTorch idiom appears."""

    path: str
    line: int
    col: int
    entry: CatalogEntry
    detector: str
    hint: str | None = None
    fix: Fix | None = None

    @property
    def code(self) -> str:
        return self.entry.code

    @property
    def recipe(self) -> str:
        """How to port this place: the detector's specific hint, else the entry's recipe."""
        return self.hint or self.entry.recipe

    @property
    def message(self) -> str:
        return f"{self.entry.id}: {self.entry.what} → {self.recipe}"

    def format(self) -> str:
        """``path:line:col: BTnnn entry_id: what differs → how to port``."""
        return f"{self.path}:{self.line}:{self.col}: {self.code} {self.message}"


class Selection:
    """Which findings to keep: those matching a ``select`` token and no ``ignore`` token.

    A token is a code (``BT201``), a code prefix (``BT2``: a whole guide section), an entry id
    (``retain_graph``), ``silent`` or ``loud``, or ``ALL``. Raises ValueError for a token that
    matches no entry of ``entries``."""

    def __init__(self, select: Iterable[str] = ("ALL",), ignore: Iterable[str] = (),
                 entries: Sequence[CatalogEntry] | None = None) -> None:
        self.entries = tuple(catalog() if entries is None else entries)
        self.select = tuple(select) or ("ALL",)
        self.ignore = tuple(ignore)
        for token in (*self.select, *self.ignore):
            if not any(self._matches(token, e) for e in self.entries):
                raise ValueError(f"{token!r} matches no catalog entry (expected a code such as "
                                 "BT201, a code prefix such as BT2, an entry id, silent, loud or ALL)")

    @staticmethod
    def _matches(token: str, e: CatalogEntry) -> bool:
        t = token.strip()
        if t.upper() == "ALL":
            return True
        if t.lower() in ("silent", "loud"):
            return e.severity == t.lower()
        if t.upper().startswith("BT"):
            return bool(e.code) and e.code.startswith(t.upper())
        return e.id == t

    def keeps(self, e: CatalogEntry) -> bool:
        return any(self._matches(t, e) for t in self.select) \
            and not any(self._matches(t, e) for t in self.ignore)


def detector_map(entries: Iterable[CatalogEntry]) -> dict[str, CatalogEntry]:
    """detector name → the entry naming it. Raises ValueError when two entries name one."""
    mapping: dict[str, CatalogEntry] = {}
    for e in entries:
        for name in e.detectors:
            if name in mapping:
                raise ValueError(f"detector {name!r} is named by {mapping[name].id} and {e.id}")
            mapping[name] = e
    return mapping


def check_tree(tree: ast.Module, path: str, entries: Sequence[CatalogEntry] | None = None,
               selection: Selection | None = None) -> list[Finding]:
    """Findings in a parsed file, sorted by position (no ``# noqa`` handling)."""
    chosen = catalog() if entries is None else entries
    if selection is not None:
        chosen = [e for e in chosen if selection.keeps(e)]
    mapping = detector_map(chosen)
    findings = [Finding(path, hit.line, hit.col, mapping[name], name, hit.hint, hit.fix)
                for name, hit in run_detectors(tree, mapping)]
    return sorted(findings, key=lambda f: (f.line, f.col, f.entry.id))


def check_source(text: str, path: str, entries: Sequence[CatalogEntry] | None = None,
                 selection: Selection | None = None) -> list[Finding]:
    """Findings in one file's source that no ``# noqa`` comment suppresses, sorted by position.

    Raises SyntaxError for invalid code."""
    tree = ast.parse(text, filename=path)
    noqa = suppressions(text) if "noqa" in text.lower() else {}
    return [f for f in check_tree(tree, path, entries, selection)
            if not suppressed(noqa.get(f.line), f.code, f.entry.id)]
