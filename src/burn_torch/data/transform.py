"""Lazy dataset transforms (Burn's ``burn::data::dataset::transform``): each wraps a dataset
and computes its items on ``get``; nothing is copied.

Randomised transforms take a seed and are pure functions of it (and, for
[`SamplerDataset`][burn_torch.data.transform.SamplerDataset], of the epoch), so every worker process
and every resumed run sees the same items.
"""
from __future__ import annotations

import dataclasses
import secrets
from typing import Any, Callable, Generic, Sequence, TypeVar

import torch

from .dataset import Dataset, check_dataset

I = TypeVar("I")
O = TypeVar("O")


def epoch_seed(seed: int, epoch: int) -> int:
    """The seed of epoch ``epoch``'s random draws (shuffles, samples, worker seeds): distinct
    per epoch, fixed by both."""
    return (int(seed) * 0x9E3779B97F4A7C15 + int(epoch)) % (2 ** 63)


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

    def sources(self) -> tuple:
        return (self.dataset,)


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

    def sources(self) -> tuple:
        return (self.dataset,)


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

    def sources(self) -> tuple:
        return (self.dataset,)


@dataclasses.dataclass(frozen=True)
class SizeConfig:
    """The size of a transform relative to its source (Burn's ``SizeConfig``):
    ``source`` (the source's size, the default),
    [`fixed`][burn_torch.data.transform.SizeConfig.fixed] ``(n)`` items, or
    [`ratio`][burn_torch.data.transform.SizeConfig.ratio] ``(r)`` times the source's size (rounded
    down, as Burn's ``as usize``)."""

    kind: str = "source"
    value: float = 0

    @classmethod
    def source(cls) -> "SizeConfig":
        return cls("source")

    @classmethod
    def fixed(cls, size: int) -> "SizeConfig":
        """ValueError for a negative size."""
        if int(size) < 0:
            raise ValueError(f"a fixed size must be >= 0, got {size}")
        return cls("fixed", int(size))

    @classmethod
    def ratio(cls, ratio: float) -> "SizeConfig":
        """ValueError for a negative ratio (Burn: "Ratio must be positive")."""
        if not float(ratio) >= 0:
            raise ValueError(f"Ratio must be positive: {ratio}")
        return cls("ratio", float(ratio))

    @classmethod
    def of(cls, size: "SizeConfig | int | float | None") -> "SizeConfig":
        """Burn's ``Into<SizeConfig>``: an int is a fixed size, a float a ratio, None the
        source's size."""
        if isinstance(size, SizeConfig):
            return size
        if size is None:
            return cls.source()
        if isinstance(size, bool) or not isinstance(size, (int, float)):
            raise TypeError(f"a size is an int (items), a float (ratio) or a SizeConfig, got {size!r}")
        return cls.fixed(size) if isinstance(size, int) else cls.ratio(size)

    def resolve(self, source_size: int) -> int:
        """The effective size for a source of ``source_size`` items."""
        if self.kind == "fixed":
            return int(self.value)
        if self.kind == "ratio":
            return int(source_size * self.value)
        return int(source_size)


def _seed_from(rng: "int | torch.Generator | None") -> int:
    """A base seed: ``rng`` itself (an int), one drawn from a torch generator (advancing it, as
    Burn forks a ``&mut StdRng``), or one from the operating system (None)."""
    if rng is None:
        return secrets.randbits(63)
    if isinstance(rng, torch.Generator):
        return int(torch.randint(0, 2 ** 62, (), generator=rng))
    if isinstance(rng, bool) or not isinstance(rng, int):
        raise TypeError(f"a random source is a seed (int), a torch.Generator or None, got {type(rng).__name__}")
    return int(rng)


@dataclasses.dataclass(frozen=True)
class SamplerDatasetOptions:
    """Burn's ``SamplerDatasetOptions``: sampling with replacement (default) or without, the
    size (the source's by default), and the random source. Each ``with_*`` returns new options.

    Differs from Burn: the random source defaults to seed 0, not the operating system, so runs
    repeat (and a resumed Learner run trains as the uninterrupted one); ``with_system_rng``
    draws the seed from the operating system."""

    replace_samples: bool = True
    size_config: SizeConfig = SizeConfig()
    seed: int = 0

    def with_replace_samples(self, replace_samples: bool) -> "SamplerDatasetOptions":
        return dataclasses.replace(self, replace_samples=bool(replace_samples))

    def with_replacement(self) -> "SamplerDatasetOptions":
        return self.with_replace_samples(True)

    def without_replacement(self) -> "SamplerDatasetOptions":
        return self.with_replace_samples(False)

    def with_size(self, size: "SizeConfig | int | float | None") -> "SamplerDatasetOptions":
        """An int is a fixed size, a float a ratio of the source's size (see
        [`SizeConfig`][burn_torch.data.transform.SizeConfig])."""
        return dataclasses.replace(self, size_config=SizeConfig.of(size))

    def with_source_size(self) -> "SamplerDatasetOptions":
        return self.with_size(SizeConfig.source())

    def with_fixed_size(self, size: int) -> "SamplerDatasetOptions":
        return self.with_size(SizeConfig.fixed(size))

    def with_size_ratio(self, ratio: float) -> "SamplerDatasetOptions":
        return self.with_size(SizeConfig.ratio(ratio))

    def with_rng(self, rng: "int | torch.Generator | None") -> "SamplerDatasetOptions":
        """A seed, a torch generator (a seed is drawn from it), or None (the system's)."""
        return dataclasses.replace(self, seed=_seed_from(rng))

    def with_seed(self, seed: int) -> "SamplerDatasetOptions":
        return self.with_rng(int(seed))

    def with_system_rng(self) -> "SamplerDatasetOptions":
        return self.with_rng(None)


