"""Batchers and data loaders (Burn's ``Batcher``, ``DataLoaderBuilder``, ``DataLoader``).

Worker processes are ``torch.utils.data.DataLoader``'s: with ``num_workers(k) > 0`` the workers
read the items (``dataset.get``, where mapping and decoding happen) of whole batches, in order;
the batcher then turns each list of items into a batch on the loader's device in the main
process (tensors never cross process boundaries). Shuffling draws a permutation from the seed
and the epoch number (how many times the loader was iterated, or
[`DataLoader.set_epoch`][burn_torch.data.dataloader.DataLoader.set_epoch]), so the batches of an
epoch are the same with 0 or k workers and in a resumed run. Before each epoch the loader calls the
dataset's ``set_epoch(epoch)`` (a ``SamplerDataset`` then draws that epoch's items).
"""
from __future__ import annotations

import dataclasses
from typing import Generic, Iterable, Iterator, TypeVar

import torch
import torch.utils.data

from ..device import Device
from .dataset import Dataset, check_dataset
from .transform import epoch_seed, permutation

I = TypeVar("I")
B = TypeVar("B")


class Batcher(Generic[I, B]):
    """Turns a list of items into one batch on ``device`` (Burn's ``Batcher`` trait)."""

    def batch(self, items: list[I], device: Device) -> B:
        raise NotImplementedError


class _Items(torch.utils.data.Dataset):
    """A Dataset seen by torch's loader machinery: ``view[i]`` is ``dataset.get(i)``."""

    def __init__(self, dataset: Dataset) -> None:
        self.dataset = dataset

    def __getitem__(self, index: int):
        return self.dataset.get(index)

    def __len__(self) -> int:
        return self.dataset.len()


def _present(items: list) -> list:
    """The collate function: the items a batch's indices gave, Nones left out."""
    return [item for item in items if item is not None]


@dataclasses.dataclass(frozen=True)
class _Options:
    batch_size: int = 1
    seed: int | None = None
    num_workers: int = 0
    device: Device | None = None


class DataLoaderBuilder(Generic[I, B]):
    """``DataLoaderBuilder(batcher).batch_size(n).shuffle(seed).num_workers(k).build(dataset)``.

    Each builder method returns a new builder (the original is unchanged). Defaults: batch size
    1, no shuffle, no workers, ``Device.default()``.
    """

    __slots__ = ("_batcher", "_options")

    def __init__(self, batcher: Batcher[I, B], _options: _Options | None = None) -> None:
        if not callable(getattr(batcher, "batch", None)):
            raise TypeError(f"batcher must have batch(items, device), got {type(batcher).__name__}")
        self._batcher = batcher
        self._options = _options or _Options()

    def _with(self, **changes) -> "DataLoaderBuilder[I, B]":
        return DataLoaderBuilder(self._batcher, dataclasses.replace(self._options, **changes))

    def batch_size(self, batch_size: int) -> "DataLoaderBuilder[I, B]":
        """Items per batch (the last batch of an epoch may be smaller). ValueError below 1."""
        if int(batch_size) < 1:
            raise ValueError(f"batch_size must be >= 1, got {batch_size}")
        return self._with(batch_size=int(batch_size))

    def shuffle(self, seed: int) -> "DataLoaderBuilder[I, B]":
        """A new random order each epoch, fixed by ``seed`` and the epoch number."""
        return self._with(seed=int(seed))

    def num_workers(self, num_workers: int) -> "DataLoaderBuilder[I, B]":
        """Worker processes reading items (0: read in this process). ValueError below 0."""
        if int(num_workers) < 0:
            raise ValueError(f"num_workers must be >= 0, got {num_workers}")
        return self._with(num_workers=int(num_workers))

    def set_device(self, device: Device) -> "DataLoaderBuilder[I, B]":
        """The device batches are made on."""
        if not isinstance(device, Device):
            raise TypeError(f"expected a Device, got {type(device).__name__}")
        return self._with(device=device)

    def build(self, dataset: Dataset[I]) -> "DataLoader[B]":
        """The loader over ``dataset``; TypeError when it is not a Dataset."""
        check_dataset(dataset)
        return DataLoader(self._batcher, dataset, self._options)


class DataLoader(Generic[B]):
    """Iterating yields the batches of one epoch; ``len()`` is the number of batches."""

    def __init__(self, batcher: Batcher, dataset: Dataset, options: _Options) -> None:
        self.batcher, self.dataset = batcher, dataset
        self._options = options
        self._device = options.device or Device.default()
        self._epoch = 0

    @property
    def device(self) -> Device:
        return self._device

    def to_device(self, device: Device) -> "DataLoader[B]":
        """The same loader (same dataset, options and epoch) making batches on ``device``."""
        loader: DataLoader[B] = DataLoader(self.batcher, self.dataset,
                                           dataclasses.replace(self._options, device=device))
        loader._epoch = self._epoch
        return loader

    def set_epoch(self, epoch: int) -> None:
        """Makes the next iteration epoch ``epoch`` (0-based): its shuffle order, and its
        items for a dataset that draws per epoch."""
        self._epoch = int(epoch)

    def num_items(self) -> int:
        return self.dataset.len()

    def __len__(self) -> int:
        return -(-self.dataset.len() // self._options.batch_size)

    def batch_indices(self, epoch: int) -> list[list[int]]:
        """The dataset indices of each batch of epoch ``epoch``."""
        n, size, seed = self.dataset.len(), self._options.batch_size, self._options.seed
        order = list(range(n)) if seed is None else permutation(n, epoch_seed(seed, epoch))
        return [order[i:i + size] for i in range(0, n, size)]

    def iter(self) -> Iterator[B]:
        return iter(self)

    def __iter__(self) -> Iterator[B]:
        epoch = self._epoch
        self._epoch += 1
        set_epoch = getattr(self.dataset, "set_epoch", None)
        if callable(set_epoch):
            set_epoch(epoch)   # before the workers start: they see the epoch's draw
        batches = self.batch_indices(epoch)
        lists: Iterable[list]
        if self._options.num_workers == 0:
            lists = ([item for item in map(self.dataset.get, idx) if item is not None] for idx in batches)
        else:
            generator = torch.Generator().manual_seed(epoch_seed(self._options.seed or 0, epoch))
            lists = torch.utils.data.DataLoader(
                _Items(self.dataset), batch_sampler=batches, num_workers=self._options.num_workers,
                collate_fn=_present, generator=generator)
        for items in lists:
            if items:
                yield self.batcher.batch(items, self._device)
