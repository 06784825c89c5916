"""Interop with PyTorch code and files.

``state_dict``: :func:`to_torch_state_dict` / :func:`load_torch_state_dict` convert between a
module's parameters and a PyTorch ``state_dict`` (names and layouts adapted per layer).
``convert``: zero-copy :func:`from_torch` / :func:`to_torch` for tensors.
``catalog``: :func:`catalog` / :func:`entry`, every divergence from PyTorch (id, title, category,
severity, what differs, why, how to port), as the migration guide and the porting checker
(``python -m burn_torch.compat.check PATH...``, ``burn-torch-check``) read it.
"""
from .catalog import SECTIONS, CatalogEntry, catalog, entry
from .convert import from_torch, to_torch
from .state_dict import (BATCH_NORM, LINEAR, NORM, IncompatibleKeys, LayerAdapter, adapter_for,
                         load_torch_state_dict, register_adapter, to_torch_state_dict)

__all__ = ["to_torch_state_dict", "load_torch_state_dict", "IncompatibleKeys", "LayerAdapter",
           "register_adapter", "adapter_for", "LINEAR", "NORM", "BATCH_NORM",
           "from_torch", "to_torch", "catalog", "entry", "CatalogEntry", "SECTIONS"]
