"""burn-torch-port on real programs (``tests/data/port_corpus/``): the example ports' torch
originals (tuning) and seven programs held out while the translator was written (the split is in
``SPLIT.md``). Each program's record (``<name>.expected.json``) holds the translator's report,
the hand edits that make the port run (marked or not), the verification and its outcome; these
tests keep the translator to its records. ``benchmarks/port_corpus.py`` prints the table."""
from __future__ import annotations

import pathlib
import re
import sys
import tempfile

import pytest

from burn_torch_check.port import summarize, translate_source

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent.parent / "benchmarks"))
import port_corpus  # noqa: E402

CASES = port_corpus.cases()
SOURCE_LINE = re.compile(r"^# Source: https://github\.com/[\w.-]+/[\w.-]+ — \S+ at commit [0-9a-f]{40} \(.+\)\.$")


pytestmark = pytest.mark.usefixtures("torch_default_kernels")  # the probes are tiny and run once


def test_each_program_names_its_repository_path_and_commit():
    for case in CASES:
        assert SOURCE_LINE.match(case.source.read_text(encoding="utf-8").splitlines()[0]), case.name


def test_the_split_written_before_the_held_out_run_names_every_program():
    split = (port_corpus.CORPUS / "SPLIT.md").read_text(encoding="utf-8")
    for case in CASES:
        assert f"`{case.name}" in split and case.source.relative_to(port_corpus.CORPUS.parent).as_posix() in split
    assert {c.split for c in CASES} == {"tuning", "held-out"}
    assert sum(c.split == "held-out" for c in CASES) >= 6


@pytest.mark.parametrize("case", CASES, ids=lambda c: c.name)
def test_the_translation_reports_what_the_program_records(case):
    summary = summarize(translate_source(case.source.read_text(encoding="utf-8")))
    assert summary.as_dict() == case.expected["summary"]


@pytest.mark.parametrize("case", CASES, ids=lambda c: c.name)
def test_the_recorded_hand_edits_apply_and_are_marked_where_recorded(case):
    port_corpus.port_of(case)  # raises for an edit that does not apply or misstates its marker


@pytest.mark.parametrize("case", CASES, ids=lambda c: c.name)
def test_each_port_verifies_as_recorded(case, tmp_path):
    report = port_corpus.verify(case, tmp_path)
    assert report.passed is case.expected["verified"], report.summary()


def test_the_held_out_programs_meet_the_targets():
    """At least 90% of model-code lines and 75% of loop lines need no hand edit, and no program
    needs more hand edits than it has marked lines plus the unmarked ones it records."""
    held_out = [c for c in CASES if c.split == "held-out"]
    parts = {p: [c.expected["summary"][p] for c in held_out] for p in ("model", "loop")}
    share = {p: 1 - sum(x["left"] for x in v) / sum(x["lines"] for x in v) for p, v in parts.items()}
    assert share["model"] >= 0.9 and share["loop"] >= 0.75
    assert all(e["marked"] for c in held_out for e in c.expected["edits"])


def test_a_translated_program_runs_end_to_end_like_its_original():
    case = next(c for c in CASES if c.name == "heldout_feedforward")
    with tempfile.TemporaryDirectory() as tmp:
        port = pathlib.Path(tmp) / "port.py"
        port.write_text(port_corpus.port_of(case), encoding="utf-8")
        assert port_corpus.run(port, pathlib.Path(tmp)) == 0
