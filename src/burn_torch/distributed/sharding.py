"""Splitting data between ranks: [`shard`][burn_torch.distributed.sharding.shard] takes this rank's
part of a batch, and [`ShardSampler`][burn_torch.distributed.sharding.ShardSampler] says which items
of a dataset this rank reads, epoch by epoch.

Data-parallel gradients equal the full-batch ones when every rank's loss is a mean over an
equal share of the batch: the average of equal-sized means is the mean of the whole.
"""
from __future__ import annotations

from typing import Iterator

import torch

from .process import rank as _rank
from .process import world_size as _world_size

__all__ = ["shard", "ShardSampler"]


def _rank_and_world(rank: int | None, world_size: int | None) -> tuple[int, int]:
    world = _world_size() if world_size is None else int(world_size)
    r = _rank() if rank is None else int(rank)
    if world < 1 or not 0 <= r < world:
        raise ValueError(f"rank {r} is outside a world of {world} processes")
    return r, world


def shard(batch, rank: int | None = None, world_size: int | None = None):
    """This rank's contiguous share of ``batch`` along its first dimension.

    ``batch``: a burn_torch Tensor, a torch tensor, a numpy array, or any sequence that slices
    (a list, a range, ...); the share has the same type. Rank ``r`` of ``W`` gets items
    ``[r*n/W, (r+1)*n/W)``. ``rank`` / ``world_size`` default to the process group's. Raises
    ValueError when the ``n`` items do not split into ``W`` equal shares (unequal shares would
    weigh the ranks' mean losses unequally).
    """
    r, world = _rank_and_world(rank, world_size)
    n = len(batch)
    if n % world:
        raise ValueError(f"a batch of {n} items does not split into {world} equal shares; use a "
                         f"batch size divisible by the world size")
    size = n // world
    part = slice(r * size, (r + 1) * size)
    from ..tensor import Tensor  # the tensor module imports this package: import at call time

    return batch.slice([part]) if isinstance(batch, Tensor) else batch[part]


class ShardSampler:
    """The indices of a dataset of ``length`` items that this rank reads in one epoch.

    Every rank draws the same order (a permutation seeded by ``seed + epoch`` when ``shuffle``,
    else ``0..length-1``) and takes every ``world_size``-th index from its rank on, so the ranks'
    shares are disjoint and of equal size. When ``length`` does not divide evenly, the order is
    padded with its own first indices (a few items are read twice), or cut short with
    ``drop_last``. Call [`set_epoch`][burn_torch.distributed.sharding.ShardSampler.set_epoch] before
    each epoch for a new order.
    """

    def __init__(self, length: int, *, shuffle: bool = True, seed: int = 0, drop_last: bool = False,
                 rank: int | None = None, world_size: int | None = None) -> None:
        if length < 0:
            raise ValueError(f"a dataset length is non-negative, got {length}")
        self.rank, self.world_size = _rank_and_world(rank, world_size)
        self.length = int(length)
        self.shuffle = bool(shuffle)
        self.seed = int(seed)
        self.drop_last = bool(drop_last)
        self.epoch = 0

    def set_epoch(self, epoch: int) -> None:
        """Selects the order of epoch ``epoch`` (only matters with ``shuffle``)."""
        self.epoch = int(epoch)

    def __len__(self) -> int:
        if self.drop_last:
            return self.length // self.world_size
        return -(-self.length // self.world_size)

    def __iter__(self) -> Iterator[int]:
        if self.shuffle:
            gen = torch.Generator().manual_seed(self.seed + self.epoch)
            order = torch.randperm(self.length, generator=gen).tolist()
        else:
            order = list(range(self.length))
        total = len(self) * self.world_size
        if total > len(order) and order:
            order = (order * (total // len(order) + 1))[:total]
        return iter(order[self.rank:total:self.world_size])

    def __repr__(self) -> str:
        return (f"ShardSampler({len(self)} of {self.length} items, rank {self.rank} of "
                f"{self.world_size}, shuffle={self.shuffle}, epoch {self.epoch})")
