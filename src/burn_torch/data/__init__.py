"""Burn's data pipeline (``burn::data``): datasets, lazy transforms, batchers and data loaders.

A [`Dataset`][burn_torch.data.dataset.Dataset] is fixed-length random access: ``get(index)`` returns
the item or None past the end, ``len()`` the number of items. Transforms wrap a dataset without
copying it ([`MapperDataset`][burn_torch.data.transform.MapperDataset],
[`ShuffledDataset`][burn_torch.data.transform.ShuffledDataset],
[`PartialDataset`][burn_torch.data.transform.PartialDataset],
[`SelectionDataset`][burn_torch.data.transform.SelectionDataset],
[`SamplerDataset`][burn_torch.data.transform.SamplerDataset] (drawing afresh each epoch, see
[`SamplerDatasetOptions`][burn_torch.data.transform.SamplerDatasetOptions]),
[`ComposedDataset`][burn_torch.data.transform.ComposedDataset],
[`WindowsDataset`][burn_torch.data.transform.WindowsDataset]);
[`InMemDataset`][burn_torch.data.dataset.InMemDataset] holds items (``from_csv`` reads a CSV file);
[`TorchDataset`][burn_torch.data.dataset.TorchDataset] wraps any ``torch.utils.data.Dataset``. A
[`Batcher`][burn_torch.data.dataloader.Batcher] turns a list of items into a batch on a device, and
[`DataLoaderBuilder`][burn_torch.data.dataloader.DataLoaderBuilder] builds the loader::

    loader = (DataLoaderBuilder(MnistBatcher()).batch_size(64).shuffle(42).num_workers(2)
              .build(SamplerDataset(train, 10_000)))
    for batch in loader: ...

[`mnist_like`][burn_torch.data.synthetic.mnist_like] generates a small MNIST-style digit dataset (no
download).
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
