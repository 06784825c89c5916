"""Replicas: [`broadcast_module`][burn_torch.distributed.replica.broadcast_module] gives every rank
the same parameters, values and ParamIds."""
from __future__ import annotations

import torch
import torch.distributed as dist

from ..autodiff.recorder import wrap
from ..autodiff.distributed_leaf import carry_mark
from .process import collective_device, is_initialized
from .sync import agree, failure, signature

__all__ = ["broadcast_module"]


def _signed(value: int) -> int:
    """A u64 ParamId value as the int64 with the same bits."""
    return value - (1 << 64) if value >= 1 << 63 else value


def broadcast_module(module, src: int = 0):
    """Returns ``module`` holding rank ``src``'s parameters: the same values and ParamIds on
    every rank.

    Data-parallel replicas must start equal, and backward pairs the ranks' gradients by ParamId,
    which ``ParamId.new()`` draws at random in each process: call this on every rank once the
    model is built (loading one record file on every rank also works). Each parameter keeps its
    trainability, whether it is a ``require_grad()`` leaf and its distributed marking (under the
    new id). Without a process group the module is returned unchanged.

    Every rank must pass a module of the same structure: raises ValueError, on every rank, when
    the parameters' shapes or dtypes differ, and DistributedError when a rank fails.
    """
    from ..module import ModuleMapper, Param, ParamId  # imports tensors: import at call time

    if not is_initialized():
        return module
    params = list({p.id: p for p in module.params()}.values())  # a shared Param once
    device = collective_device()
    try:
        same = agree(signature((p.val().dims(), p.val().dtype()) for p in params), device)
        if not same:
            raise ValueError(
                f"broadcast_module: the ranks' modules differ ({len(params)} parameters on rank "
                f"{dist.get_rank()}; shapes or dtypes disagree): build the same model on every rank")
        ids = torch.tensor([_signed(p.id.val) for p in params], dtype=torch.int64, device=device)
        dist.broadcast(ids, src)
        values = []
        for p in params:
            data = p.val().to_torch()
            buf = (data.to(torch.uint8) if data.dtype is torch.bool else data).clone(
                memory_format=torch.contiguous_format)
            dist.broadcast(buf, src)
            values.append(buf.to(data.dtype))
    except RuntimeError as e:
        raise failure(e, "broadcasting the module") from e
    replaced = {}
    for p, new_id, value in zip(params, ids.tolist(), values):
        pid = ParamId(new_id % (1 << 64))
        replaced[p.id] = Param._make(pid, _rebuilt(p.val(), value, pid), p.is_trainable())

    class _Replace(ModuleMapper):
        def map_float(self, param):
            return replaced[param.id]

        map_int = map_bool = map_float

    return module.map(_Replace())


def _rebuilt(old, data: torch.Tensor, pid):
    """A tensor holding ``data`` that is what ``old`` was (association, leaf, marking) under ``pid``."""
    t = wrap(data, old._ctx)
    return carry_mark(old, t.require_grad() if old.is_require_grad() else t, pid)
