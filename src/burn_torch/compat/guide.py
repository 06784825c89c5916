"""Generates the migration guide and ``catalog.json`` from the catalog's entry files.

``python -m burn_torch.compat.guide`` (from a checkout) rewrites ``migration_guide/*.md`` and
``src/burn_torch_check/catalog.json``; ``--check`` only reports whether they are up to date
(exit 1 when not). The guide's prose lives next to the entries: ``compat/_guide.md`` is the
index's introduction and ``compat/<category>/_guide.md`` a section's text, in which a line
``{{entry: ID}}`` places an entry. Every code block of an entry is the source of its snippet
functions, annotated with the outcomes the entry declares (and the test suite verifies).
"""
from __future__ import annotations

import argparse
import dataclasses
import json
import re
import sys
from pathlib import Path

from burn_torch_check.codes import assign_codes
from burn_torch_check.measure import measure, overall

from .catalog import CATALOG_JSON, SECTIONS, section_file
from .check import check_source
from .detectors import DETECTORS
from .entry import Raises, SourceEntry, load_entries, render_snippet

ROOT = Path(__file__).resolve().parents[3]
_PLACEHOLDER = re.compile(r"^\{\{entry: *([a-z0-9_]+) *\}\}$", re.MULTILINE)
SILENT_MARK = "⚠ silent"
LOUD_MARK = "loud"
_SIDE_TITLES = (("torch_side", "PyTorch"), ("burn_literal", "The same code in burn_torch"),
                ("burn_side", "The port"))


def ordered_entries(root: Path) -> list[SourceEntry]:
    """Every entry in guide order: by section, then where its section's ``_guide.md`` places it.

    Raises ValueError when an entry is placed twice or not at all, a placeholder names no entry
    of its section, or an entry's CATEGORY is not its directory or not a known section."""
    entries = load_entries(root / "compat")
    by_id = {e.id: e for e in entries}
    for e in entries:
        if e.path.stem != e.id or e.path.parent.name != e.category:
            raise ValueError(f"{e.path}: ID and CATEGORY must be the file's stem and directory")
        if e.category not in {c for c, _, _ in SECTIONS}:
            raise ValueError(f"{e.path}: unknown category {e.category!r}")
    ordered = []
    for category, _, _ in SECTIONS:
        for entry_id in _PLACEHOLDER.findall(_section_text(root, category)):
            placed = by_id.get(entry_id)
            if placed is None or placed.category != category:
                raise ValueError(f"compat/{category}/_guide.md places unknown entry {entry_id!r}")
            ordered.append(placed)
    ids = [e.id for e in ordered]
    dupes = {i for i in ids if ids.count(i) > 1}
    unplaced = set(by_id) - set(ids)
    if dupes or unplaced:
        raise ValueError(f"entries placed twice: {sorted(dupes)}; not placed: {sorted(unplaced)}")
    codes = assign_codes([(e.id, e.category) for e in ordered], read_codes(root))
    return [dataclasses.replace(e, code=codes[e.id]) for e in ordered]


def codes_file(root: Path) -> Path:
    """``compat/_codes.json``: every checker code ever assigned (entry id → ``BTnnn``)."""
    return root / "compat" / "_codes.json"


def read_codes(root: Path) -> dict[str, str]:
    path = codes_file(root)
    return json.loads(path.read_text(encoding="utf-8")) if path.exists() else {}


def _section_text(root: Path, category: str) -> str:
    path = root / "compat" / category / "_guide.md"
    return path.read_text(encoding="utf-8") if path.exists() else ""


def severity_mark(e: SourceEntry) -> str:
    return SILENT_MARK if e.severity == "silent" else LOUD_MARK


def render_entry(e: SourceEntry) -> str:
    """The markdown of one entry: heading with anchor, what differs, the three snippets, why,
    how to port and what the porting checker finds."""
    parts = [f'### <a id="{e.id}"></a>{e.title} ({severity_mark(e)})', "",
             f"**What differs:** {e.what}", ""]
    torch_outcome = e.expected("torch_side")
    for side, title in _SIDE_TITLES:
        outcome = e.expected(side)
        note = ""
        if side == "burn_literal":
            note = " — raises" if isinstance(outcome, Raises) else " — runs, with different results"
        # (the catalog's burn side runs wherever its torch side runs)
        elif side == "burn_side" and not isinstance(torch_outcome, Raises) \
                and list(outcome.values()) == list(torch_outcome.values()):  # type: ignore[union-attr]
            note = " — same results as PyTorch"
        parts += [f"**{title}**{note}", "", "```python", render_snippet(e.snippet(side), outcome),
                  "```", ""]
    parts += [f"**Why:** {e.why}", "", f"**How to port:** {e.recipe}", ""]
    if e.detectors:
        idioms = ", ".join(DETECTORS[d].idiom for d in e.detectors)
        parts += [f"*The porting checker reports* {idioms} *as* `{e.code}` (`{e.id}`).", ""]
    return "\n".join(parts)


def render_section(root: Path, index: int, category: str, title: str,
                   entries: dict[str, SourceEntry]) -> str:
    body = _PLACEHOLDER.sub(lambda m: render_entry(entries[m.group(1)]).rstrip(),
                            _section_text(root, category).strip())
    prev_next = ["[Index](README.md)"]
    if index > 0:
        prev_next.insert(0, f"[← {SECTIONS[index - 1][1]}]({SECTIONS[index - 1][2]})")
    if index + 1 < len(SECTIONS):
        prev_next.append(f"[{SECTIONS[index + 1][1]} →]({SECTIONS[index + 1][2]})")
    nav = " · ".join(prev_next)
    return (f"<!-- Generated by `python -m burn_torch.compat.guide` from compat/{category}/; "
            f"do not edit. -->\n# {index + 1}. {title}\n\n{nav}\n\n{body}\n\n---\n\n{nav}\n")


