"""The compat catalog: every entry's claims hold against real torch and burn_torch.

Each entry under compat/ runs three snippets — PyTorch (real torch autograd), the same code in
burn_torch, and the port — and each must do exactly what the entry declares (observed values, or
the exception type and message). Severity is checked against behaviour: a *loud* entry's
literal translation raises, a *silent* one runs and observes something different from PyTorch.
"""
from __future__ import annotations

from pathlib import Path

import pytest
import torch

from burn_torch import Device, Int, Tensor
from burn_torch.compat import catalog, from_torch, to_torch
from burn_torch.compat.detectors import DETECTORS
from burn_torch.compat.entry import (SIDES, Raises, Snippet, SourceEntry, load_entries, mismatches,
                                    render_snippet, run_snippet)
from burn_torch.compat.guide import ordered_entries

ROOT = Path(__file__).resolve().parent.parent
ENTRIES = load_entries(ROOT / "compat")
IDS = [e.id for e in ENTRIES]
PLAIN = (type(None), bool, int, float, str)


def _plain(value) -> bool:
    if isinstance(value, (list, tuple)):
        return all(_plain(v) for v in value)
    return isinstance(value, PLAIN)


@pytest.mark.parametrize("side", [s for s, _ in SIDES])
@pytest.mark.parametrize("entry", ENTRIES, ids=IDS)
def test_snippet_does_what_the_entry_declares(entry: SourceEntry, side: str):
    snippet = entry.snippet(side)
    run = run_snippet(snippet)
    assert mismatches(entry.expected(side), run, len(snippet.statements)) == []


@pytest.mark.parametrize("entry", ENTRIES, ids=IDS)
def test_observations_are_declared_plain_values(entry: SourceEntry):
    for side, _ in SIDES:
        expected = entry.expected(side)
        if isinstance(expected, Raises):
            continue
        assert expected, f"{side} observes nothing"
        assert list(expected) == list(entry.snippet(side).observations), \
            f"{side}: every declared observation must be a trailing expression statement, in order"
        assert all(_plain(v) for v in expected.values())


@pytest.mark.parametrize("entry", ENTRIES, ids=IDS)
def test_severity_matches_the_literal_translation(entry: SourceEntry):
    literal, torch_outcome = entry.expected("burn_literal"), entry.expected("torch_side")
    if entry.severity == "loud":
        assert isinstance(literal, Raises)
    else:
        assert not isinstance(literal, Raises)
        assert isinstance(torch_outcome, Raises) or list(literal.values()) != list(torch_outcome.values())


@pytest.mark.parametrize("entry", ENTRIES, ids=IDS)
def test_the_port_never_raises(entry: SourceEntry):
    assert not isinstance(entry.expected("burn_side"), Raises)


@pytest.mark.parametrize("entry", ENTRIES, ids=IDS)
def test_entry_metadata_is_complete(entry: SourceEntry):
    assert entry.path.stem == entry.id and entry.path.parent.name == entry.category
    assert entry.title and entry.what and entry.why and entry.recipe
    assert len(entry.what) <= 120 and len(entry.recipe) <= 120, "WHAT and RECIPE are one line each"
    assert set(entry.detectors) <= DETECTORS.keys()


def test_ids_are_unique():
    assert len(IDS) == len(set(IDS))


def test_every_detector_belongs_to_exactly_one_entry():
    named = [d for e in ENTRIES for d in e.detectors]
    assert sorted(named) == sorted(DETECTORS)


def test_catalog_json_lists_every_entry_in_guide_order():
    assert [e.id for e in catalog()] == [e.id for e in ordered_entries(ROOT)]
    assert {e.id: e.severity for e in catalog()} == {e.id: e.severity for e in ENTRIES}


def test_catalog_covers_at_least_forty_divergences_both_kinds():
    severities = [e.severity for e in ENTRIES]
    assert len(ENTRIES) >= 40
    assert severities.count("silent") >= 10 and severities.count("loud") >= 10


# ============================================ the conversion helpers the entries recommend ====
def test_from_torch_shares_storage_and_takes_the_device_context():
    t = torch.tensor([1.0, 2.0])
    x = from_torch(t, Device.cpu().autodiff())
    t[0] = 10.0
    assert x.to_data().to_list() == [10.0, 2.0]
    assert x.is_autodiff() and not x.is_tracked()


