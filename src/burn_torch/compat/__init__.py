"""Porting from PyTorch: the divergence catalog, the porting checker, the guide generator, and
(re-exported from ``burn_torch.interop``) conversions of tensors and state dicts.

:func:`to_torch_state_dict` / :func:`load_torch_state_dict` convert between a module's parameters
and a PyTorch ``state_dict`` (names and layouts adapted per layer); :func:`from_torch` /
:func:`to_torch` convert tensors without copying.
:func:`catalog` / :func:`entry`: every divergence from PyTorch (id, checker code, title,
category, severity, what differs, why, how to port), as the migration guide and the porting
checker (``burn-torch-check PATH...``, the torch-free package :mod:`burn_torch_check`) read it.
"""
from .catalog import SECTIONS, CatalogEntry, catalog, entry
from ..interop import (BATCH_NORM, LINEAR, NORM, IncompatibleKeys, LayerAdapter, adapter_for,
                       from_torch, load_torch_state_dict, register_adapter, to_torch,
                       to_torch_state_dict)

__all__ = ["to_torch_state_dict", "load_torch_state_dict", "IncompatibleKeys", "LayerAdapter",
           "register_adapter", "adapter_for", "LINEAR", "NORM", "BATCH_NORM",
           "from_torch", "to_torch", "catalog", "entry", "CatalogEntry", "SECTIONS"]
