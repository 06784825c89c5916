"""burn_torch.record: recorders (Burn's named MessagePack layout, precision settings,
checksums) and stores (Burnpack, safetensors, PyTorch files; remapping, filtering, partial
loads, adapters) round-trip a module, and reject corrupt or unfitting files without loading."""
from __future__ import annotations

import gzip

import msgpack
import pytest
import torch

from burn_torch import Device, Distribution, Tensor, nn
from burn_torch.compat import to_torch_state_dict
from burn_torch.module import Config, Module, RecordMismatchError
from burn_torch.optim import AdamConfig, GradientsParams, OptimizerRecord
from burn_torch.record import (BurnpackStore, BurnToPyTorchAdapter, CompactRecorder,
                               DefaultRecorder, DoublePrecisionSettings, HalfPrecisionAdapter,
                               NamedMpkFileRecorder, NamedMpkGzFileRecorder, PytorchStore,
                               PyTorchToBurnAdapter, RecordError, SafetensorsStore, StoreError,
                               load_file, save_file)
from burn_torch.record.serde import decode_param_id, encode_param_id


class Net(Module):
    def __init__(self, device) -> None:
        super().__init__()
        self.fc = nn.LinearConfig(4, 6).init(device)
        self.norm = nn.LayerNormConfig(6).init(device)
        self.heads = [nn.LinearConfig(6, 3).init(device), nn.LinearConfig(6, 2).init(device)]

    def forward(self, x):
        h = self.norm.forward(self.fc.forward(x))
        return self.heads[0].forward(h).sum() + self.heads[1].forward(h).sum()


