"""Output formats: ``text`` (``path:line:col: BTnnn id: what → how``), ``json`` and ``github``
(workflow commands that annotate a pull request: silent divergences as errors, loud ones as
warnings); the rule list, one entry explained, the version, and where the migration guide is."""
from __future__ import annotations

import json
from functools import lru_cache
from pathlib import Path
from typing import Sequence

from .catalog import CatalogEntry
from .check import GUIDE, Finding


@lru_cache(maxsize=1)
def guide_dir() -> Path | None:
    """The migration guide of the checkout this package runs from, when there is one (an
    editable or source install); None for an installed distribution."""
    here = Path(__file__).resolve().parent
    for root in (here.parent.parent, here.parent):
        candidate = root / "migration_guide"
        if (candidate / "README.md").is_file():
            return candidate
    return None


def guide_location(e: CatalogEntry | None = None) -> str:
    """Where to read the guide (or entry ``e``'s section) from anywhere: the absolute path in
    this checkout, else the command that prints the entry."""
    directory = guide_dir()
    if directory is not None:
        return str(directory / (e.guide_link() if e else "README.md"))
    return f"burn-torch-check --explain {e.code}" if e else "burn-torch-check --explain CODE"


def version() -> str:
    """The installed version of the distribution that provides this package."""
    from importlib.metadata import PackageNotFoundError, version as dist_version
    for name in ("burn-torch-check", "burn-torch"):
        try:
            return dist_version(name)
        except PackageNotFoundError:
            continue
    return "unknown"


def rule_list(entries: Sequence[CatalogEntry]) -> str:
    """One line per entry: code, severity, id, title (``--list-rules``)."""
    return "\n".join(f"{e.code}  {e.severity:6}  {e.id:36}  {e.title}" for e in
                     sorted(entries, key=lambda e: e.code))


def explain(token: str, entries: Sequence[CatalogEntry]) -> str | None:
    """The text of the entry with code or id ``token`` (``--explain``), or None."""
    for e in entries:
        if token.strip().upper() == e.code or token.strip() == e.id:
            return "\n".join([f"{e.code} {e.id} ({e.severity}): {e.title}", "", f"What differs: {e.what}",
                              "", f"Why: {' '.join(e.why.split())}", "", f"How to port: {e.recipe}", "",
                              f"Guide: {guide_location(e)}"])
    return None


def summary(findings: Sequence[Finding], n_files: int) -> str:
    silent = sum(f.entry.silent for f in findings)
    return (f"{len(findings)} finding{'s' if len(findings) != 1 else ''} ({silent} silent, "
            f"{len(findings) - silent} loud) "
            f"in {n_files} file{'s' if n_files != 1 else ''}")


def as_text(findings: Sequence[Finding], n_files: int) -> str:
    lines = [f.format() for f in findings]
    lines.append(summary(findings, n_files))
    if findings:
        lines.append(f"Each id is a section of the burn_torch migration guide ({guide_location()}).")
    return "\n".join(lines)


def as_json(findings: Sequence[Finding]) -> str:
    """A JSON list, one object per finding."""
    return json.dumps([{"path": f.path, "line": f.line, "col": f.col, "code": f.code,
                        "id": f.entry.id, "severity": f.entry.severity, "what": f.entry.what,
                        "recipe": f.recipe, "guide": f"{GUIDE.rpartition('/')[0]}/{f.entry.guide_link()}",
                        "guide_location": guide_location(f.entry),
                        "fixable": f.fix is not None} for f in findings], indent=1)


def _escape(text: str, prop: bool = False) -> str:
    text = text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")
    return text.replace(":", "%3A").replace(",", "%2C") if prop else text


def as_github(findings: Sequence[Finding]) -> str:
    """GitHub Actions workflow commands: ``::error`` for silent divergences, ``::warning`` for
    loud ones."""
    return "\n".join(
        f"::{'error' if f.entry.silent else 'warning'} file={_escape(f.path, True)},line={f.line},"
        f"col={f.col},title={_escape(f'{f.code} {f.entry.id}', True)}::{_escape(f.message)}"
        for f in findings)


def render(fmt: str, findings: Sequence[Finding], n_files: int) -> str:
    """The findings in format ``fmt``. Raises KeyError for an unknown format."""
    return {"text": lambda: as_text(findings, n_files), "json": lambda: as_json(findings),
            "github": lambda: as_github(findings)}[fmt]()
