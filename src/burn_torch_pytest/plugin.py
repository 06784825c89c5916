"""The testing kit's pytest plugin (entry point ``burn_torch`` in ``pytest11``, module
``burn_torch_pytest.plugin``): the
``burn_check`` fixture, its command-line options and the kit's hypothesis profiles.

Options (``pytest --help``, group ``burn_torch``):

* ``--burn-torch-strategies {both,disabled,balanced}``: the checkpointing strategies every check
  runs (default ``both``: DISABLED and BALANCED, bit-equal results required);
* ``--burn-torch-tolerance {default,strict,loose}``: the tolerance profile, a factor on the
  per-dtype defaults (``burn_torch.testing.report.DEFAULT_TOLERANCES``): 1, 0.1 or 100;
* ``--burn-torch-seed N``: the seed of the loss weights and finite-difference directions.

Hypothesis profiles
([`register_hypothesis_profiles`][burn_torch_pytest.profiles.register_hypothesis_profiles]):
``burn_torch-ci`` (200 examples, derandomized, no deadline, no example database, the reproduction
blob printed) and ``burn_torch-dev`` (25 examples, no deadline); select one with hypothesis' own
``--hypothesis-profile``. Importing [`burn_torch.testing.strategies`][burn_torch.testing.strategies]
registers them too.

Every pytest run in an environment where burn_torch is installed loads this module, so it
imports neither torch nor burn_torch nor hypothesis: the fixture imports the kit when a test
first asks for it, and the profiles are registered only when one of them is selected or
hypothesis is already loaded. Without installing the package: ``pytest -p burn_torch_pytest.plugin``.
"""
from __future__ import annotations

import sys

import pytest

from .profiles import PROFILES, register_hypothesis_profiles

#: ``--burn-torch-strategies`` values (``burn_torch.testing.checker`` maps them to strategies).
STRATEGY_CHOICES = ("both", "disabled", "balanced")
#: ``--burn-torch-tolerance`` values: the factor each applies to the per-dtype tolerances.
TOLERANCE_PROFILES = {"default": 1.0, "strict": 0.1, "loose": 100.0}


def pytest_addoption(parser) -> None:
    group = parser.getgroup("burn_torch", "burn_torch testing kit")
    group.addoption("--burn-torch-strategies", choices=STRATEGY_CHOICES, default="both",
                    help="checkpointing strategies each check runs (default: both)")
    group.addoption("--burn-torch-tolerance", choices=sorted(TOLERANCE_PROFILES), default="default",
                    help="tolerance profile: a factor on the per-dtype defaults")
    group.addoption("--burn-torch-seed", type=int, default=0,
                    help="seed of the loss weights and finite-difference directions")


@pytest.hookimpl(tryfirst=True)  # before hypothesis' own plugin loads the selected profile
def pytest_configure(config) -> None:
    try:
        selected = config.getoption("--hypothesis-profile")
    except ValueError:  # hypothesis' plugin is not loaded
        selected = None
    if selected in PROFILES or "hypothesis" in sys.modules:
        register_hypothesis_profiles()


@pytest.fixture
def burn_check(request):
    """A [`burn_torch.testing.checker.Checker`][burn_torch.testing.checker.Checker] configured by
    the ``--burn-torch-*`` options."""
    from burn_torch.testing.checker import Checker

    opt = request.config.getoption
    return Checker.from_options(opt("--burn-torch-strategies"),
                                TOLERANCE_PROFILES[opt("--burn-torch-tolerance")],
                                opt("--burn-torch-seed"))
