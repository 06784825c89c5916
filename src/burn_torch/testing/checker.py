"""The checks with a pytest session's options as defaults:
[`Checker`][burn_torch.testing.checker.Checker], what the ``burn_check`` fixture of the pytest
plugin (``burn_torch_pytest``) returns.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

import numpy as np
import torch

from ..autodiff.strategy import GradientCheckpointingStrategy as Strategy
from ..tensor import Tensor
from .grads import GradCheck, assert_grads_match_torch
from .inputs import Const
from .reference import assert_matches_torch, assert_module_matches_torch
from .report import tolerances

#: The checkpointing strategies of each ``--burn-torch-strategies`` value.
STRATEGIES = {"both": (Strategy.DISABLED, Strategy.BALANCED), "disabled": (Strategy.DISABLED,),
              "balanced": (Strategy.BALANCED,)}


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

    @classmethod
    def from_options(cls, strategies: str, tolerance_scale: float, seed: int) -> "Checker":
        """The checker of a ``--burn-torch-strategies`` value (a key of ``STRATEGIES``), a
        tolerance factor and a seed."""
        return cls(STRATEGIES[strategies], tolerance_scale, seed)

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
        __tracebackhide__ = True
        return assert_matches_torch(burn_fn, torch_fn, *inputs, **self._defaults(inputs, kwargs))

    def module_matches_torch(self, burn_module, torch_module, *inputs, **kwargs) -> GradCheck:
        """[`assert_module_matches_torch`][burn_torch.testing.reference.assert_module_matches_torch]
        with the session's defaults."""
        __tracebackhide__ = True
        return assert_module_matches_torch(burn_module, torch_module, *inputs,
                                           **self._defaults(inputs, kwargs))

    def grads_match_torch(self, fn: Callable, *inputs, **kwargs) -> GradCheck:
        """[`assert_grads_match_torch`][burn_torch.testing.grads.assert_grads_match_torch] with the
        session's defaults."""
        __tracebackhide__ = True
        return assert_grads_match_torch(fn, *inputs, **self._defaults(inputs, kwargs))
