"""burn_torch.module: parameter discovery, ParamId stability, Burn's module training state
(train / valid / no_grad), records, and safetensors files."""
from __future__ import annotations

import copy
import json
import pickle
import struct
from collections import namedtuple

import numpy as np
import pytest
import torch

from burn_torch import Distribution, DType, Device, Tensor, nn
from burn_torch.module import (Config, Module, ModuleMapper, ModuleRecord, ModuleVisitor, ParamId,
                               PathTracker, Param, RecordMismatchError, TrainingFlag, check_record,
                               list_param_ids, read_safetensors)
from helpers import Mlp

CPU = Device.cpu()
AD = CPU.autodiff()


class Zoo(Module):
    """Every kind of child: params, nested modules, list/tuple/dict containers, flags, constants."""

    def __init__(self, device: Device) -> None:
        super().__init__()
        self.scale = Param(Tensor.ones([2], device))
        self.blocks = [nn.LinearConfig(2, 2).init(device), nn.LinearConfig(2, 2).with_bias(False).init(device)]
        self.pair = (Param(Tensor.zeros([1], device)), None)
        self.heads = {"a": nn.LinearConfig(2, 1).with_bias(False).init(device)}
        self.dropout = TrainingFlag()
        self.steps = Param(Tensor.from_ints([1, 2], device))
        self.mask = Tensor.ones([2], device)
        self.width = 2
        self.name = "zoo"


def values(module: Module) -> dict[str, torch.Tensor]:
    return {name: p.val().to_torch().clone() for name, p in module.named_params()}


# ------------------------------------------------------------------------------ discovery ----
def test_params_are_found_from_attributes_in_definition_order():
    assert [n for n, _ in Mlp(CPU).named_params()] == ["fc1.weight", "fc1.bias", "fc2.weight", "fc2.bias"]


def test_params_in_lists_tuples_dicts_and_nested_modules_are_named_by_path():
    assert [n for n, _ in Zoo(CPU).named_params()] == [
        "scale", "blocks.0.weight", "blocks.0.bias", "blocks.1.weight", "pair.0", "heads.a.weight", "steps"]


def test_plain_attributes_constants_and_none_are_not_params():
    names = {n for n, _ in Zoo(CPU).named_params()}
    assert not names & {"mask", "width", "name", "pair.1"}


def test_named_modules_lists_the_tree():
    assert [n for n, _ in Zoo(CPU).named_modules()] == ["", "blocks.0", "blocks.1", "heads.a"]


def test_num_params_counts_float_elements_only():
    assert Mlp(CPU).num_params() == 4 * 8 + 8 + 8 * 3 + 3
    assert Zoo(CPU).num_params() == 2 + 6 + 4 + 1 + 2  # the Int param "steps" is not counted


def test_param_ids_are_unique_and_listed_in_order():
    zoo = Zoo(CPU)
    ids = list_param_ids(zoo)
    assert len(set(ids)) == len(ids) == 7
    assert ids[0] == zoo.scale.id


def test_param_id_text_round_trips():
    pid = ParamId.new()
    assert ParamId.parse(str(pid)) == pid and hash(ParamId.parse(str(pid))) == hash(pid)
    with pytest.raises(ValueError, match="not a ParamId"):
        ParamId.parse("zz")


def test_param_id_never_equals_a_plain_int():
    pid = ParamId(5)
    assert pid != 5 and not pid == 5 and 5 != pid
    assert {pid: "a"}.get(5) is None and {5: "b"}.get(pid) is None
    assert pid == ParamId(5) and not pid != ParamId(5) and {pid: "a"}[ParamId(5)] == "a"


def test_param_id_zero_is_truthy_like_any_id():
    assert ParamId(0) and bool(ParamId(0)) is True and (None or ParamId(0)) == ParamId(0)


def test_param_id_survives_pickling_and_copies_as_a_param_id():
    pid = ParamId.new()
    for back in (pickle.loads(pickle.dumps(pid)), copy.deepcopy(pid)):
        assert back == pid and type(back) is ParamId


