"""The translator's mapping table, tested both ways: the porting checker reports each row's
PyTorch example under the row's catalog code, and the translator writes the row's expected
burn_torch line (or, for a row it cannot translate, leaves the line marked with the code)."""
from __future__ import annotations

import pytest

from burn_torch_check.catalog import catalog
from burn_torch_check.check import check_source
from burn_torch_check.port import ROWS, translate_source
from burn_torch_check.port.template import fields_of, render
from port_probes import START, context, marked

ENTRIES = {e.id: e for e in catalog()}
TRANSLATED = [r for r in ROWS if not r.left and r.example]
LEFT = [r for r in ROWS if r.left and r.example]
CHECKED = [r for r in ROWS if r.entry and r.example and ENTRIES[r.entry].detectors]


def _example_lines(source: str, example: str) -> range:
    first = source.splitlines().index(next(l for l in source.splitlines() if START in l)) + 2
    return range(first, first + example.count("\n") + 1)


def test_each_row_names_a_catalog_entry_or_none_and_has_a_unique_id():
    assert len({r.id for r in ROWS}) == len(ROWS)
    for r in ROWS:
        assert r.entry is None or r.entry in ENTRIES, r.id
        assert r.code == (ENTRIES[r.entry].code if r.entry else "")


def test_every_row_either_translates_or_says_why_it_cannot():
    for r in ROWS:
        assert bool(r.burn) != bool(r.left) or r.id in ("zero_grad",), r.id  # zero_grad's translation is no line


@pytest.mark.parametrize("row", CHECKED, ids=lambda r: r.id)
def test_the_checker_reports_the_rows_torch_example_under_the_rows_code(row):
    source = context(row.section, row.example)
    lines = _example_lines(source, row.example)
    codes = {f.code for f in check_source(source, "example.py") if f.line in lines}
    assert row.code in codes


@pytest.mark.parametrize("row", TRANSLATED, ids=lambda r: r.id)
def test_the_translator_writes_the_rows_burn_torch_line(row):
    translation = translate_source(context(row.section, row.example))
    assert marked(translation.code) == row.expected
    assert any(e.row == row.id and e.kind == "translated" for e in translation.events) or row.id == "batch_from_torch"
    assert not any(e.kind == "left" for e in translation.events if e.line in
                   _example_lines(context(row.section, row.example), row.example))


@pytest.mark.parametrize("row", LEFT, ids=lambda r: r.id)
def test_a_row_that_cannot_keep_the_meaning_leaves_the_line_as_written_under_its_marker(row):
    translation = translate_source(context(row.section, row.example))
    inside = translation.code.split(START, 1)[1]
    marker = inside.strip().splitlines()[0].strip()
    assert marker == row.marker().strip()
    assert row.example in inside
    assert any(e.row == row.id and e.kind == "left" for e in translation.events)


def test_a_template_writes_an_optional_part_only_when_its_fields_are_given():
    template = "nn.LinearConfig({d_in}, {d_out})<?.with_bias({bias})?>.init({device})"
    assert fields_of(template) == {"d_in", "d_out", "bias", "device"}
    assert render(template, {"d_in": "4", "d_out": "2", "device": "d"}) == "nn.LinearConfig(4, 2).init(d)"
    assert render(template, {"d_in": "4", "d_out": "2", "bias": "False", "device": "d"}) == \
        "nn.LinearConfig(4, 2).with_bias(False).init(d)"
    with pytest.raises(KeyError, match="d_out"):
        render(template, {"d_in": "4", "device": "d"})
