"""Zero-copy conversion between torch tensors and burn_torch tensors.

Both directions share storage: writing into one side is visible on the other. burn_torch treats
its storage as immutable, so mutate only a ``.clone()`` of what
[`to_torch`][burn_torch.interop.torch_tensors.to_torch] returns, and do not mutate a torch tensor
after handing it to [`from_torch`][burn_torch.interop.torch_tensors.from_torch].
"""
from __future__ import annotations

import torch

from ..autodiff.recorder import wrap
from ..device import Device
from ..dtype import DType
from ..tensor import Tensor


def _name(value) -> str:
    cls = type(value)
    return cls.__name__ if cls.__module__ == "builtins" else f"{cls.__module__}.{cls.__qualname__}"


def from_torch(t: torch.Tensor, device: Device) -> Tensor:
    """Wraps ``t``'s storage (no copy) as an untracked burn_torch tensor carrying ``device``'s
    autodiff context; the kind follows the dtype.

    torch's ``requires_grad`` and graph are not carried over (the storage is ``t.detach()``):
    call ``.require_grad()`` on the result for a leaf. Raises TypeError when ``t`` is not a torch
    tensor or has a dtype burn_torch has no DType for (quantized, complex), and ValueError when
    ``t`` lives on another torch device than ``device`` (move it with ``t.to(device.torch)``
    first: that is a copy).
    """
    if not isinstance(t, torch.Tensor):
        raise TypeError(f"from_torch expects a torch.Tensor, got {_name(t)}")
    if not isinstance(device, Device):
        raise TypeError(f"from_torch expects a burn_torch.Device, got {device!r}")
    DType.from_torch(t.dtype)
    if t.device != device.torch:
        raise ValueError(f"from_torch: the tensor is on {t.device} but the device is {device.torch}; "
                         f"move it with t.to({str(device.torch)!r}) first (a copy)")
    return wrap(t.detach(), device._ctx)


def to_torch(t: Tensor) -> torch.Tensor:
    """The storage of ``t`` as a torch tensor (no copy; for a quantized tensor, its dequantized
    values), with ``requires_grad=False`` and no ``grad_fn``. Raises TypeError for non-Tensors."""
    if not isinstance(t, Tensor):
        raise TypeError(f"to_torch expects a burn_torch.Tensor, got {_name(t)}")
    return t.to_torch()