def test_param_id_out_of_range_is_refused():
    for value in (-1, 2 ** 64):
        with pytest.raises(ValueError, match="unsigned 64-bit"):
            ParamId(value)


# ----------------------------------------------------------------- ParamId stability ----
TRANSITIONS = {
    "train": lambda m: m.train(),
    "valid": lambda m: m.valid(),
    "no_grad": lambda m: m.no_grad(),
    "fork": lambda m: m.fork(CPU),
    "to_device": lambda m: m.to_device(CPU),
    "map": lambda m: m.map(ModuleMapper()),
    "clone": lambda m: m.clone(),
}


@pytest.mark.parametrize("transition", list(TRANSITIONS))
def test_param_ids_survive(transition):
    zoo = Zoo(AD).train()
    after = TRANSITIONS[transition](zoo)
    assert list_param_ids(after) == list_param_ids(zoo)
    assert [f.id for _, f in after.named_training_flags()] == [zoo.dropout.id]


@pytest.mark.parametrize("transition", list(TRANSITIONS))
def test_transitions_return_a_new_module_and_leave_the_original(transition):
    zoo = Zoo(AD).train()
    before = [(p.val(), p.is_require_grad()) for p in zoo.params()]
    after = TRANSITIONS[transition](zoo)
    assert after is not zoo and after.blocks is not zoo.blocks
    assert [(p.val(), p.is_require_grad()) for p in zoo.params()] == before


# ----------------------------------------------------------------- module training state ----
def test_params_created_on_an_autodiff_device_are_require_grad_leaves():
    assert all(p.is_require_grad() for p in Mlp(AD).params())


def test_params_created_without_autodiff_become_leaves_at_train():
    model = Mlp(CPU)
    assert not any(p.val().is_autodiff() for p in model.params())
    trained = model.train()
    assert all(p.val().is_autodiff() and p.is_require_grad() for p in trained.params())


def test_train_keeps_existing_leaves():
    model = Mlp(AD)
    assert model.train().fc1.weight.val() is model.fc1.weight.val()


def test_valid_drops_autodiff_and_keeps_values():
    model = Mlp(AD)
    valid = model.valid()
    assert not any(p.val().is_autodiff() or p.val().is_tracked() for p in valid.params())
    assert all(torch.equal(a, b) for a, b in zip(values(model).values(), values(valid).values()))
    out = valid.forward(Tensor.ones([2, 4], CPU))
    assert not out.is_autodiff()


def test_frozen_param_stays_frozen_through_valid_and_train():
    model = Mlp(AD)
    model.fc1.weight = model.fc1.weight.set_require_grad(False)
    trained = model.valid().train()
    assert not trained.fc1.weight.is_require_grad() and trained.fc1.weight.val().is_autodiff()
    assert trained.fc1.bias.is_require_grad()


def test_no_grad_freezes_every_param_and_flag_even_after_train():
    zoo = Zoo(AD).no_grad().train()
    assert not any(p.is_require_grad() or p.is_trainable() for p in zoo.params())
    assert not zoo.dropout.is_training() and not zoo.dropout.is_trainable()


def test_training_flags_are_off_in_valid_and_restored_by_train():
    zoo = Zoo(AD)
    assert zoo.dropout.is_training()
    assert not zoo.valid().dropout.is_training()
    assert zoo.valid().train().dropout.is_training()


def test_constant_tensors_follow_valid_and_train_but_are_not_params():
    zoo = Zoo(AD)
    assert zoo.mask.is_autodiff()
    assert not zoo.valid().mask.is_autodiff()
    assert zoo.valid().train().mask.is_autodiff()
    assert "mask" not in zoo.into_record()


