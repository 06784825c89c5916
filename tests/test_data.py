"""burn_torch.data: Burn's dataset contract, each lazy transform, and data loaders whose
batches are fixed by the seed and the epoch, with or without worker processes."""
from __future__ import annotations

import torch
import pytest

from burn_torch import Device, Tensor
from burn_torch.data import (Batcher, ComposedDataset, DataLoaderBuilder, InMemDataset,
                             MapperDataset, PartialDataset, SamplerDataset, SamplerDatasetOptions,
                             SelectionDataset, ShuffledDataset, SizeConfig, TorchDataset,
                             WindowsDataset, mnist_like)


def numbers(n: int) -> InMemDataset:
    return InMemDataset(list(range(n)))


def items(dataset) -> list:
    return [dataset.get(i) for i in range(dataset.len())]


class ListBatcher(Batcher):
    """Batches of ints as Int tensors on the device."""

    def batch(self, items, device):
        return Tensor.from_ints(items, device)


def test_in_mem_dataset_gets_items_and_none_past_the_end():
    ds = numbers(3)
    assert (ds.len(), ds.get(2), ds.get(3), ds.get(-1)) == (3, 2, None, None)
    assert list(ds) == [0, 1, 2] and len(ds) == 3 and ds[1] == 1
    with pytest.raises(IndexError):
        ds[3]


def test_in_mem_dataset_from_csv_reads_rows_and_parses(tmp_path):
    path = tmp_path / "rows.csv"
    path.write_text("x,label\n1.5,0\n2.5,1\n", encoding="utf-8")
    assert items(InMemDataset.from_csv(path)) == [{"x": "1.5", "label": "0"}, {"x": "2.5", "label": "1"}]
    parsed = InMemDataset.from_csv(path, parse=lambda r: (float(r["x"]), int(r["label"])))
    assert items(parsed) == [(1.5, 0), (2.5, 1)]


def test_in_mem_dataset_from_csv_names_a_ragged_line(tmp_path):
    path = tmp_path / "bad.csv"
    path.write_text("a,b\n1,2\n3\n", encoding="utf-8")
    with pytest.raises(ValueError, match="line 3"):
        InMemDataset.from_csv(path)


def test_mapper_dataset_maps_lazily():
    calls = []
    ds = MapperDataset(numbers(4), lambda x: calls.append(x) or x * 10)
    assert calls == [] and ds.get(2) == 20 and calls == [2] and ds.get(4) is None


def test_shuffled_dataset_is_a_permutation_fixed_by_the_seed():
    a, b, c = ShuffledDataset(numbers(20), 1), ShuffledDataset(numbers(20), 1), ShuffledDataset(numbers(20), 2)
    assert sorted(items(a)) == list(range(20))
    assert items(a) == items(b) and items(a) != items(c) and items(a) != list(range(20))


def test_partial_dataset_reindexes_a_range_and_split_covers_everything():
    part = PartialDataset(numbers(10), 3, 6)
    assert items(part) == [3, 4, 5] and part.get(3) is None
    assert [items(p) for p in PartialDataset.split(numbers(7), 3)] == [[0, 1], [2, 3], [4, 5, 6]]
    with pytest.raises(ValueError):
        PartialDataset(numbers(5), 4, 2)


def test_selection_dataset_selects_in_order_and_rejects_bad_indices():
    assert items(SelectionDataset(numbers(5), [4, 0, 4])) == [4, 0, 4]
    with pytest.raises(IndexError):
        SelectionDataset(numbers(5), [5])


def test_sampler_dataset_sets_the_epoch_length():
    with_replacement = SamplerDataset(numbers(3), 10, seed=0)
    assert with_replacement.len() == 10 and set(items(with_replacement)) <= {0, 1, 2}
    assert with_replacement.is_with_replacement()
    assert SamplerDataset(numbers(10)).len() == 10                       # the source's size
    ratio = SamplerDataset(numbers(10), SamplerDatasetOptions().with_size(1.55))
    assert ratio.len() == 15                                             # rounded down, as Burn
    with pytest.raises(ValueError, match="Ratio must be positive"):
        SamplerDatasetOptions().with_size_ratio(-0.5)
    with pytest.raises(ValueError, match="empty dataset"):
        SamplerDataset(numbers(0), 3)


def test_sampler_without_replacement_draws_each_item_size_over_n_times_plus_distinct_others():
    # Burn: every item size // n times, size % n distinct others once, all shuffled
    drawn = items(SamplerDataset.without_replacement(numbers(10), 25, seed=4))
    counts = [drawn.count(i) for i in range(10)]
    assert sorted(counts) == [2] * 5 + [3] * 5
    shuffled = items(SamplerDataset.without_replacement(numbers(1000), 1000, seed=1))
    assert sorted(shuffled) == list(range(1000)) and shuffled != list(range(1000))
    assert not SamplerDataset.without_replacement(numbers(4), 4).is_with_replacement()


@pytest.mark.parametrize("replacement", [True, False])
def test_a_loader_over_a_sampler_sees_new_items_each_epoch(replacement):
    # 100 items an epoch from 200, drawn afresh each epoch: over 5 epochs about 92 % (with
    # replacement, 1 - (1 - 1/200)**500) or 97 % (without, 1 - 2**-5) of the items are seen;
    # one draw kept for every epoch would show 39 % or 50 %
    options = SamplerDatasetOptions().with_replace_samples(replacement).with_fixed_size(100)
    loader = DataLoaderBuilder(ListBatcher()).batch_size(50).build(SamplerDataset(numbers(200), options))
    epochs = [sorted(int(v) for batch in loader for v in batch.to_torch().tolist()) for _ in range(5)]
    assert all(a != b for a, b in zip(epochs, epochs[1:]))
    assert len(set().union(*epochs)) >= 170