def checker_example(entries: list[SourceEntry]) -> str:
    """What the porting checker prints for a two-line file ``train.py``."""
    source = "loss.backward()\nprint(w.grad.sum(1))\n"
    return "\n".join(f.format() for f in check_source(source, "train.py", entries))


def checker_accuracy(root: Path, entries: list[SourceEntry]) -> str:
    """The checker's precision and recall per entry on ``tests/data/porting_corpus/`` (a
    markdown table), the overall figures and the entries with a detector it does not exercise."""
    counts = measure(root / "tests" / "data" / "porting_corpus")
    files = len(list((root / "tests" / "data" / "porting_corpus").glob("*.py")))
    code = {e.id: e.code for e in entries}

    def pct(value: float | None) -> str:
        return "–" if value is None else f"{100 * value:.1f}%"
    rows = ["| Entry | Code | Labelled | Reported | Precision | Recall |", "|---|---|---|---|---|---|"]
    for entry_id, c in counts.items():
        rows.append(f"| `{entry_id}` | {code.get(entry_id, '')} | {c.tp + c.fn} | {c.tp + c.fp} "
                    f"| {pct(c.precision)} | {pct(c.recall)} |")
    total = overall(counts)
    heldout_dir = root / "tests" / "data" / "porting_heldout"
    heldout = overall(measure(heldout_dir))
    unmeasured = [f"`{e.id}`" for e in entries if e.detectors and e.id not in counts]
    return "\n".join([f"{files} files, {total.tp + total.fn} labelled places: precision "
                      f"{pct(total.precision)}, recall {pct(total.recall)} overall. Held out "
                      f"(`tests/data/porting_heldout/`, {len(list(heldout_dir.glob('*.py')))} files "
                      f"labelled by line, every catalogued divergence counting): "
                      f"{heldout.tp + heldout.fn} places, precision {pct(heldout.precision)}, "
                      f"recall {pct(heldout.recall)}.", "",
                      *rows, "", "Entries with a detector that the corpus does not exercise: "
                      f"{', '.join(unmeasured) or 'none'}. Entries without a detector are not "
                      "reported (the index below shows which)."])


def render_index(root: Path, entries: list[SourceEntry]) -> str:
    intro = (root / "compat" / "_guide.md").read_text(encoding="utf-8").strip()
    intro = intro.replace("{{checker_example}}", checker_example(entries))
    intro = intro.replace("{{checker_accuracy}}", checker_accuracy(root, entries))
    sections = "\n".join(f"{i + 1}. [{t}]({f})" for i, (_, t, f) in enumerate(SECTIONS))
    rows = ["| | Divergence | Section | Checker |", "|---|---|---|---|"]
    titles = {c: t for c, t, _ in SECTIONS}
    for e in sorted(entries, key=lambda e: e.severity != "silent"):
        checker = "yes" if e.detectors else ""
        rows.append(f"| {severity_mark(e)} | [{e.title}]({section_file(e.category)}#{e.id}) "
                    f"(`{e.id}`) | {titles[e.category]} | {checker} |")
    n_silent = sum(e.severity == "silent" for e in entries)
    table = (f"{len(entries)} divergences, {n_silent} of them silent (listed first).\n\n"
             + "\n".join(rows))
    return ("<!-- Generated by `python -m burn_torch.compat.guide` from compat/; do not edit. -->\n"
            f"{intro.replace('{{sections}}', sections).replace('{{table}}', table)}\n")


def generate(root: Path = ROOT) -> dict[Path, str]:
    """Every generated file (absolute path → content) for the checkout at ``root``."""
    entries = ordered_entries(root)
    by_id = {e.id: e for e in entries}
    out = {root / "migration_guide" / "README.md": render_index(root, entries)}
    for i, (category, title, filename) in enumerate(SECTIONS):
        out[root / "migration_guide" / filename] = render_section(root, i, category, title, by_id)
    catalog_path = root / "src" / "burn_torch_check" / CATALOG_JSON.name
    out[catalog_path] = json.dumps([e.metadata() for e in entries], indent=1, ensure_ascii=False) + "\n"
    codes = {**read_codes(root), **{e.id: e.code for e in entries}}
    out[codes_file(root)] = json.dumps(codes, indent=1) + "\n"
    return out


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(prog="python -m burn_torch.compat.guide",
                                     description="Regenerate the migration guide and catalog.json.")
    parser.add_argument("--root", type=Path, default=ROOT, help="the repository checkout")
    parser.add_argument("--check", action="store_true", help="only report stale files (exit 1)")
    args = parser.parse_args(argv)
    stale = []
    for path, text in generate(args.root).items():
        current = path.read_text(encoding="utf-8") if path.exists() else None
        if current != text:
            stale.append(path)
            if not args.check:
                path.parent.mkdir(parents=True, exist_ok=True)
                path.write_text(text, encoding="utf-8")
    verb = "stale" if args.check else "written"
    for path in stale:
        print(f"{verb}: {path.relative_to(args.root)}")
    return 1 if (args.check and stale) else 0


if __name__ == "__main__":
    sys.exit(main())
