"""Burn's data pipeline (``burn::data``): datasets, lazy transforms, batchers and data loaders.

A :class:`Dataset` is fixed-length random access: ``get(index)`` returns the item or None past
the end, ``len()`` the number of items. Transforms wrap a dataset without copying it
(:class:`MapperDataset`, :class:`ShuffledDataset`, :class:`PartialDataset`,
:class:`SelectionDataset`, :class:`SamplerDataset` (drawing afresh each epoch, see
:class:`SamplerDatasetOptions`), :class:`ComposedDataset`, :class:`WindowsDataset`);
:class:`InMemDataset` holds items (``from_csv`` reads a CSV file); :class:`TorchDataset` wraps any ``torch.utils.data.Dataset``. A :class:`Batcher` turns a list
of items into a batch on a device, and :class:`DataLoaderBuilder` builds the loader::

    loader = (DataLoaderBuilder(MnistBatcher()).batch_size(64).shuffle(42).num_workers(2)
              .build(SamplerDataset(train, 10_000)))
    for batch in loader: ...

:func:`mnist_like` generates a small MNIST-style digit dataset (no download).
"""
from .dataset import Dataset, DatasetIterator, InMemDataset, TorchDataset
from .transform import (ComposedDataset, Mapper, MapperDataset, PartialDataset, SamplerDataset,
                        SamplerDatasetOptions, SelectionDataset, ShuffledDataset, SizeConfig,
                        WindowsDataset)
from .dataloader import Batcher, DataLoader, DataLoaderBuilder
from .synthetic import MnistItem, mnist_like

__all__ = [
    "Dataset", "DatasetIterator", "InMemDataset", "TorchDataset", "Mapper", "MapperDataset",
    "ShuffledDataset", "PartialDataset", "SelectionDataset", "SamplerDataset",
    "SamplerDatasetOptions", "SizeConfig", "ComposedDataset",
    "WindowsDataset", "Batcher", "DataLoader", "DataLoaderBuilder", "MnistItem", "mnist_like",
]
