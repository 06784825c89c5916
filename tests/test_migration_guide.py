"""The migration guide is generated from the catalog and cannot go stale.

migration_guide/*.md and src/burn_torch_check/catalog.json must equal what
``python -m burn_torch.compat.guide`` generates from compat/ (regenerate after changing an
entry or a section text); the code blocks of the guide's prose run; every link resolves.
"""
from __future__ import annotations

import re
from pathlib import Path

import pytest

from burn_torch.compat.catalog import SECTIONS
from burn_torch.compat.entry import SIDES, mismatches, run_snippet
from burn_torch.compat.guide import SILENT_MARK, generate, ordered_entries
from burn_torch.compat.guide import main as guide_main

ROOT = Path(__file__).resolve().parent.parent
GUIDE = ROOT / "migration_guide"
GENERATED = generate(ROOT)
TEMPLATES = sorted((ROOT / "compat").glob("**/_guide.md"))
_BLOCK = re.compile(r"^```python\n(.*?)^```", re.MULTILINE | re.DOTALL)
_LINK = re.compile(r"\]\(([^)#\s]*)(?:#([^)\s]+))?\)")


@pytest.mark.parametrize("path", sorted(GENERATED), ids=lambda p: str(p.relative_to(ROOT)))
def test_committed_file_equals_the_generated_one(path):
    assert path.exists(), f"run python -m burn_torch.compat.guide to create {path.relative_to(ROOT)}"
    assert path.read_text(encoding="utf-8") == GENERATED[path], \
        f"{path.relative_to(ROOT)} is stale: run python -m burn_torch.compat.guide"


def test_the_guide_has_an_index_and_one_file_per_section():
    assert sorted(p.name for p in GUIDE.glob("*.md")) == sorted(["README.md", *(f for _, _, f in SECTIONS)])


def test_index_table_lists_every_entry_once_silent_first():
    index = GENERATED[GUIDE / "README.md"]
    rows = [line for line in index.splitlines() if line.startswith("| ") and "](" in line]
    ids = [re.findall(r"\(`([a-z0-9_]+)`\)", row)[-1] for row in rows]
    entries = ordered_entries(ROOT)
    assert sorted(ids) == sorted(e.id for e in entries)
    marks = [row.startswith(f"| {SILENT_MARK} ") for row in rows]
    assert marks == sorted(marks, reverse=True) and any(marks) and not all(marks)


def test_every_entry_has_its_anchor_in_its_section():
    for e in ordered_entries(ROOT):
        section = next(f for c, _, f in SECTIONS if c == e.category)
        assert GENERATED[GUIDE / section].count(f'<a id="{e.id}"></a>') == 1


def test_every_link_resolves():
    anchors = {p.name: set(re.findall(r'<a id="([^"]+)"></a>', text)) for p, text in GENERATED.items()
               if p.parent == GUIDE}
    for path, text in GENERATED.items():
        if path.parent != GUIDE:
            continue
        for target, anchor in _LINK.findall(text):
            if target.startswith("http"):
                continue
            if target.startswith("../docs/"):  # the documentation pages, in the repository
                assert (GUIDE / target).resolve().is_file(), f"{path.name} links to missing {target}"
                continue
            assert target in anchors, f"{path.name} links to missing {target}"
            assert not anchor or anchor in anchors[target], f"{path.name} links to {target}#{anchor}"


@pytest.mark.parametrize("template", TEMPLATES, ids=lambda p: str(p.relative_to(ROOT)))
def test_prose_code_blocks_run(template):
    blocks = _BLOCK.findall(template.read_text(encoding="utf-8"))
    for block in blocks:
        exec(compile(block, str(template), "exec"), {"__name__": "guide_block"})


def test_readme_differences_table_points_at_entries_with_their_severity():
    severity = {e.id: e.severity for e in ordered_entries(ROOT)}
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    rows = re.findall(r"\[(⚠ silent|loud)\]\(migration_guide/([^)#]+)#([a-z0-9_]+)\)", readme)
    assert len(rows) >= 10
    for mark, target, entry_id in rows:
        assert f'<a id="{entry_id}"></a>' in GENERATED[GUIDE / target], f"README links to {target}#{entry_id}"
        assert mark == (SILENT_MARK if severity[entry_id] == "silent" else "loud"), entry_id


def test_every_snippet_runs_as_shown_after_the_guides_imports():
    imports = _BLOCK.findall((ROOT / "compat" / "_guide.md").read_text(encoding="utf-8"))[0]
    namespace = {"__name__": "guide_snippet"}
    exec(imports, namespace)
    for e in ordered_entries(ROOT):
        for side, _ in SIDES:
            snippet = e.snippet(side)
            run = run_snippet(snippet, namespace)
            assert mismatches(e.expected(side), run, len(snippet.statements)) == [], (e.id, side)


def test_check_mode_reports_an_up_to_date_guide(capsys):
    assert guide_main(["--check"]) == 0
    assert capsys.readouterr().out == ""
