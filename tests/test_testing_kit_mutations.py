"""Mutation tests of the testing kit: for every plausible bug of tests/kit_mutants.py (backward
rules, forward kernels, Burn semantics, user composites), the correct code passes every mode and
the bug is caught by exactly the modes the table records (docs/testing-kit-mutations.md,
written by benchmarks/testing_kit_mutations.py)."""
from __future__ import annotations

import pytest

from kit_mutants import KINDS, MUTANTS, applicable, catching_modes, run_mode

IDS = [m.name for m in MUTANTS]


def test_at_least_forty_mutants_of_every_kind():
    assert len(MUTANTS) >= 40
    assert {m.kind for m in MUTANTS} == set(KINDS)
    assert len(set(IDS)) == len(IDS)


@pytest.mark.parametrize("mutant", MUTANTS, ids=IDS)
def test_the_correct_code_passes_every_mode(mutant):
    assert [m for m in applicable(mutant) if not run_mode(m, mutant.control, mutant)] == []


@pytest.mark.parametrize("mutant", MUTANTS, ids=IDS)
def test_the_bug_is_caught_by_the_recorded_modes(mutant):
    caught = catching_modes(mutant)
    assert caught, "no mode catches this bug"
    assert caught == mutant.caught & set(applicable(mutant))
