"""The porting checker: finds the PyTorch idioms that behave differently in burn_torch.

``python -m burn_torch.compat.check PATH...`` (or ``burn-torch-check PATH...``) parses each
Python file (directories are searched for ``*.py``) with ``ast`` and runs the detectors the
catalog's entries name. It prints one line per finding::

    train.py:12:10  backward_returns_container  what differs  → how to port

then a summary. Exit status: 1 when a *silent* divergence (same code, different results) was
found, 2 when a file could not be read or parsed, 0 otherwise (loud divergences raise when the
port runs, so they do not fail the check unless ``--strict``).
"""
from __future__ import annotations

import argparse
import ast
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Iterable, Sequence

from .catalog import CatalogEntry, catalog
from .detectors import run_detectors

GUIDE = "migration_guide/README.md"


@dataclass(frozen=True)
class Finding:
    path: str
    line: int
    col: int
    entry: CatalogEntry
    detector: str
    hint: str | None = None

    def format(self) -> str:
        recipe = self.hint or self.entry.recipe
        return f"{self.path}:{self.line}:{self.col}  {self.entry.id}  {self.entry.what}  → {recipe}"


def detector_map(entries: Iterable[CatalogEntry]) -> dict[str, CatalogEntry]:
    """detector name → the entry naming it. Raises ValueError when two entries name one."""
    mapping: dict[str, CatalogEntry] = {}
    for e in entries:
        for name in e.detectors:
            if name in mapping:
                raise ValueError(f"detector {name!r} is named by {mapping[name].id} and {e.id}")
            mapping[name] = e
    return mapping


def check_source(text: str, path: str, entries: Sequence[CatalogEntry] | None = None) -> list[Finding]:
    """Findings in one file's source, sorted by position. Raises SyntaxError for invalid code."""
    mapping = detector_map(catalog() if entries is None else entries)
    tree = ast.parse(text, filename=path)
    findings = [Finding(path, hit.line, hit.col, mapping[name], name, hit.hint)
                for name, hit in run_detectors(tree, mapping)]
    return sorted(findings, key=lambda f: (f.line, f.col, f.entry.id))


def python_files(paths: Iterable[str]) -> list[Path]:
    """The files named, and the ``*.py`` files under the directories named, in order."""
    files: list[Path] = []
    for p in map(Path, paths):
        files.extend(sorted(p.rglob("*.py")) if p.is_dir() else [p])
    return files


def summary(findings: Sequence[Finding], n_files: int) -> str:
    silent = sum(f.entry.silent for f in findings)
    return (f"{len(findings)} findings ({silent} silent, {len(findings) - silent} loud) "
            f"in {n_files} file{'s' if n_files != 1 else ''}")


def main(argv: Sequence[str] | None = None) -> int:
    """Runs the checker; returns the exit status (see the module docstring)."""
    parser = argparse.ArgumentParser(
        prog="burn-torch-check",
        description="Find PyTorch idioms that behave differently in burn_torch.")
    parser.add_argument("paths", nargs="+", metavar="PATH", help="Python files or directories")
    parser.add_argument("--strict", action="store_true", help="also fail on loud divergences")
    args = parser.parse_args(argv)
    findings: list[Finding] = []
    status = 0
    files = python_files(args.paths)
    for path in files:
        try:
            findings += check_source(path.read_text(encoding="utf-8"), str(path))
        except (OSError, SyntaxError, UnicodeDecodeError) as exc:
            print(f"{path}: cannot check: {exc}", file=sys.stderr)
            status = 2
    for f in findings:
        print(f.format())
    print(summary(findings, len(files)))
    if findings:
        print(f"Each id is a section of the burn_torch migration guide ({GUIDE}).")
    if status:
        return status
    if any(f.entry.silent for f in findings) or (args.strict and findings):
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