def test_fork_makes_fresh_leaves_while_to_device_tracks_the_source():
    model = Mlp(AD)
    forked, moved = model.fork(CPU), model.to_device(CPU)
    assert forked.fc1.weight.is_require_grad() and forked.fc1.weight.val() is not model.fc1.weight.val()
    assert moved.fc1.weight.val().is_tracked() and not moved.fc1.weight.is_require_grad()
    grads = moved.fc1.weight.val().sum().backward()
    assert model.fc1.weight.val().grad(grads) is not None


def test_param_set_require_grad_returns_a_new_param_with_the_same_id():
    p = Param(Tensor.ones([2], AD))
    frozen = p.set_require_grad(False)
    assert frozen is not p and frozen.id == p.id
    assert p.is_require_grad() and not frozen.is_require_grad() and not frozen.is_trainable()
    assert frozen.set_require_grad(True).is_require_grad()


def test_int_params_are_never_trainable():
    p = Param(Tensor.from_ints([1, 2], AD))
    assert not p.is_trainable() and not p.set_require_grad(True).is_require_grad()


# -------------------------------------------------------------------- visitors / mappers ----
def test_visitor_sees_each_param_kind_with_its_path():
    class Seen(PathTracker, ModuleVisitor):
        def __init__(self):
            super().__init__()
            self.seen = []

        def visit_float(self, param):
            self.seen.append(("float", self.path()))

        def visit_int(self, param):
            self.seen.append(("int", self.path()))

        def visit_training(self, flag):
            self.seen.append(("flag", self.path()))

    v = Seen()
    Zoo(CPU).visit(v)
    assert v.seen == [("float", "scale"), ("float", "blocks.0.weight"), ("float", "blocks.0.bias"),
                      ("float", "blocks.1.weight"), ("float", "pair.0"), ("float", "heads.a.weight"),
                      ("flag", "dropout"), ("int", "steps")]


def test_mapper_rewrites_params_and_rebuilds_containers():
    class Double(ModuleMapper):
        def map_float(self, param):
            return param.map(lambda t: t * 2.0)

    zoo = Zoo(CPU)
    doubled = zoo.map(Double())
    assert doubled.scale.val().to_data().to_list() == [2.0, 2.0]
    assert isinstance(doubled.pair, tuple) and doubled.pair[1] is None
    assert doubled.heads.keys() == {"a"} and doubled.width == 2
    assert zoo.scale.val().to_data().to_list() == [1.0, 1.0]


def test_mapper_keeps_namedtuple_containers():
    Pair = namedtuple("Pair", "left right")

    class Holder(Module):
        def __init__(self):
            super().__init__()
            self.pair = Pair(Param(Tensor.ones([1], CPU)), Param(Tensor.zeros([1], CPU)))

    mapped = Holder().clone()
    assert type(mapped.pair) is Pair and [n for n, _ in mapped.named_params()] == ["pair.0", "pair.1"]


def test_mapper_must_return_params():
    class Broken(ModuleMapper):
        def map_float(self, param):
            return param.val()

    with pytest.raises(TypeError, match="must return a Param"):
        Mlp(CPU).map(Broken())


def test_attribute_reassignment_replaces_a_param():
    model = Mlp(CPU)
    p = Param(Tensor.zeros([4, 8], CPU))
    model.fc1.weight = p
    assert model.named_params()[0] == ("fc1.weight", p)
    assert model.fc1.forward(Tensor.ones([1, 4], CPU)).to_data().to_list() == \
        [model.fc1.bias.val().to_data().to_list()]


# --------------------------------------------------------------------------------- records ----
def test_into_record_holds_ids_and_values_without_autodiff():
    model = Mlp(AD)
    record = model.into_record()
    assert list(record) == ["fc1.weight", "fc1.bias", "fc2.weight", "fc2.bias"]
    assert record["fc2.bias"].id == model.fc2.bias.id
    assert not record["fc2.bias"].value.is_autodiff()
    assert torch.equal(record["fc2.bias"].value.to_torch(), model.fc2.bias.val().to_torch())