def test_a_samplers_epoch_is_fixed_by_its_seed_and_the_epoch_with_or_without_workers():
    def run(seed, workers, skip=0):
        loader = (DataLoaderBuilder(ListBatcher()).batch_size(8).shuffle(5).num_workers(workers)
                  .build(MapperDataset(SamplerDataset(numbers(40), 24, seed=seed), lambda x: x)))
        loader.set_epoch(skip)
        return [[b.to_torch().tolist() for b in loader] for _ in range(3 - skip)]

    straight = run(7, 0)
    assert run(7, 2) == straight                   # worker processes draw the same items
    assert run(7, 0, skip=1) == straight[1:]       # a resumed run (epoch set directly) too
    assert run(8, 0) != straight


def test_sampler_options_follow_burns_builders():
    options = SamplerDatasetOptions()
    assert options.replace_samples and options.size_config == SizeConfig.source()
    assert options.without_replacement().replace_samples is False
    assert options.with_fixed_size(10).size_config == SizeConfig.fixed(10)
    assert options.with_size(10).size_config == SizeConfig.fixed(10)
    assert options.with_size_ratio(1.5).size_config == SizeConfig.ratio(1.5)
    assert options.with_source_size().size_config == SizeConfig.source()
    assert options.with_seed(42).seed == 42
    assert options.with_system_rng().seed != options.with_system_rng().seed
    gen = torch.Generator().manual_seed(0)
    assert options.with_rng(gen).seed != options.with_rng(gen).seed    # forks advance the parent


def test_composed_dataset_concatenates():
    ds = ComposedDataset([numbers(2), InMemDataset(["a", "b", "c"])])
    assert items(ds) == [0, 1, "a", "b", "c"] and ds.get(5) is None


def test_windows_dataset_gives_every_run_of_consecutive_items():
    ds = WindowsDataset(numbers(5), 3)
    assert items(ds) == [[0, 1, 2], [1, 2, 3], [2, 3, 4]] and ds.get(3) is None
    assert WindowsDataset(numbers(2), 3).len() == 0


def test_torch_dataset_adapter_wraps_a_map_style_dataset():
    tensors = torch.utils.data.TensorDataset(torch.arange(4))
    ds = TorchDataset(tensors)
    assert ds.len() == 4 and ds.get(2)[0].item() == 2 and ds.get(4) is None
    with pytest.raises(TypeError):
        TorchDataset(object())


def test_loader_batches_in_order_without_shuffle_keeping_the_last_partial_batch():
    loader = DataLoaderBuilder(ListBatcher()).batch_size(4).set_device(Device.cpu()).build(numbers(10))
    assert len(loader) == 3
    assert [b.to_data().to_list() for b in loader] == [[0, 1, 2, 3], [4, 5, 6, 7], [8, 9]]


def test_loader_shuffles_differently_each_epoch_and_set_epoch_replays_one():
    loader = DataLoaderBuilder(ListBatcher()).batch_size(5).shuffle(7).set_device(Device.cpu()).build(numbers(10))
    first = [b.to_data().to_list() for b in loader]
    second = [b.to_data().to_list() for b in loader]
    assert first != second and sorted(sum(first, [])) == list(range(10))
    loader.set_epoch(0)
    assert [b.to_data().to_list() for b in loader] == first


def test_loader_with_two_workers_gives_the_batches_of_no_workers():
    mapped = MapperDataset(numbers(23), lambda x: x * 3)
    builder = DataLoaderBuilder(ListBatcher()).batch_size(4).shuffle(11).set_device(Device.cpu())
    serial = [b.to_data().to_list() for b in builder.build(mapped)]
    parallel = builder.num_workers(2).build(mapped)
    assert [b.to_data().to_list() for b in parallel] == serial
    again = builder.num_workers(2).build(mapped)
    assert [b.to_data().to_list() for b in again] == serial


def test_builder_methods_return_new_builders_and_check_values():
    base = DataLoaderBuilder(ListBatcher())
    assert base.batch_size(3) is not base
    assert len(base.set_device(Device.cpu()).build(numbers(4))) == 4  # batch size still 1
    with pytest.raises(ValueError):
        base.batch_size(0)
    with pytest.raises(TypeError):
        base.build([1, 2, 3])


def test_mnist_like_is_deterministic_and_labelled():
    a, b = mnist_like(20, seed=5), mnist_like(20, seed=5)
    assert [it.label for it in items(a)] == [it.label for it in items(b)]
    assert sorted(it.label for it in items(a)) == sorted(list(range(10)) * 2)
    image = a.get(0).image
    assert image.shape == (28, 28) and 0 <= image.min() and image.max() <= 255 and image.max() > 200


def test_mapper_dataset_takes_a_burn_style_mapper_object():
    from burn_torch.data import Mapper

    class Double(Mapper):
        def map(self, item):
            return item * 2

    assert items(MapperDataset(numbers(3), Double())) == [0, 2, 4]
    with pytest.raises(TypeError):
        MapperDataset(numbers(3), 42)
