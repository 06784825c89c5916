"""The [`Dataset`][burn_torch.data.dataset.Dataset] contract, in-memory storage and the adapter for
torch datasets."""
from __future__ import annotations

import csv
import os
from typing import Any, Callable, Generic, Iterator, Sequence, TypeVar

I = TypeVar("I")


class Dataset(Generic[I]):
    """Fixed-length random access to items (Burn's ``Dataset`` trait).

    Subclasses implement ``get(index)`` (the item, or None when ``index`` is out of range) and
    ``len()``. Python's protocols follow: ``len(ds)``, ``ds[i]`` (IndexError instead of None)
    and iteration (stops at the first None, as Burn's ``DatasetIterator``).
    """

    def get(self, index: int) -> "I | None":
        raise NotImplementedError

    def len(self) -> int:
        raise NotImplementedError

    def is_empty(self) -> bool:
        return self.len() == 0

    def set_epoch(self, epoch: int) -> None:
        """Says which epoch (0-based) is read next; the ``DataLoader`` calls
        it before each epoch. A dataset whose items depend on the epoch
        (``SamplerDataset``) draws that epoch's items; a transform passes the
        epoch on to the datasets it wraps; others ignore it."""
        for source in self.sources():
            forward = getattr(source, "set_epoch", None)
            if callable(forward):
                forward(epoch)

    def sources(self) -> "tuple[Any, ...]":
        """The datasets this one reads its items from (none for a storage dataset)."""
        return ()

    def iter(self) -> "DatasetIterator[I]":
        return DatasetIterator(self)

    def __iter__(self) -> Iterator[I]:
        return DatasetIterator(self)

    def __len__(self) -> int:
        return self.len()

    def __getitem__(self, index: int) -> I:
        if not isinstance(index, int):
            raise TypeError(f"dataset indices are ints, got {type(index).__name__}")
        item = self.get(index) if 0 <= index else None
        if item is None:
            raise IndexError(f"index {index} out of range for a dataset of {self.len()} items")
        return item


class DatasetIterator(Generic[I]):
    """Items ``get(0), get(1), ...`` until ``get`` returns None."""

    __slots__ = ("_dataset", "_current")

    def __init__(self, dataset: Dataset[I]) -> None:
        self._dataset = dataset
        self._current = 0

    def __iter__(self) -> "DatasetIterator[I]":
        return self

    def __next__(self) -> I:
        item = self._dataset.get(self._current)
        if item is None:
            raise StopIteration
        self._current += 1
        return item


def check_dataset(dataset: Any, what: str = "dataset") -> None:
    """TypeError unless ``dataset`` has ``get`` and ``len`` (a Dataset, or anything shaped so)."""
    if not (callable(getattr(dataset, "get", None)) and callable(getattr(dataset, "len", None))):
        raise TypeError(f"{what} must have get(index) and len() (a burn_torch.data.Dataset; wrap "
                        f"a torch dataset in TorchDataset), got {type(dataset).__name__}")


class InMemDataset(Dataset[I]):
    """Items held in a list (Burn's ``InMemDataset``)."""

    __slots__ = ("_items",)

    def __init__(self, items: Sequence[I]) -> None:
        self._items = list(items)

    def get(self, index: int) -> "I | None":
        return self._items[index] if 0 <= index < len(self._items) else None

    def len(self) -> int:
        return len(self._items)

    @classmethod
    def from_csv(cls, path: "str | os.PathLike", parse: Callable[[dict[str, str]], I] | None = None,
                 delimiter: str = ",") -> "InMemDataset[I]":
        """One item per row of a CSV file with a header line: the row as ``{column: text}``, or
        ``parse(row)`` when given (convert types there). Raises FileNotFoundError for a missing
        file and ValueError, naming the line, for a row whose field count differs from the
        header's."""
        items = []
        with open(path, newline="", encoding="utf-8") as f:
            reader = csv.DictReader(f, delimiter=delimiter)
            for row in reader:
                if None in row or None in row.values():
                    raise ValueError(f"{path}: line {reader.line_num} has "
                                     f"{'more' if None in row else 'fewer'} fields than the header")
                items.append(parse(row) if parse is not None else row)
        return cls(items)  # type: ignore[arg-type]  # without parse, I is dict[str, str]


class TorchDataset(Dataset):
    """Any ``torch.utils.data.Dataset`` with ``__getitem__`` and ``__len__`` as a Dataset, so
    torchvision-style datasets port unchanged: ``get(i)`` is ``dataset[i]`` within range."""

    __slots__ = ("dataset",)

    def __init__(self, dataset) -> None:
        if not (hasattr(dataset, "__getitem__") and hasattr(dataset, "__len__")):
            raise TypeError(f"TorchDataset wraps a map-style torch dataset (__getitem__ and "
                            f"__len__), got {type(dataset).__name__}")
        self.dataset = dataset

    def get(self, index: int):
        return self.dataset[index] if 0 <= index < len(self.dataset) else None

    def sources(self) -> tuple:
        return (self.dataset,)   # a torch dataset with its own set_epoch(epoch) gets the epoch

    def len(self) -> int:
        return len(self.dataset)