class SamplerDataset(Dataset[I]):
    """Items sampled from ``dataset`` (Burn's ``SamplerDataset``): sets an epoch's length
    independently of the dataset's, and draws afresh every epoch.

    ``options`` is an int (that many items, with replacement, as Burn's ``From<usize>``), a
    [`SamplerDatasetOptions`][burn_torch.data.transform.SamplerDatasetOptions], or None (the
    source's size, with replacement). With replacement each item of the epoch is drawn uniformly
    from the source; without, every source item appears ``size // n`` times and ``size % n``
    distinct others once, all in a uniformly random order (Burn's refill, at one epoch per refill).

    Reproducible: epoch ``e``'s items are a function of the seed and ``e`` alone, whichever
    process asks (a loader's worker processes, a resumed run);
    [`set_epoch`][burn_torch.data.transform.SamplerDataset.set_epoch], called by the ``DataLoader``
    before each epoch, selects them (epoch 0 until then). Differs from Burn, whose sampler draws
    from one generator shared by every ``get``. Raises ValueError when a non-empty sample is asked
    of an empty dataset (Burn panics).
    """

    _SALT = 0x5A3D_0C11_9E4B  # keeps the draws apart from a loader's shuffle with the same seed

    def __init__(self, dataset: Dataset[I], options: "SamplerDatasetOptions | int | None" = None,
                 seed: int | None = None) -> None:
        check_dataset(dataset)
        if options is None:
            options = SamplerDatasetOptions()
        elif isinstance(options, int) and not isinstance(options, bool):
            options = SamplerDatasetOptions().with_replacement().with_fixed_size(options)
        elif not isinstance(options, SamplerDatasetOptions):
            raise TypeError(f"SamplerDataset options are a size (int) or SamplerDatasetOptions, "
                            f"got {type(options).__name__}")
        if seed is not None:
            options = options.with_seed(seed)
        self.dataset, self.options = dataset, options
        self.size = options.size_config.resolve(dataset.len())
        if dataset.len() == 0 and self.size > 0:
            raise ValueError("SamplerDataset cannot sample from an empty dataset")
        self._epoch = 0
        self._drawn: tuple[int, list[int]] | None = None

    @classmethod
    def new(cls, dataset: Dataset[I], options: "SamplerDatasetOptions | int | None" = None) -> "SamplerDataset[I]":
        return cls(dataset, options)

    @classmethod
    def with_replacement(cls, dataset: Dataset[I], size: int, seed: int = 0) -> "SamplerDataset[I]":
        return cls(dataset, SamplerDatasetOptions().with_replacement().with_fixed_size(size).with_seed(seed))

    @classmethod
    def without_replacement(cls, dataset: Dataset[I], size: int, seed: int = 0) -> "SamplerDataset[I]":
        return cls(dataset, SamplerDatasetOptions().without_replacement().with_fixed_size(size).with_seed(seed))

    def is_with_replacement(self) -> bool:
        return self.options.replace_samples

    def set_epoch(self, epoch: int) -> None:
        """Selects epoch ``epoch``'s draw (0-based) and passes the epoch on to ``dataset``."""
        self._epoch = int(epoch)
        super().set_epoch(epoch)

    def sources(self) -> tuple:
        return (self.dataset,)

    def indices(self, epoch: int | None = None) -> list[int]:
        """The source indices of epoch ``epoch``'s items (the current epoch by default)."""
        epoch = self._epoch if epoch is None else int(epoch)
        drawn = self._drawn
        if drawn is None or drawn[0] != epoch:
            drawn = self._drawn = (epoch, self._draw(epoch))
        return drawn[1]

    def _draw(self, epoch: int) -> list[int]:
        n, size = self.dataset.len(), self.size
        gen = torch.Generator().manual_seed(epoch_seed(self.options.seed ^ self._SALT, epoch))
        if self.options.replace_samples:
            return torch.randint(0, max(n, 1), (size,), generator=gen).tolist()
        chosen = torch.cat([torch.arange(n).repeat(size // n), torch.randperm(n, generator=gen)[:size % n]]) \
            if n else torch.empty(0, dtype=torch.long)
        return chosen[torch.randperm(size, generator=gen)].tolist()

    def get(self, index: int) -> "I | None":
        return self.dataset.get(self.indices()[index]) if 0 <= index < self.size else None

    def len(self) -> int:
        return self.size


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

    def sources(self) -> tuple:
        return tuple(self.datasets)


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

    def sources(self) -> tuple:
        return (self.dataset,)
