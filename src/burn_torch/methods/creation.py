"""Burn's further creation methods (``empty``, ``from_bool``, ``eye``, ``arange_step``,
``cartesian_grid``, ``triu_mask``/``tril_mask``/``diag_mask``) and categorical sampling.

Created tensors carry the device's autodiff context and are untracked, as ``Tensor.zeros``.
"""
from __future__ import annotations

from typing import TYPE_CHECKING, Sequence

import torch

from .. import validate
from ..autodiff.recorder import wrap
from ..device import Device, generator
from ..dtype import Bool, Float, Kind, resolve_dtype
from .base import TensorBase, require_float

if TYPE_CHECKING:
    from ..tensor import Tensor


def _device(op: str, device) -> Device:
    if not isinstance(device, Device):
        raise TypeError(f"{op}: expected a burn_torch.Device, got {device!r}")
    return device


def _tri_mask(op: str, shape, offset: int, device, keep) -> "Tensor":
    """Burn's ``tri_mask``: with ``m = row - col + offset`` over the last two dims, ``keep(m)``
    is True outside the selected part. The result has shape ``[1, ..., 1, rows, cols]``."""
    device = _device(op, device)
    dims = validate.shape(op, shape)
    if len(dims) < 2:
        raise ValueError(f"{op} needs a shape of rank >= 2, got {dims}")
    offset = validate.integer(op, "offset", offset)
    rows = torch.arange(dims[-2], device=device._torch).reshape(-1, 1)
    cols = torch.arange(dims[-1], device=device._torch).reshape(1, -1)
    mask = keep(rows - cols + offset)
    return wrap(mask.reshape([1] * (len(dims) - 2) + dims[-2:]), device._ctx)


class CreationMethods(TensorBase):
    __slots__ = ()

    @classmethod
    def empty(cls, shape: Sequence[int], device: Device, kind: Kind = Float,
              dtype=None) -> "Tensor":
        """A tensor of ``shape`` whose values are unspecified (uninitialised storage)."""
        device = _device("empty", device)
        dims = validate.shape("empty", shape)
        return wrap(torch.empty(dims, dtype=resolve_dtype(dtype, kind), device=device._torch),
                    device._ctx)

    @classmethod
    def from_bool(cls, data, device: Device) -> "Tensor":
        """A Bool tensor from nested bools or TensorData (same as ``from_bools``)."""
        return cls.from_data(data, device, Bool)

    @classmethod
    def eye(cls, size: int, device: Device, kind: Kind = Float, dtype=None) -> "Tensor":
        """The ``[size, size]`` identity matrix (Float unless ``kind``/``dtype``)."""
        device = _device("eye", device)
        size = validate.size("eye", "size", size)
        return wrap(torch.eye(size, dtype=resolve_dtype(dtype, kind), device=device._torch),
                    device._ctx)

    @classmethod
    def arange_step(cls, start: int, end: int, step: int, device: Device) -> "Tensor":
        """The Int tensor ``start, start + step, ...`` below ``end``; ``step`` >= 1 as Burn's
        (ValueError otherwise)."""
        validate.size("arange_step", "step", step, minimum=1)
        return cls.arange(start, end, device, step)

    @classmethod
    def cartesian_grid(cls, shape: Sequence[int], device: Device) -> "Tensor":
        """The Int tensor of shape ``[*shape, len(shape)]`` whose entry at ``(i, j, ...)`` is the
        coordinate vector ``[i, j, ...]``."""
        device = _device("cartesian_grid", device)
        dims = validate.shape("cartesian_grid", shape)
        axes = [torch.arange(n, device=device._torch) for n in dims]
        grid = torch.stack(torch.meshgrid(*axes, indexing="ij"), dim=len(dims)) if dims else \
            torch.zeros([0], dtype=torch.int64, device=device._torch)
        return wrap(grid, device._ctx)

    @classmethod
    def triu_mask(cls, shape: Sequence[int], offset: int, device: Device) -> "Tensor":
        """Bool mask, False on and above diagonal ``offset`` of the last two dims (the part
        ``triu`` keeps), True elsewhere; shape ``[1, ..., 1, rows, cols]`` as Burn's."""
        return _tri_mask("triu_mask", shape, offset, device, lambda m: m > 0)

    @classmethod
    def tril_mask(cls, shape: Sequence[int], offset: int, device: Device) -> "Tensor":
        """Bool mask, False on and below diagonal ``offset`` (the part ``tril`` keeps),
        True elsewhere; shape ``[1, ..., 1, rows, cols]``."""
        return _tri_mask("tril_mask", shape, offset, device, lambda m: m < 0)

    @classmethod
    def diag_mask(cls, shape: Sequence[int], offset: int, device: Device) -> "Tensor":
        """Bool mask, False on diagonal ``offset``, True elsewhere; shape ``[1, ..., 1, rows, cols]``."""
        return _tri_mask("diag_mask", shape, offset, device, lambda m: m != 0)

    def categorical(self, num_samples: int) -> "Tensor":
        """``num_samples`` draws from the categorical distributions whose (unnormalised)
        weights are the last dim, by Burn's inverse-CDF method with the device's generator:
        the Int result has this shape with the last dim replaced by ``num_samples``. Float
        tensors only; ValueError for ``num_samples`` < 1. Not differentiable."""
        require_float(self, "categorical")
        num_samples = validate.size("categorical", "num_samples", num_samples, minimum=1)
        d = self._data.detach()
        categories = d.shape[-1]
        flat = d.reshape(-1, categories)
        cdf = (flat / flat.sum(1, keepdim=True)).cumsum(1)
        u = torch.rand((flat.shape[0], num_samples), dtype=d.dtype, device=d.device,
                       generator=generator(d.device))
        index = (cdf.unsqueeze(2) < u.unsqueeze(1)).sum(1).clamp(0, categories - 1)
        return wrap(index.reshape(list(d.shape[:-1]) + [num_samples]), self._ctx)