def test_load_record_takes_values_and_ids_and_keeps_trainability():
    source, target = Mlp(AD), Mlp(AD)
    target.fc2.bias = target.fc2.bias.set_require_grad(False)
    loaded = target.load_record(pickle.loads(pickle.dumps(source.into_record())))
    assert list_param_ids(loaded) == list_param_ids(source)
    assert all(torch.equal(a, b) for a, b in zip(values(loaded).values(), values(source).values()))
    assert loaded.fc1.weight.is_require_grad() and loaded.fc1.weight.val() is not source.fc1.weight.val()
    assert not loaded.fc2.bias.is_require_grad()


def test_load_record_casts_to_the_module_dtype_and_context():
    record = ModuleRecord({"fc1.weight": Tensor.zeros([4, 8], CPU, dtype=DType.F64),
                           "fc1.bias": Tensor.zeros([8], CPU), "fc2.weight": Tensor.zeros([8, 3], CPU),
                           "fc2.bias": Tensor.zeros([3], CPU)})
    loaded = Mlp(AD).load_record(record)
    assert loaded.fc1.weight.val().dtype() is DType.F32 and loaded.fc1.weight.is_require_grad()


def test_load_record_with_a_wrong_shape_raises_and_leaves_the_module_unchanged():
    model = Mlp(AD)
    before_ids, before = list_param_ids(model), values(model)
    bad = dict(model.into_record())
    bad["fc1.weight"] = bad["fc1.weight"]._replace(value=Tensor.zeros([8, 4], CPU))
    with pytest.raises(RecordMismatchError, match=r"fc1.weight: expected shape \[4, 8\], got \[8, 4\]"):
        model.load_record(bad)
    assert list_param_ids(model) == before_ids
    assert all(torch.equal(a, b) for a, b in zip(values(model).values(), before.values()))


def test_load_record_reports_missing_and_unexpected_names():
    model = Mlp(CPU)
    record = dict(model.into_record())
    del record["fc2.bias"]
    record["fc3.weight"] = record["fc1.bias"]
    with pytest.raises(RecordMismatchError) as err:
        model.load_record(record)
    assert (err.value.missing, err.value.unexpected, err.value.mismatched) == (["fc2.bias"], ["fc3.weight"], [])
    assert check_record(model, record).missing == ["fc2.bias"]


def test_non_strict_load_fills_what_matches_and_keeps_the_rest():
    model, other = Mlp(CPU), Mlp(CPU)
    record = {"fc1.weight": other.into_record()["fc1.weight"], "extra": Tensor.zeros([1], CPU)}
    loaded = model.load_record(record, strict=False)
    assert torch.equal(loaded.fc1.weight.val().to_torch(), other.fc1.weight.val().to_torch())
    assert loaded.fc2.weight.val() is model.fc2.weight.val()


def test_load_record_rejects_a_kind_change():
    model = Zoo(CPU)
    record = dict(model.into_record())
    record["steps"] = Tensor.zeros([2], CPU)
    with pytest.raises(RecordMismatchError, match="steps: expected a Int tensor, got Float"):
        model.load_record(record)


# ----------------------------------------------------------------------------------- files ----
def test_save_load_round_trips_bit_exactly_with_ids(tmp_path):
    class Mixed(Module):
        def __init__(self):
            super().__init__()
            self.f32 = Param(Tensor.random([3, 5], Distribution.normal(0, 1), AD))
            self.f64 = Param(Tensor.from_data(np.random.default_rng(0).standard_normal((2, 2)), AD))
            self.bf16 = Param(Tensor.from_data(torch.randn(4, dtype=torch.bfloat16), AD))
            self.ints = Param(Tensor.from_ints([[-7, 2 ** 40]], AD))
            self.bools = Param(Tensor.from_bools([True, False], AD))
            self.scalar = Param(Tensor.from_data(torch.tensor(3.5), AD))

    source = Mixed()
    path = source.save_file(tmp_path / "mixed")
    assert path.name == "mixed.safetensors"
    loaded = Mixed().load_file(path)
    assert list_param_ids(loaded) == list_param_ids(source)
    for (name, a), (_, b) in zip(source.named_params(), loaded.named_params()):
        x, y = a.val().to_torch(), b.val().to_torch()
        assert x.dtype == y.dtype and list(x.shape) == list(y.shape), name
        assert torch.equal(x.view(-1).view(torch.uint8) if x.dtype != torch.bool else x,
                           y.view(-1).view(torch.uint8) if y.dtype != torch.bool else y), name
    assert loaded.f32.is_require_grad()


