"""The testing kit's pytest plugin: the burn_check fixture takes the --burn-torch-* options, and
the hypothesis CI profile is registered."""
from __future__ import annotations

from importlib.metadata import entry_points
from pathlib import Path

import numpy  # noqa: F401 - imported once here: in-process pytester runs cannot re-import
import pytest
import torch  # noqa: F401 - numpy and torch (the user tests import them)

pytest_plugins = ["pytester"]

PLUGIN = "burn_torch_pytest.plugin"
# installed (the README's set-up), pytest loads the plugin through its entry point; from a bare
# source tree it must be named with -p
_LOAD = () if any(e.value == PLUGIN for e in entry_points(group="pytest11")) else ("-p", PLUGIN)

USER_TESTS = '''
import numpy as np
import torch

X = np.linspace(-1.0, 1.0, 6).reshape(2, 3)


def test_options_reach_the_checker(burn_check, request):
    want = request.config.getoption("--burn-torch-strategies")
    names = {"both": ("DISABLED", "BALANCED"), "disabled": ("DISABLED",), "balanced": ("BALANCED",)}
    assert tuple(s.name for s in burn_check.strategies) == names[want]
    print("SEED", burn_check.seed, "SCALE", burn_check.tolerance_scale)


def test_the_checker_runs_the_reference(burn_check):
    burn_check.matches_torch(lambda x: x.exp(), torch.exp, X)
    burn_check.grads_match_torch(lambda x: x.sin(), X)


def test_loose_tolerance_accepts_a_small_error(burn_check):
    burn_check.matches_torch(lambda x: x * (1 + 1e-9), lambda x: x, X, numeric=False)
'''


@pytest.fixture
def user_tests(pytester):
    pytester.makepyfile(test_user=USER_TESTS)
    return pytester


def test_fixture_takes_the_options(user_tests):
    result = user_tests.runpytest_inprocess(*_LOAD, "-s", "--burn-torch-strategies=balanced",
                                            "--burn-torch-seed=7", "--burn-torch-tolerance=loose")
    result.assert_outcomes(passed=3)
    assert "SEED 7 SCALE 100.0" in result.stdout.str()


def test_default_profile_rejects_the_small_error(user_tests):
    result = user_tests.runpytest_inprocess(*_LOAD, "-k", "loose")
    result.assert_outcomes(failed=1)
    assert "outside rtol=1e-10" in result.stdout.str()


def test_options_are_listed_in_help(user_tests):
    out = user_tests.runpytest_inprocess(*_LOAD, "--help").stdout.str()
    assert "--burn-torch-strategies" in out and "--burn-torch-tolerance" in out


PROFILE_CHECK = """
from hypothesis import settings


def test_the_selected_profile_is_the_kits():
    assert settings.get_current_profile_name() == "burn_torch-ci"
    assert settings.default.derandomize and settings.default.database is None
    assert settings.default.max_examples == 200 and settings.default.deadline is None
"""


def test_the_hypothesis_ci_profile_can_be_selected_on_the_command_line(pytester):
    pytester.makepyfile(test_profile=PROFILE_CHECK)
    result = pytester.runpytest_subprocess(*_LOAD, "-p", "no:cacheprovider",
                                           "--hypothesis-profile=burn_torch-ci")
    result.assert_outcomes(passed=1)


HEAVY = ("torch", "burn_torch", "hypothesis", "numpy")
PLAIN_TESTS = f"""
import sys


def test_the_plugin_imported_nothing_heavy():
    assert [name for name in {HEAVY!r} if name in sys.modules] == []
"""


def test_a_plain_pytest_run_does_not_import_torch_burn_torch_or_hypothesis(pytester):
    pytester.makepyfile(test_plain=PLAIN_TESTS)
    result = pytester.runpytest_subprocess(*_LOAD, "-p", "no:cacheprovider")
    result.assert_outcomes(passed=1)
    assert "burn_torch testing kit" in pytester.runpytest_subprocess(*_LOAD, "--help").stdout.str()


def test_pyproject_declares_the_entry_point():
    text = (Path(__file__).resolve().parent.parent / "pyproject.toml").read_text(encoding="utf-8")
    section = text.split("[project.entry-points.pytest11]")[1]
    assert f'burn_torch = "{PLUGIN}"' in section


FAILING_CHECK = """
import numpy as np
import torch
from burn_torch.testing import assert_matches_torch


def test_wrong_port(burn_check):
    burn_check.matches_torch(lambda x: x.exp() * 1.001, torch.exp, np.ones(3))
"""


def test_a_failing_check_shows_the_users_line_not_the_kits_frames(pytester):
    pytester.makepyfile(test_failing=FAILING_CHECK)
    result = pytester.runpytest_inprocess(*_LOAD, "-p", "no:cacheprovider")
    result.assert_outcomes(failed=1)
    out = result.stdout.str()
    assert "burn_check.matches_torch(lambda x: x.exp() * 1.001" in out  # the user's call
    assert "burn_torch disagrees with the torch reference" in out
    assert not [line for line in out.splitlines() if "burn_torch/testing/" in line]