class TorchNet(torch.nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.fc = torch.nn.Linear(4, 6)
        self.norm = torch.nn.LayerNorm(6)
        self.heads = torch.nn.ModuleList([torch.nn.Linear(6, 3), torch.nn.Linear(6, 2)])


CPU = Device.cpu()


def values(module) -> dict[str, torch.Tensor]:
    return {name: p.val().to_torch().clone() for name, p in module.named_params()}


def ids(module) -> list:
    return [p.id for _, p in module.named_params()]


def assert_same_values(a, b, atol=0.0):
    va, vb = values(a), values(b)
    assert va.keys() == vb.keys()
    for k in va:
        assert torch.allclose(va[k], vb[k], atol=atol, rtol=0), k


# ------------------------------------------------------------------------------ recorders ----
@pytest.mark.parametrize("recorder", [DefaultRecorder(), NamedMpkGzFileRecorder(),
                                      NamedMpkFileRecorder(DoublePrecisionSettings())], ids=repr)
def test_full_precision_recorders_round_trip_values_and_ids_exactly(tmp_path, recorder):
    net = Net(CPU)
    path = save_file(net, tmp_path / "net", recorder)
    assert path.name == f"net.{recorder.extension}"
    loaded = load_file(Net(CPU), tmp_path / "net", recorder)
    assert_same_values(net, loaded) and ids(loaded) == ids(net)


def test_compact_recorder_stores_half_precision_and_loads_back_float32(tmp_path):
    net = Net(CPU)
    small = CompactRecorder().record(net, tmp_path / "small")
    top = msgpack.unpackb(small.read_bytes())
    assert top["metadata"]["float"] == "half::binary16::f16"
    assert top["item"]["fc"]["weight"]["param"]["dtype"] == "F16"
    assert len(top["item"]["fc"]["weight"]["param"]["bytes"]) == 4 * 6 * 2
    loaded = load_file(Net(CPU), small, CompactRecorder())
    for k, v in values(loaded).items():
        assert v.dtype == torch.float32
        assert torch.equal(v, values(net)[k].half().float())  # rounded to f16, converted back


def test_mpk_file_has_burns_record_layout(tmp_path):
    net = Net(CPU)
    top = msgpack.unpackb(DefaultRecorder().record(net, tmp_path / "n").read_bytes())
    assert top["metadata"] == {"float": "f32", "int": "i32", "format": "burn_core::record::file::"
                               "NamedMpkFileRecorder<burn_core::record::settings::FullPrecisionSettings>",
                               "version": "0.21.0", "settings": "FullPrecisionSettings"}
    weight = top["item"]["fc"]["weight"]
    assert weight["param"]["shape"] == [4, 6] and weight["param"]["dtype"] == "F32"
    assert decode_param_id(weight["id"]) == net.fc.weight.id and len(weight["id"]) == 13
    assert isinstance(top["item"]["heads"], list) and top["item"]["heads"][1]["bias"]["param"]["shape"] == [2]
    assert torch.equal(torch.frombuffer(bytearray(weight["param"]["bytes"]), dtype=torch.float32).reshape(4, 6),
                       net.fc.weight.val().to_torch())


def test_param_id_text_round_trips():
    from burn_torch.module import ParamId
    for value in (0, 1, 2 ** 64 - 1, 1234567890123):
        assert decode_param_id(encode_param_id(ParamId(value))) == ParamId(value)


def test_optimizer_and_scheduler_records_round_trip(tmp_path):
    device = CPU.autodiff()
    net, optim = Net(device).train(), AdamConfig().init()
    x = Tensor.random([3, 4], Distribution.default(), device)
    net = optim.step(0.1, net, GradientsParams.from_grads(net.forward(x).backward(), net))
    record = optim.to_record()
    path = DefaultRecorder().record(record, tmp_path / "optim")
    loaded = DefaultRecorder().load(path, record_type=OptimizerRecord)
    assert isinstance(loaded, OptimizerRecord) and set(loaded) == set(record)
    for pid, state in record.items():
        assert loaded[pid]["time"] == state["time"]
        assert torch.equal(loaded[pid]["moment_1"], state["moment_1"])
    assert DefaultRecorder().load(DefaultRecorder().record({"current_iter": 4}, tmp_path / "s")) == {"current_iter": 4}


def test_a_truncated_record_is_rejected_naming_the_file(tmp_path):
    path = DefaultRecorder().record(Net(CPU), tmp_path / "net")
    path.write_bytes(path.read_bytes()[:-40])
    with pytest.raises(RecordError, match="net.mpk"):
        DefaultRecorder().load(path)


def test_a_flipped_byte_in_the_weights_is_caught_by_the_checksum(tmp_path):
    path = DefaultRecorder().record(Net(CPU), tmp_path / "net")
    raw = bytearray(path.read_bytes())
    raw[len(raw) // 2] ^= 0x01
    path.write_bytes(bytes(raw))
    with pytest.raises(RecordError, match="corrupt"):
        DefaultRecorder().load(path)


def test_a_record_of_another_recorder_is_rejected(tmp_path):
    DefaultRecorder().record(Net(CPU), tmp_path / "net")
    gz = tmp_path / "net.mpk.gz"
    gz.write_bytes(gzip.compress((tmp_path / "net.mpk").read_bytes()))
    with pytest.raises(RecordError, match="NamedMpkFileRecorder"):
        NamedMpkGzFileRecorder().load(gz)
    with pytest.raises(RecordError, match="no such record file"):
        DefaultRecorder().load(tmp_path / "absent")


def test_a_record_for_another_architecture_raises_and_changes_nothing(tmp_path):
    class Other(Module):
        def __init__(self, device):
            super().__init__()
            self.fc = nn.LinearConfig(4, 5).init(device)
    path = DefaultRecorder().record(Other(CPU), tmp_path / "other")
    with pytest.raises(RecordMismatchError):
        load_file(Net(CPU), path, DefaultRecorder())


# --------------------------------------------------------------------------------- config ----
def test_config_save_load_round_trips_nested_configs(tmp_path):
    from burn_torch.optim import GradientClippingConfig, WeightDecayConfig
    config = AdamConfig().with_beta_2(0.95).with_weight_decay(WeightDecayConfig(0.01)) \
        .with_grad_clipping(GradientClippingConfig.norm(1.0))
    config.save(tmp_path / "adam.json")
    assert AdamConfig.load(tmp_path / "adam.json") == config
    conv = nn.Conv2dConfig([1, 8], [3, 3]).with_stride((2, 2))
    conv.save(tmp_path / "conv.json")
    assert nn.Conv2dConfig.load(tmp_path / "conv.json") == conv


def test_config_load_rejects_unknown_fields(tmp_path):
    (tmp_path / "c.json").write_text('{"d_input": 2, "d_output": 3, "colour": "red"}')
    with pytest.raises(ValueError, match="colour"):
        nn.LinearConfig.load(tmp_path / "c.json")
    assert isinstance(nn.LinearConfig(2, 3), Config)


# --------------------------------------------------------------------------------- stores ----
@pytest.mark.parametrize("store", [BurnpackStore, SafetensorsStore])
def test_stores_round_trip_a_module(tmp_path, store):
    net = Net(CPU)
    path = store(tmp_path / "net.bpk").save_into(net)
    loaded, result = store(path).load_from(Net(CPU))
    assert_same_values(net, loaded)
    assert sorted(result.applied) == sorted(values(net)) and not (result.missing or result.unused or result.errors)


def test_burnpack_has_burns_header_alignment_and_keeps_param_ids(tmp_path):
    import cbor2
    net = Net(CPU)
    raw = BurnpackStore(tmp_path / "net.bpk").save_into(net).read_bytes()
    assert raw[:4] == b"NRUB" and int.from_bytes(raw[4:6], "little") == 1
    size = int.from_bytes(raw[6:10], "little")
    meta = cbor2.loads(raw[10:10 + size])
    assert all(d["data_offsets"][0] % 256 == 0 for d in meta["tensors"].values())
    assert meta["tensors"]["fc.weight"]["dtype"] == "F32" and meta["tensors"]["fc.weight"]["shape"] == [4, 6]
    loaded, _ = BurnpackStore(tmp_path / "net.bpk").load_from(Net(CPU))
    assert ids(loaded) == ids(net)


def test_corrupt_burnpack_and_safetensors_files_are_rejected(tmp_path):
    for store, name in ((BurnpackStore, "a.bpk"), (SafetensorsStore, "a.safetensors")):
        path = store(tmp_path / name).save_into(Net(CPU))
        path.write_bytes(b"\x00\x01" + path.read_bytes()[2:40])
        with pytest.raises(StoreError):
            store(path).load_from(Net(CPU))


def test_key_remapping_filtering_and_partial_loading(tmp_path):
    net = Net(CPU)
    path = SafetensorsStore(tmp_path / "n.safetensors").with_key_remapping(r"^fc\.", "encoder.").save_into(net)
    assert "encoder.weight" in SafetensorsStore(path).keys()
    fresh = Net(CPU)
    loaded, result = (SafetensorsStore(path).with_key_remapping(r"^encoder\.", "fc.")
                      .with_regex(r"^fc\.").allow_partial(True).load_from(fresh))
    assert sorted(result.applied) == ["fc.bias", "fc.weight"]
    assert "heads.0.weight" in result.skipped
    assert torch.equal(values(loaded)["fc.weight"], values(net)["fc.weight"])
    assert torch.equal(values(loaded)["heads.0.weight"], values(fresh)["heads.0.weight"])


def test_missing_tensors_fail_unless_partial_loading_is_allowed(tmp_path):
    net = Net(CPU)
    path = SafetensorsStore(tmp_path / "n.safetensors").with_regex(r"^heads").save_into(net)
    with pytest.raises(StoreError, match="allow_partial") as caught:
        SafetensorsStore(path).load_from(Net(CPU))
    assert "fc.weight" in caught.value.result.missing
    _, result = SafetensorsStore(path).allow_partial(True).load_from(Net(CPU))
    assert "fc.weight" in result.missing and "heads.0.weight" in result.applied


def test_a_shape_mismatch_is_an_error_and_nothing_is_loaded(tmp_path):
    torch_net = TorchNet()
    state = torch_net.state_dict()
    state["fc.weight"] = torch.zeros(6, 5)
    path = tmp_path / "bad.pt"
    torch.save(state, path)
    with pytest.raises(StoreError) as caught:
        PytorchStore(path).load_from(Net(CPU))
    assert any(e.startswith("fc.weight") for e in caught.value.result.errors)


def test_pytorch_store_reads_a_torch_state_dict_through_the_adapter(tmp_path):
    torch_net = TorchNet()
    path = tmp_path / "model.pt"
    torch.save({"state_dict": torch_net.state_dict(), "epoch": 3}, path)
    loaded, result = PytorchStore(path).with_top_level_key("state_dict").load_from(Net(CPU))
    assert not result.errors and not result.missing
    exported = to_torch_state_dict(loaded)
    for key, value in torch_net.state_dict().items():
        assert torch.equal(exported[key], value), key
    assert torch.equal(loaded.fc.weight.val().to_torch(), torch_net.fc.weight.detach().t())


def test_pytorch_store_never_unpickles_code(tmp_path):
    path = tmp_path / "evil.pt"
    torch.save({"weights": torch.ones(1), "code": print}, path)  # a callable needs full unpickling
    with pytest.raises(StoreError, match="never unpickles"):
        PytorchStore(path).load_from(Net(CPU))
    with pytest.raises(TypeError, match="read-only"):
        PytorchStore(path).save_into(Net(CPU))


@pytest.mark.parametrize("saved", ["model", "dict holding the model"])
def test_a_whole_pickled_model_is_answered_with_how_to_export_its_state_dict(tmp_path, saved):
    path = tmp_path / "whole.pt"
    model = TorchNet()
    torch.save(model if saved == "model" else {"model": model}, path)
    with pytest.raises(StoreError) as caught:
        PytorchStore(path).load_from(Net(CPU))
    message = str(caught.value)
    assert message.startswith(f"{path}: holds a pickled ")
    assert "torch.save(model.state_dict(), \"weights.pt\")" in message
    assert "weights_only" not in message and "\x1b" not in message
    exported = tmp_path / "weights.pt"
    torch.save(model.state_dict(), exported)                 # what the message says to do
    loaded, result = PytorchStore(exported).load_from(Net(CPU))
    assert result.is_success() and torch.equal(loaded.fc.bias.val().to_torch(), model.fc.bias.detach())


def test_a_damaged_torch_file_is_a_store_error_without_torchs_escapes(tmp_path):
    path = tmp_path / "cut.pt"
    torch.save(TorchNet().state_dict(), path)
    path.write_bytes(path.read_bytes()[:200])
    with pytest.raises(StoreError, match=r"cut\.pt: cannot read it as a weights-only torch file"):
        PytorchStore(path).load_from(Net(CPU))


def test_safetensors_adapters_write_for_pytorch_and_read_back(tmp_path):
    net = Net(CPU)
    path = SafetensorsStore(tmp_path / "for_torch.safetensors").with_to_adapter(BurnToPyTorchAdapter()).save_into(net)
    torch_net = TorchNet()
    import safetensors.torch
    torch_net.load_state_dict(safetensors.torch.load_file(path))
    assert torch.equal(torch_net.fc.weight.detach(), net.fc.weight.val().to_torch().t())
    back, _ = SafetensorsStore(path).with_from_adapter(PyTorchToBurnAdapter()).load_from(Net(CPU))
    assert_same_values(net, back)


def test_half_precision_adapter_stores_f16_and_loads_back_float32(tmp_path):
    import safetensors.torch
    net = Net(CPU)
    half = SafetensorsStore(tmp_path / "h.safetensors").with_to_adapter(HalfPrecisionAdapter()).save_into(net)
    assert all(t.dtype == torch.float16 for t in safetensors.torch.load_file(half).values())
    loaded, _ = SafetensorsStore(half).load_from(Net(CPU))
    assert_same_values(net, loaded, atol=1e-2)
