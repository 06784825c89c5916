"""Collectives on tensor values: [`all_reduce`][burn_torch.distributed.collective.all_reduce],
[`all_gather`][burn_torch.distributed.collective.all_gather] and
[`broadcast`][burn_torch.distributed.collective.broadcast] return a new tensor and leave their
argument unchanged (torch.distributed's write into it).

They are for values a rank shares with the others (metrics, statistics, random choices): the
result is an untracked tensor on the argument's device, with its kind. Gradients are not summed
with these: a module marked with ``.distributed()`` has its gradients averaged by backward
itself. Without a process group (a world of one) each returns a copy of its argument. Every
rank must make the same calls with tensors of the same shape and kind; torch.distributed's
errors (a timeout when a rank is missing) come through as
[`DistributedError`][burn_torch.errors.DistributedError].
"""
from __future__ import annotations

import torch
import torch.distributed as dist

from ..errors import DistributedError
from ..interop.torch_tensors import from_torch
from ..tensor import Tensor
from .process import collective_device, is_initialized, world_size

__all__ = ["all_reduce", "all_gather", "broadcast"]

_OPS = {"sum": dist.ReduceOp.SUM, "max": dist.ReduceOp.MAX, "min": dist.ReduceOp.MIN,
        "product": dist.ReduceOp.PRODUCT}
_REDUCTIONS = (*_OPS, "mean")


def _storage(x: Tensor, doing: str) -> torch.Tensor:
    """A copy of ``x``'s values on the group's collective device. Raises TypeError when ``x`` is
    not a burn_torch Tensor."""
    if not isinstance(x, Tensor):
        got = f"{type(x).__module__.split('.')[0]}.{type(x).__name__}"
        raise TypeError(f"{doing} expects a burn_torch Tensor, got {got} "
                        "(wrap a torch tensor with from_torch(t, device) first)")
    t = x.to_torch().detach().clone()
    return t.to(collective_device()) if is_initialized() else t


def _result(t: torch.Tensor, like: Tensor) -> Tensor:
    return from_torch(t.to(like.to_torch().device), like.device())


def all_reduce(x: Tensor, op: str = "sum") -> Tensor:
    """``x`` reduced over every rank: ``"sum"`` (default), ``"mean"``, ``"max"``, ``"min"`` or
    ``"product"`` of the ranks' values, elementwise; the same result on every rank.

    The port of ``dist.all_reduce(t)`` is ``t = all_reduce(t)``. ``"mean"`` of an Int tensor
    truncates (Burn's Int division). Raises ValueError for an unknown ``op``."""
    if op not in _REDUCTIONS:
        raise ValueError(f"all_reduce: op must be one of {', '.join(_REDUCTIONS)}, got {op!r}")
    t = _storage(x, "all_reduce")
    if is_initialized():
        try:
            dist.all_reduce(t, op=_OPS["sum" if op == "mean" else op])
        except RuntimeError as e:
            raise DistributedError(f"all_reduce failed: {e}") from e
    if op == "mean":
        t = t.div(world_size(), rounding_mode=None if t.is_floating_point() else "trunc")
    return _result(t, x)


def all_gather(x: Tensor, dim: int = 0) -> Tensor:
    """Every rank's ``x`` concatenated along ``dim``, in rank order (rank 0's first).

    The port of ``dist.all_gather(parts, t)`` followed by ``torch.cat(parts, dim)``."""
    t = _storage(x, "all_gather")
    if not is_initialized():
        return _result(t, x)
    parts = [torch.empty_like(t) for _ in range(world_size())]
    try:
        dist.all_gather(parts, t)
    except RuntimeError as e:
        raise DistributedError(f"all_gather failed: {e}") from e
    return _result(torch.cat(parts, dim), x)


def broadcast(x: Tensor, src: int = 0) -> Tensor:
    """Rank ``src``'s ``x`` on every rank (the others' values are not read).

    The port of ``dist.broadcast(t, src)`` is ``t = broadcast(t, src)``."""
    t = _storage(x, "broadcast")
    if is_initialized():
        try:
            dist.broadcast(t, src)
        except RuntimeError as e:
            raise DistributedError(f"broadcast failed: {e}") from e
    return _result(t, x)
