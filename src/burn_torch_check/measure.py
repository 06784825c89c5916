"""Precision and recall of the checker on a labelled corpus, per catalog entry.

A corpus is a directory of real PyTorch files, each ``name.py`` with a sidecar
``name.labels.json``: ``{"file": "name.py", "expected": [{"line", "col", "entry"}, ...]}``
listing every place a careful porter needs to see, judged by the catalog entry's own text. A
label may carry ``"miss": "why"``: a place the checker is known not to report (kept so that the
recall stays honest). A finding matches a label with the same line, column and entry; a label
without a column (the held-out corpus is labelled by line) matches a finding of its entry on its
line, each finding at most one label. A label may name an entry the catalog does not have yet:
it counts as a miss until the entry and its detector exist.
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
    col: int | None  # None: any column of the line
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
        out[source] = [Label(e["line"], e.get("col"), e["entry"], e.get("miss")) for e in data["expected"]]
    return out


def _match(found: list[tuple[int, int, str]], wanted: list[Label]):
    """Pairs findings with labels: exact (line, column, entry) first, then column-less labels
    with a finding of their entry on their line. Returns (matched, unmatched findings,
    unmatched labels)."""
    free = list(found)
    matched, missed = [], []
    for label in sorted(wanted, key=lambda lab: lab.col is None):
        for place in free:
            if place[0] == label.line and place[2] == label.entry and label.col in (None, place[1]):
                free.remove(place)
                matched.append(place)
                break
        else:
            missed.append(label)
    return matched, free, missed


def measure_files(sources: dict[Path, list[Label]]) -> tuple[dict[str, Counts], dict[str, Counts]]:
    """(entry id → counts, file name → counts) over ``sources`` (entries and files neither
    labelled nor reported are absent)."""
    counts: dict[str, Counts] = {}
    per_file: dict[str, Counts] = {}
    for source, expected in sources.items():
        found = sorted({(f.line, f.col, f.entry.id)
                        for f in check_source(source.read_text(encoding="utf-8"), str(source))})
        matched, false_positives, misses = _match(found, expected)
        file_counts = per_file.setdefault(source.name, Counts())
        for place in matched:
            counts.setdefault(place[2], Counts()).tp += 1
            file_counts.tp += 1
        for place in false_positives:
            c = counts.setdefault(place[2], Counts())
            c.fp += 1
            c.false_positives.append((source.name, place[0], place[1]))
            file_counts.fp += 1
            file_counts.false_positives.append((place[0], place[1], place[2]))
        for label in misses:
            c = counts.setdefault(label.entry, Counts())
            c.fn += 1
            c.false_negatives.append((source.name, label.line, label.col))
            file_counts.fn += 1
            file_counts.false_negatives.append((label.line, label.col, label.entry))
    return dict(sorted(counts.items())), per_file


def measure(corpus: Path) -> dict[str, Counts]:
    """Entry id → its counts over every file of ``corpus`` (entries neither labelled nor
    reported are absent)."""
    return measure_files(labels(corpus))[0]


def overall(counts: dict[str, Counts]) -> Counts:
    """The counts summed over entries (micro-averaged precision and recall)."""
    total = Counts()
    for c in counts.values():
        total.tp += c.tp
        total.fp += c.fp
        total.fn += c.fn
    return total


def report(corpus: Path) -> str:
    """The figures of ``corpus`` as text: overall, per file, per entry, then every error."""
    by_entry, by_file = measure_files(labels(corpus))

    def pct(value: float | None) -> str:
        return "   –  " if value is None else f"{100 * value:5.1f}%"

    def row(name: str, c: Counts) -> str:
        return f"{name:44} {c.tp:4} {c.fp:4} {c.fn:4}  {pct(c.precision)} {pct(c.recall)}"
    total = overall(by_entry)
    lines = [f"{corpus.name}: {len(by_file)} files, {total.tp + total.fn} labelled places, "
             f"precision {pct(total.precision).strip()}, recall {pct(total.recall).strip()}", "",
             f"{'file':44}   tp   fp   fn  precision recall"]
    lines += [row(name, c) for name, c in sorted(by_file.items())]
    lines += ["", f"{'entry':44}   tp   fp   fn  precision recall"]
    lines += [row(name, c) for name, c in by_entry.items()]
    errors = [f"  false positive {f}:{line}:{col} {entry}" for f, c in sorted(by_file.items())
              for line, col, entry in c.false_positives]
    errors += [f"  miss {f}:{line} {entry}" for f, c in sorted(by_file.items())
               for line, col, entry in c.false_negatives]
    return "\n".join(lines + ["", "errors:", *errors])


if __name__ == "__main__":
    import sys
    for folder in sys.argv[1:]:
        print(report(Path(folder)))
