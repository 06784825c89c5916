"""Interop with PyTorch values: zero-copy tensor conversion (``torch_tensors``) and state dicts
with per-layer name/layout adapters (``state_dict``). Public through ``burn_torch.compat``."""
from .state_dict import (BATCH_NORM, LINEAR, NORM, IncompatibleKeys, LayerAdapter, adapter_for,
                         load_torch_state_dict, register_adapter, to_torch_state_dict)
from .torch_tensors import from_torch, to_torch

__all__ = ["to_torch_state_dict", "load_torch_state_dict", "IncompatibleKeys", "LayerAdapter",
           "register_adapter", "adapter_for", "LINEAR", "NORM", "BATCH_NORM", "from_torch", "to_torch"]
