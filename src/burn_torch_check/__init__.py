"""The burn_torch porting checker: finds the PyTorch idioms that behave differently under
burn_torch, as a linter does (``burn-torch-check``, a flake8 plugin, a pre-commit hook).

It lives beside the ``burn_torch`` package, not inside it, so that it starts without importing
torch: ``burn_torch/__init__`` imports torch, and importing any ``burn_torch.*`` module runs it.
The catalog it reads ships beside it, in ``burn_torch_check/catalog.json``, so the checker
installs and runs without torch (its own distribution: ``checker/pyproject.toml``).
[`burn_torch.compat.check`][burn_torch.compat.check] re-exports this package's API under its
historical path.
"""
from .catalog import CatalogEntry, catalog, entry
from .check import Finding, Selection, check_source, check_tree, detector_map
# Each area's detectors register themselves in detectors.DETECTORS when imported, after the
# general module's own (whatever imports any part of this package runs this first).
from . import detectors_autodiff, detectors_modules, detectors_tensors, detectors_training  # noqa: E402,F401

__all__ = ["CatalogEntry", "Finding", "Selection", "catalog", "check_source", "check_tree",
           "detector_map", "entry"]
