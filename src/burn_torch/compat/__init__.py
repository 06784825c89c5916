"""Porting from PyTorch: the divergence catalog, the guide generator, port verification, and
(re-exported from ``burn_torch.interop``) conversions of tensors and state dicts.

[`to_torch_state_dict`][burn_torch.interop.state_dict.to_torch_state_dict] /
[`load_torch_state_dict`][burn_torch.interop.state_dict.load_torch_state_dict] convert between a
module's parameters and a PyTorch ``state_dict`` (names and layouts adapted per layer);
[`from_torch`][burn_torch.interop.torch_tensors.from_torch] /
[`to_torch`][burn_torch.interop.torch_tensors.to_torch] convert tensors without copying. ``catalog``
/ ``entry``: every divergence from PyTorch (id, checker code, title, category, severity, what
differs, why, how to port), as the migration guide and the porting checker (``burn-torch-check
PATH...``, the torch-free package ``burn_torch_check``) read it.

Verifying a port: [`verify_port`][burn_torch.compat.verify.verify_port] compares a torch model and
its burn_torch port (forward, loss, every gradient under the torch names, optionally training steps)
and returns a [`PortReport`][burn_torch.compat.verify.PortReport];
[`from_torch_module`][burn_torch.interop.torch_modules.from_torch_module] converts standard
``torch.nn`` layers and containers with their weights. Both load on first use
(``burn_torch.compat.verify``, ``burn_torch.interop.torch_modules``).
"""
from .catalog import SECTIONS, CatalogEntry, catalog, entry
from ..interop import (BATCH_NORM, LINEAR, NORM, IncompatibleKeys, LayerAdapter, adapter_for,
                       from_torch, load_torch_state_dict, register_adapter, to_torch,
                       to_torch_state_dict)

__all__ = ["to_torch_state_dict", "load_torch_state_dict", "IncompatibleKeys", "LayerAdapter",
           "register_adapter", "adapter_for", "LINEAR", "NORM", "BATCH_NORM",
           "from_torch", "to_torch", "catalog", "entry", "CatalogEntry", "SECTIONS",
           "verify_port", "PortReport", "from_torch_module"]

_LAZY = {"verify_port": ".verify", "PortReport": ".verify", "from_torch_module": "..interop.torch_modules"}


def __getattr__(name: str):
    """The porting tools, imported on first use (the catalog and checker do not need them)."""
    if name in _LAZY:
        import importlib
        return getattr(importlib.import_module(_LAZY[name], __name__), name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
