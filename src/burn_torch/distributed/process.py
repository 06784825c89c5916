"""The process group: [`init`][burn_torch.distributed.process.init] joins it (torchrun's environment
or explicit arguments), the other functions describe it. torch.distributed is the engine: gloo on
CPU, NCCL on CUDA.

Without a process group, [`rank`][burn_torch.distributed.process.rank],
[`world_size`][burn_torch.distributed.process.world_size] and
[`local_rank`][burn_torch.distributed.process.local_rank] describe a world of one process (0, 1, 0)
and [`barrier`][burn_torch.distributed.process.barrier] returns at once, so the same script runs
with and without a launcher.
"""
from __future__ import annotations

import datetime
import os

import torch
import torch.distributed as dist

from ..device import Device

__all__ = ["init", "shutdown", "is_initialized", "rank", "world_size", "local_rank", "barrier"]

_BACKENDS = {"cpu": "gloo", "cuda": "nccl"}


def _env_int(name: str) -> int | None:
    value = os.environ.get(name)
    if value is None:
        return None
    try:
        return int(value)
    except ValueError:
        raise ValueError(f"the environment variable {name}={value!r} is not an integer") from None


def init(device: Device | None = None, *, backend: str | None = None, rank: int | None = None,
         world_size: int | None = None, master_addr: str | None = None,
         master_port: int | None = None, timeout: float = 600.0) -> Device:
    """Joins the process group; returns the Device this rank trains on.

    Arguments left None are read from the environment ``torchrun`` sets (``RANK``,
    ``WORLD_SIZE``, ``MASTER_ADDR``, ``MASTER_PORT``, ``LOCAL_RANK``), so under
    ``torchrun --nproc-per-node=N [--nnodes=M --rdzv-endpoint=HOST:PORT] script.py`` a bare
    ``init()`` is enough, on one machine or across machines. Without a rank or world size in
    either place (a plain ``python script.py``) the group is a world of one process.

    ``device``: default ``Device.cuda(LOCAL_RANK)`` when CUDA is available, else the CPU
    (autodiff off: call ``.autodiff()`` on the result).
    ``backend``: default NCCL for a CUDA device, gloo for the CPU. ``timeout``: seconds a
    collective waits for the other ranks before failing (a stopped rank then makes the others
    fail instead of hanging). Raises RuntimeError if a process group already exists and
    ValueError for inconsistent arguments or environment.
    """
    if not dist.is_available():
        raise RuntimeError("this torch build has no torch.distributed")
    if dist.is_initialized():
        raise RuntimeError("the process group is already initialised; call shutdown() first")
    rank = _env_int("RANK") if rank is None else rank
    world_size = _env_int("WORLD_SIZE") if world_size is None else world_size
    if (rank is None) != (world_size is None):
        raise ValueError(f"give both a rank and a world size, or neither (rank={rank}, "
                         f"world_size={world_size}); torchrun sets RANK and WORLD_SIZE")
    if world_size is not None and rank is not None and not 0 <= rank < world_size:
        raise ValueError(f"rank {rank} is outside a world of {world_size} processes")
    if device is None:
        device = Device.cuda(local_rank()) if torch.cuda.is_available() else Device.cpu()
    kind = device.torch.type
    backend = backend or _BACKENDS.get(kind)
    if backend is None:
        raise ValueError(f"no default backend for a {kind} device; pass backend=...")
    if kind == "cuda":
        torch.cuda.set_device(device.torch)
    wait = datetime.timedelta(seconds=timeout)
    if world_size is None:
        dist.init_process_group(backend, store=dist.HashStore(), rank=0, world_size=1, timeout=wait)
        return device
    addr = master_addr or os.environ.get("MASTER_ADDR")
    port = master_port or _env_int("MASTER_PORT")
    if addr is None or port is None:
        raise ValueError("a world of several processes needs master_addr and master_port "
                         "(torchrun sets MASTER_ADDR and MASTER_PORT)")
    host = f"[{addr}]" if ":" in addr else addr
    # rank is set whenever world_size is (checked above)
    dist.init_process_group(backend, init_method=f"tcp://{host}:{port}", rank=rank,  # type: ignore[arg-type]
                            world_size=world_size, timeout=wait)
    return device


def shutdown() -> None:
    """Leaves and destroys the process group (nothing to do without one)."""
    if dist.is_available() and dist.is_initialized():
        dist.destroy_process_group()


def is_initialized() -> bool:
    """Whether this process is in a process group."""
    return dist.is_available() and dist.is_initialized()


def rank() -> int:
    """This process's rank in the group (0 without one)."""
    return dist.get_rank() if is_initialized() else 0


def world_size() -> int:
    """The number of processes in the group (1 without one)."""
    return dist.get_world_size() if is_initialized() else 1


def local_rank() -> int:
    """This process's rank on its machine: torchrun's ``LOCAL_RANK`` (0 when unset)."""
    return _env_int("LOCAL_RANK") or 0


def collective_device() -> torch.device:
    """The device of the group's own small tensors: this rank's CUDA device under NCCL, else
    the CPU."""
    if dist.get_backend() == "nccl":
        return torch.device("cuda", torch.cuda.current_device())
    return torch.device("cpu")


def barrier() -> None:
    """Waits until every rank has called it (returns at once without a process group)."""
    if is_initialized():
        dist.barrier()