def test_from_torch_drops_torch_autograd_state():
    t = torch.tensor([1.0, 2.0], requires_grad=True) * 2
    x = from_torch(t, Device.cpu().autodiff())
    assert not x.to_torch().requires_grad and x.to_torch().grad_fn is None
    assert x.to_torch().data_ptr() == t.data_ptr()


def test_from_torch_keeps_the_kind():
    assert from_torch(torch.tensor([1, 2]), Device.cpu()).kind is Int


def test_from_torch_rejects_another_device():
    with pytest.raises(ValueError, match=r"on cpu but the device is meta; move it with t.to\('meta'\)"):
        from_torch(torch.zeros(2), Device(torch.device("meta")))


def test_from_torch_rejects_non_tensors_and_unknown_dtypes():
    with pytest.raises(TypeError, match="expects a torch.Tensor, got list"):
        from_torch([1.0], Device.cpu())
    with pytest.raises(TypeError, match="has no burn_torch DType"):
        from_torch(torch.zeros(2, dtype=torch.complex64), Device.cpu())


def test_to_torch_is_the_storage():
    x = Tensor.from_floats([1.0, 2.0], Device.cpu().autodiff()).require_grad()
    t = to_torch(x)
    assert t is x.to_torch() and not t.requires_grad
    with pytest.raises(TypeError, match="expects a burn_torch.Tensor, got torch.Tensor"):
        to_torch(torch.zeros(1))


# ======================================================== the entry format's own machinery ====
def _observing():
    values = [1, 2]
    values.append(3)
    len(values)
    values[-1] * 2


def _raising_early():
    1 / 0
    done = True


def test_observations_are_the_declared_trailing_expressions():
    snippet = Snippet.of(_observing, {"len(values)", "values[-1] * 2"})
    assert snippet.observations == ("len(values)", "values[-1] * 2")
    assert run_snippet(snippet).values == {"len(values)": 3, "values[-1] * 2": 6}
    assert Snippet.of(_observing, {"values[-1] * 2"}).observations == ("values[-1] * 2",)


def test_a_wrong_value_is_a_mismatch():
    snippet = Snippet.of(_observing, {"len(values)", "values[-1] * 2"})
    assert mismatches({"len(values)": 3, "values[-1] * 2": 7}, run_snippet(snippet), 4) == [
        "expected {'len(values)': 3, 'values[-1] * 2': 7}, got {'len(values)': 3, 'values[-1] * 2': 6}"]


def test_a_wrong_exception_or_an_early_one_is_a_mismatch():
    run = run_snippet(Snippet.of(_raising_early))
    assert run.error_statement == 0 and type(run.error) is ZeroDivisionError
    assert mismatches(Raises(ValueError, "division"), run, 2) == [
        "expected to raises ValueError: division, but it raised ZeroDivisionError: division by zero"]
    assert mismatches(Raises(ZeroDivisionError, "division by zero"), run, 2) == [
        "raised in statement 1 of 2; a raising snippet must raise in its last statement"]


def test_rendering_annotates_observations_and_the_raising_statement():
    snippet = Snippet.of(_observing, {"len(values)", "values[-1] * 2"})
    assert render_snippet(snippet, {"len(values)": 3, "values[-1] * 2": 6}) == (
        "values = [1, 2]\nvalues.append(3)\nlen(values)  # → 3\nvalues[-1] * 2  # → 6")
    assert render_snippet(Snippet.of(_raising_early), Raises(ZeroDivisionError, "by zero")) == (
        "1 / 0\ndone = True  # raises ZeroDivisionError: by zero")


def _defines_a_function():
    def double(v):
        return 2 * v
    double(3)


def _returns_early():
    if True:
        return


def test_a_snippet_may_define_functions_that_return():
    assert run_snippet(Snippet.of(_defines_a_function, {"double(3)"})).values == {"double(3)": 6}


def test_a_snippet_itself_may_not_return():
    with pytest.raises(ValueError, match="snippets end with observations, not return"):
        Snippet.of(_returns_early)
