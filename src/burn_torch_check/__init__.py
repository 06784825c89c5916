"""The burn_torch porting checker: finds the PyTorch idioms that behave differently under
burn_torch, as a linter does (``burn-torch-check``, a flake8 plugin, a pre-commit hook).

It lives beside the ``burn_torch`` package, not inside it, so that it starts without importing
torch: ``burn_torch/__init__`` imports torch, and importing any ``burn_torch.*`` module runs it.
The catalog it reads ships in ``burn_torch/compat/catalog.json`` and is found without an import.
[`burn_torch.compat.check`][burn_torch.compat.check] re-exports this package's API under its
historical path.
"""
from .catalog import CatalogEntry, catalog, entry
from .check import Finding, Selection, check_source, check_tree, detector_map

__all__ = ["CatalogEntry", "Finding", "Selection", "catalog", "check_source", "check_tree",
           "detector_map", "entry"]
