"""The testing kit's pytest plugin (entry point ``burn_torch`` in ``pytest11``): the
``burn_check`` fixture, its command-line options and a hypothesis profile for CI.

Options (``pytest --help``, group ``burn_torch``):

* ``--burn-torch-strategies {both,disabled,balanced}``: the checkpointing strategies every check
  runs (default ``both``: DISABLED and BALANCED, bit-equal results required);
* ``--burn-torch-tolerance {default,strict,loose}``: the tolerance profile, a factor on the
  per-dtype defaults (``report.DEFAULT_TOLERANCES``): 1, 0.1 or 100;
* ``--burn-torch-seed N``: the seed of the loss weights and finite-difference directions.

Hypothesis profiles registered on import: ``burn_torch-ci`` (200 examples, derandomized, no
deadline, no example database, the reproduction blob printed) and ``burn_torch-dev`` (25
examples, no deadline); select one with hypothesis' own ``--hypothesis-profile``.

Without installing the package: ``pytest -p burn_torch.testing.pytest_plugin``.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

import numpy as np
import pytest
import torch

from ..autodiff.strategy import GradientCheckpointingStrategy as Strategy
from ..tensor import Tensor
from .grads import GradCheck, assert_grads_match_torch
from .inputs import Const
from .reference import assert_matches_torch, assert_module_matches_torch
from .report import tolerances

STRATEGIES = {"both": (Strategy.DISABLED, Strategy.BALANCED), "disabled": (Strategy.DISABLED,),
              "balanced": (Strategy.BALANCED,)}
TOLERANCE_PROFILES = {"default": 1.0, "strict": 0.1, "loose": 100.0}

try:
    from hypothesis import HealthCheck, settings

    settings.register_profile("burn_torch-ci", max_examples=200, derandomize=True, deadline=None,
                              database=None, print_blob=True,
                              suppress_health_check=[HealthCheck.too_slow])
    settings.register_profile("burn_torch-dev", max_examples=25, deadline=None)
except ImportError:  # hypothesis is optional: the fixture works without it
    pass


def _dtype(value) -> torch.dtype | None:
    if isinstance(value, Const):
        value = value.value
    if isinstance(value, Tensor):
        value = value.to_torch()
    if isinstance(value, torch.Tensor):
        return value.dtype if value.is_floating_point() else None
    arr = np.asarray(value)
    return torch.from_numpy(np.zeros(0, arr.dtype)).dtype if arr.dtype.kind == "f" else None


@dataclass(frozen=True)
class Checker:
    """The kit's checks with the session's options as defaults (``burn_check`` fixture).

    ``strategies``, ``tolerance_scale`` and ``seed`` apply to every call unless the call gives
    ``strategies``, ``rtol``/``atol`` or ``seed`` itself. Each method returns what the check
    it wraps returns and raises what it raises."""

    strategies: tuple
    tolerance_scale: float = 1.0
    seed: int = 0

    def _defaults(self, inputs, kwargs) -> dict:
        kwargs.setdefault("strategies", self.strategies)
        kwargs.setdefault("seed", self.seed)
        if self.tolerance_scale != 1.0:
            dtypes = [d for d in map(_dtype, inputs) if d is not None]
            widest = torch.float64 if not dtypes else max(dtypes, key=lambda d: -torch.finfo(d).eps)
            rtol, atol = tolerances(widest, None, None)
            kwargs.setdefault("rtol", rtol * self.tolerance_scale)
            kwargs.setdefault("atol", atol * self.tolerance_scale)
        return kwargs

    def matches_torch(self, burn_fn: Callable, torch_fn: Callable, *inputs, **kwargs) -> GradCheck:
        """[`assert_matches_torch`][burn_torch.testing.reference.assert_matches_torch] with the
        session's defaults."""
        return assert_matches_torch(burn_fn, torch_fn, *inputs, **self._defaults(inputs, kwargs))

    def module_matches_torch(self, burn_module, torch_module, *inputs, **kwargs) -> GradCheck:
        """[`assert_module_matches_torch`][burn_torch.testing.reference.assert_module_matches_torch]
        with the session's defaults."""
        return assert_module_matches_torch(burn_module, torch_module, *inputs,
                                           **self._defaults(inputs, kwargs))

    def grads_match_torch(self, fn: Callable, *inputs, **kwargs) -> GradCheck:
        """[`assert_grads_match_torch`][burn_torch.testing.grads.assert_grads_match_torch] with the
        session's defaults."""
        return assert_grads_match_torch(fn, *inputs, **self._defaults(inputs, kwargs))


def pytest_addoption(parser) -> None:
    group = parser.getgroup("burn_torch", "burn_torch testing kit")
    group.addoption("--burn-torch-strategies", choices=sorted(STRATEGIES), default="both",
                    help="checkpointing strategies each check runs (default: both)")
    group.addoption("--burn-torch-tolerance", choices=sorted(TOLERANCE_PROFILES), default="default",
                    help="tolerance profile: a factor on the per-dtype defaults")
    group.addoption("--burn-torch-seed", type=int, default=0,
                    help="seed of the loss weights and finite-difference directions")


@pytest.fixture
def burn_check(request) -> Checker:
    """A [`Checker`][burn_torch.testing.pytest_plugin.Checker] configured by the ``--burn-torch-*``
    options."""
    opt = request.config.getoption
    return Checker(STRATEGIES[opt("--burn-torch-strategies")],
                   TOLERANCE_PROFILES[opt("--burn-torch-tolerance")], opt("--burn-torch-seed"))