def test_saved_file_has_the_safetensors_layout(tmp_path):
    model = Mlp(CPU)
    path = model.save_file(tmp_path / "mlp.safetensors", metadata={"note": "hi"})
    raw = path.read_bytes()
    (n,) = struct.unpack("<Q", raw[:8])
    assert n % 8 == 0
    header = json.loads(raw[8:8 + n])
    meta = header.pop("__metadata__")
    assert meta["format"] == "burn_torch" and meta["note"] == "hi"
    assert json.loads(meta["param_ids"])["fc1.bias"] == str(model.fc1.bias.id)
    begin, end = header["fc1.weight"]["data_offsets"]
    assert header["fc1.weight"]["dtype"] == "F32" and header["fc1.weight"]["shape"] == [4, 8]
    assert end - begin == 4 * 8 * 4
    begin, end = header["fc2.bias"]["data_offsets"]
    data = raw[8 + n:]
    assert max(entry["data_offsets"][1] for entry in header.values()) == len(data)
    assert np.array_equal(np.frombuffer(data[begin:end], dtype="<f4"),
                          model.fc2.bias.val().to_data().to_numpy())


def test_files_from_other_writers_load_with_the_module_ids(tmp_path):
    from burn_torch.module import write_safetensors
    model = Mlp(CPU)
    tensors = {name: torch.full(p.val().dims(), 0.5) for name, p in model.named_params()}
    write_safetensors(tmp_path / "plain.safetensors", tensors, {})
    loaded = model.load_file(tmp_path / "plain.safetensors")
    assert list_param_ids(loaded) == list_param_ids(model)
    assert loaded.fc2.bias.val().to_data().to_list() == [0.5, 0.5, 0.5]


def test_loading_a_file_with_a_wrong_shape_raises_and_leaves_the_module(tmp_path):
    small, big = Mlp(CPU), Mlp(CPU)
    big.fc2 = nn.LinearConfig(8, 5).init(CPU)
    path = big.save_file(tmp_path / "big")
    before = values(small)
    with pytest.raises(RecordMismatchError, match=r"fc2.weight: expected shape \[8, 3\], got \[8, 5\]"):
        small.load_file(path)
    assert all(torch.equal(a, b) for a, b in zip(values(small).values(), before.values()))


def test_a_corrupt_file_is_rejected(tmp_path):
    path = tmp_path / "bad.safetensors"
    path.write_bytes(struct.pack("<Q", 10 ** 9) + b"{}")
    with pytest.raises(ValueError, match="bad.safetensors: not a valid safetensors file"):
        read_safetensors(path)
    header = json.dumps({"w": {"dtype": "F32", "shape": [2], "data_offsets": [0, 4]}}).encode()
    path.write_bytes(struct.pack("<Q", len(header)) + header + b"\0" * 8)
    with pytest.raises(ValueError, match="bad.safetensors: .*offset"):
        read_safetensors(path)


# ---------------------------------------------------------------------------------- config ----
def test_config_fields_get_with_builders_and_are_frozen():
    class Demo(Config):
        size: int
        rate: float = 0.5

    demo = Demo(3)
    assert demo.with_rate(0.1) == Demo(3, 0.1) and demo.rate == 0.5
    assert demo.to_dict() == {"size": 3, "rate": 0.5}
    with pytest.raises(AttributeError):
        demo.size = 4
