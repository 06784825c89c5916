"""Precision and recall of the checker on a labelled corpus, per catalog entry.

A corpus is a directory of real PyTorch files, each ``name.py`` with a sidecar
``name.labels.json``: ``{"file": "name.py", "expected": [{"line", "col", "entry"}, ...]}``
listing every place a careful porter needs to see, judged by the catalog entry's own text. A
label may carry ``"miss": "why"``: a place the checker is known not to report (kept so that the
recall stays honest). A finding matches a label with the same line, column and entry.
"""
from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path

from .check import check_source


@dataclass
class Counts:
    """True positives, false positives (reported, not labelled), false negatives (labelled,
    not reported) of one entry, with the places of the errors."""

    tp: int = 0
    fp: int = 0
    fn: int = 0
    false_positives: list = field(default_factory=list)
    false_negatives: list = field(default_factory=list)

    @property
    def precision(self) -> float | None:
        """None when the checker reported nothing for the entry."""
        return self.tp / (self.tp + self.fp) if self.tp + self.fp else None

    @property
    def recall(self) -> float | None:
        """None when nothing is labelled for the entry."""
        return self.tp / (self.tp + self.fn) if self.tp + self.fn else None


@dataclass(frozen=True)
class Label:
    line: int
    col: int
    entry: str
    miss: str | None = None


def labels(corpus: Path) -> dict[Path, list[Label]]:
    """Each corpus file → its labels. Raises ValueError for a labels file naming another file
    or a corpus file without labels."""
    out = {}
    for source in sorted(corpus.glob("*.py")):
        path = source.with_suffix(".labels.json")
        if not path.exists():
            raise ValueError(f"{source} has no labels file {path.name}")
        data = json.loads(path.read_text(encoding="utf-8"))
        if data.get("file") != source.name:
            raise ValueError(f"{path} labels {data.get('file')!r}, not {source.name!r}")
        out[source] = [Label(e["line"], e["col"], e["entry"], e.get("miss")) for e in data["expected"]]
    return out


def measure(corpus: Path) -> dict[str, Counts]:
    """Entry id → its counts over every file of ``corpus`` (entries neither labelled nor
    reported are absent)."""
    counts: dict[str, Counts] = {}
    for source, expected in labels(corpus).items():
        found = {(f.line, f.col, f.entry.id) for f in check_source(source.read_text(encoding="utf-8"), str(source))}
        wanted = {(e.line, e.col, e.entry) for e in expected}
        for place in found | wanted:
            c = counts.setdefault(place[2], Counts())
            where = (source.name, place[0], place[1])
            if place in found and place in wanted:
                c.tp += 1
            elif place in found:
                c.fp += 1
                c.false_positives.append(where)
            else:
                c.fn += 1
                c.false_negatives.append(where)
    return dict(sorted(counts.items()))


def overall(counts: dict[str, Counts]) -> Counts:
    """The counts summed over entries (micro-averaged precision and recall)."""
    total = Counts()
    for c in counts.values():
        total.tp += c.tp
        total.fp += c.fp
        total.fn += c.fn
    return total
