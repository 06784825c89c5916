"""Output formats: ``text`` (``path:line:col: BTnnn id: what → how``), ``json`` and ``github``
(workflow commands that annotate a pull request)."""
from __future__ import annotations

import json
from typing import Sequence

from .check import GUIDE, Finding


def summary(findings: Sequence[Finding], n_files: int) -> str:
    silent = sum(f.entry.silent for f in findings)
    return (f"{len(findings)} findings ({silent} silent, {len(findings) - silent} loud) "
            f"in {n_files} file{'s' if n_files != 1 else ''}")


def as_text(findings: Sequence[Finding], n_files: int) -> str:
    lines = [f.format() for f in findings]
    lines.append(summary(findings, n_files))
    if findings:
        lines.append(f"Each id is a section of the burn_torch migration guide ({GUIDE}).")
    return "\n".join(lines)


def as_json(findings: Sequence[Finding]) -> str:
    """A JSON list, one object per finding."""
    return json.dumps([{"path": f.path, "line": f.line, "col": f.col, "code": f.code,
                        "id": f.entry.id, "severity": f.entry.severity, "what": f.entry.what,
                        "recipe": f.recipe, "guide": f"{GUIDE.rpartition('/')[0]}/{f.entry.guide_link()}",
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
