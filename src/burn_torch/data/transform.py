"""Lazy dataset transforms (Burn's ``burn::data::dataset::transform``): each wraps a dataset
and computes its items on ``get``; nothing is copied.

Randomised transforms take a seed and are pure functions of it, so every worker process and
every resumed run sees the same items.
"""
from __future__ import annotations

from typing import Any, Callable, Generic, Sequence, TypeVar

import torch

from .dataset import Dataset, check_dataset

I = TypeVar("I")
O = TypeVar("O")


def permutation(n: int, seed: int) -> list[int]:
    """A random permutation of ``range(n)``, the same for the same ``(n, seed)``."""
    return torch.randperm(n, generator=torch.Generator().manual_seed(int(seed))).tolist()


class Mapper(Generic[I, O]):
    """Burn's ``Mapper`` trait: ``map(item) -> new item``. Any object with ``map``, or a plain
    function, works too."""

    def map(self, item: I) -> O:
        raise NotImplementedError


class MapperDataset(Dataset[O]):
    """``mapper(item)`` (or ``mapper.map(item)``) of each item, computed on access."""

    def __init__(self, dataset: Dataset[I], mapper: "Mapper[I, O] | Callable[[I], O]") -> None:
        check_dataset(dataset)
        fn = mapper if callable(mapper) else getattr(mapper, "map", None)
        if not callable(fn):
            raise TypeError(f"mapper must be a Mapper or a callable, got {type(mapper).__name__}")
        self.dataset, self.mapper = dataset, fn

    def get(self, index: int) -> "O | None":
        item = self.dataset.get(index)
        return None if item is None else self.mapper(item)

    def len(self) -> int:
        return self.dataset.len()


class SelectionDataset(Dataset[I]):
    """The items at ``indices`` of ``dataset``, in that order (Burn's ``SelectionDataset``).
    Raises IndexError for an index outside the dataset."""

    def __init__(self, dataset: Dataset[I], indices: Sequence[int]) -> None:
        check_dataset(dataset)
        n = dataset.len()
        indices = [int(i) for i in indices]
        bad = [i for i in indices if not 0 <= i < n]
        if bad:
            raise IndexError(f"selection indices {bad[:5]} out of range for a dataset of {n} items")
        self.dataset, self.indices = dataset, indices

    @classmethod
    def shuffled(cls, dataset: Dataset[I], seed: int) -> "SelectionDataset[I]":
        """Every item once, in the seed's random order."""
        return cls(dataset, permutation(dataset.len(), seed))

    def get(self, index: int) -> "I | None":
        return self.dataset.get(self.indices[index]) if 0 <= index < len(self.indices) else None

    def len(self) -> int:
        return len(self.indices)


class ShuffledDataset(SelectionDataset[I]):
    """Every item once, in a random order fixed by ``seed`` (Burn's ``ShuffledDataset``)."""

    def __init__(self, dataset: Dataset[I], seed: int) -> None:
        check_dataset(dataset)
        super().__init__(dataset, permutation(dataset.len(), seed))
        self.seed = int(seed)

    @classmethod
    def with_seed(cls, dataset: Dataset[I], seed: int) -> "ShuffledDataset[I]":
        return cls(dataset, seed)


class PartialDataset(Dataset[I]):
    """Items ``start .. end`` (end excluded, clipped to the dataset) of ``dataset``, re-indexed
    from 0 (Burn's ``PartialDataset``). Raises ValueError when ``start > end``."""

    def __init__(self, dataset: Dataset[I], start: int, end: int) -> None:
        check_dataset(dataset)
        if not 0 <= start <= end:
            raise ValueError(f"PartialDataset needs 0 <= start <= end, got {start}..{end}")
        self.dataset, self.start, self.end = dataset, int(start), min(int(end), dataset.len())

    @classmethod
    def split(cls, dataset: Dataset[I], num: int) -> "list[PartialDataset[I]]":
        """``num`` consecutive parts covering the dataset; the last takes the remainder."""
        if num < 1:
            raise ValueError(f"split needs at least 1 part, got {num}")
        n, size = dataset.len(), dataset.len() // num
        return [cls(dataset, i * size, n if i == num - 1 else (i + 1) * size) for i in range(num)]

    def get(self, index: int) -> "I | None":
        return self.dataset.get(self.start + index) if 0 <= index < self.len() else None

    def len(self) -> int:
        return max(0, self.end - self.start)


class SamplerDataset(Dataset[I]):
    """``size`` items sampled from ``dataset`` (Burn's ``SamplerDataset``; sets an epoch's
    length independently of the dataset's). With replacement by default; without, the items
    are drawn from successive random permutations (each item once per pass).

    Differs from Burn: Burn draws from a shared random generator on every ``get``; here the
    draws are fixed by ``seed`` when the dataset is made, so worker processes and resumed runs
    see the same items.
    """

    def __init__(self, dataset: Dataset[I], size: int, seed: int = 0, replacement: bool = True) -> None:
        check_dataset(dataset)
        n = dataset.len()
        if size < 0:
            raise ValueError(f"SamplerDataset size must be >= 0, got {size}")
        if n == 0 and size > 0:
            raise ValueError("SamplerDataset cannot sample from an empty dataset")
        gen = torch.Generator().manual_seed(int(seed))
        if replacement:
            self.indices = torch.randint(0, max(n, 1), (size,), generator=gen).tolist()
        else:
            passes = [torch.randperm(n, generator=gen) for _ in range(-(-size // n) if n else 0)]
            self.indices = torch.cat(passes).tolist()[:size] if passes else []
        self.dataset = dataset

    @classmethod
    def without_replacement(cls, dataset: Dataset[I], size: int, seed: int = 0) -> "SamplerDataset[I]":
        return cls(dataset, size, seed, replacement=False)

    def get(self, index: int) -> "I | None":
        return self.dataset.get(self.indices[index]) if 0 <= index < len(self.indices) else None

    def len(self) -> int:
        return len(self.indices)


class ComposedDataset(Dataset[I]):
    """The datasets one after another (Burn's ``ComposedDataset``)."""

    def __init__(self, datasets: Sequence[Dataset[I]]) -> None:
        for i, d in enumerate(datasets):
            check_dataset(d, f"datasets[{i}]")
        self.datasets = list(datasets)

    def get(self, index: int) -> "I | None":
        if index < 0:
            return None
        for d in self.datasets:
            n = d.len()
            if index < n:
                return d.get(index)
            index -= n
        return None

    def len(self) -> int:
        return sum(d.len() for d in self.datasets)


class WindowsDataset(Dataset[list]):
    """Every run of ``size`` consecutive items, as a list (Burn's ``WindowsDataset``): item
    ``i`` is ``[get(i), ..., get(i + size - 1)]``; ``len() == max(0, n - size + 1)``. Raises
    ValueError for ``size < 1``."""

    def __init__(self, dataset: Dataset[Any], size: int) -> None:
        check_dataset(dataset)
        if size < 1:
            raise ValueError(f"window size must be >= 1, got {size}")
        self.dataset, self.size = dataset, int(size)

    def get(self, index: int) -> "list | None":
        if not 0 <= index < self.len():
            return None
        return [self.dataset.get(index + k) for k in range(self.size)]

    def len(self) -> int:
        return max(0, self.dataset.len() - self.size + 1)
