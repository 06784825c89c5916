"""The checker's precision and recall on held-out real files meet the targets.

tests/data/porting_heldout/ holds twelve real files the checker was not developed on, each
labelled by hand, by line and catalog entry, before the checker first ran on them (see that
folder's README.md for the labelling rules and the first run's figures). Every catalogued
divergence counts. Target: precision >= 0.95 and recall >= 0.90 over the corpus. ``python -m burn_torch_check.measure tests/data/porting_heldout`` prints the
figures per file and per entry.
"""
from __future__ import annotations

import re
from pathlib import Path

import pytest

from burn_torch_check.catalog import catalog
from burn_torch_check.measure import labels, measure_files, overall

ROOT = Path(__file__).resolve().parent.parent
HELDOUT = ROOT / "tests" / "data" / "porting_heldout"
LABELS = labels(HELDOUT)
BY_ENTRY, BY_FILE = measure_files(LABELS)
_HEADER = re.compile(r"^# Source: https://github\.com/[\w.-]+/[\w.-]+ — \S+ at commit [0-9a-f]{40} \(.+\)\.$")


def test_there_are_at_least_ten_held_out_files_from_several_repositories():
    repositories = {source.read_text(encoding="utf-8").split(" — ")[0] for source in LABELS}
    assert len(LABELS) >= 10 and len(repositories) >= 4


@pytest.mark.parametrize("source", sorted(LABELS), ids=lambda p: p.name)
def test_each_file_names_its_repository_path_and_commit(source):
    assert _HEADER.match(source.read_text(encoding="utf-8").splitlines()[0])


def test_labels_are_by_line_and_name_catalog_entries():
    ids = {e.id for e in catalog()}
    for source, expected in LABELS.items():
        n_lines = len(source.read_text(encoding="utf-8").splitlines())
        for label in expected:
            assert label.col is None and label.entry in ids and 1 <= label.line <= n_lines, (source.name, label)


def test_held_out_precision_is_at_least_95_percent():
    total = overall(BY_ENTRY)
    assert total.precision >= 0.95, [c.false_positives for c in BY_FILE.values() if c.fp]


def test_held_out_recall_counting_every_catalogued_divergence_is_at_least_90_percent():
    # entries without a detector have no findings: their labels are misses
    total = overall(BY_ENTRY)
    assert total.recall >= 0.90, [c.false_negatives for c in BY_FILE.values() if c.fn]
