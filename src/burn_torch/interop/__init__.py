"""Interop with PyTorch values: zero-copy tensor conversion (``torch_tensors``), state dicts
with per-layer name/layout adapters (``state_dict``), and the conversion of ``torch.nn`` layers
and containers to burn_torch modules (``torch_modules``:
[`from_torch_module`][burn_torch.interop.torch_modules.from_torch_module], loaded on first use).
Public through ``burn_torch.compat``."""
from .state_dict import (BATCH_NORM, LINEAR, NORM, IncompatibleKeys, LayerAdapter, adapter_for,
                         load_torch_state_dict, register_adapter, to_torch_layout,
                         to_torch_state_dict)
from .torch_tensors import from_torch, to_torch

__all__ = ["to_torch_state_dict", "to_torch_layout", "load_torch_state_dict", "IncompatibleKeys",
           "LayerAdapter", "register_adapter", "adapter_for", "LINEAR", "NORM", "BATCH_NORM", "from_torch", "to_torch"]


def __getattr__(name: str):
    """``from_torch_module`` / ``register_converter``, imported on first use."""
    if name in ("from_torch_module", "register_converter", "supported_torch_modules"):
        from . import torch_modules
        return getattr(torch_modules, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
