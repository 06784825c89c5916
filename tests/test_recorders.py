"""Burn's recorders, each in each precision setting: files and bytes round-trip a module (and
an optimizer's state), floats are stored in the settings' precision, and a missing, truncated
or damaged record is rejected with a RecordError naming the file, nothing loaded."""
from __future__ import annotations

import gzip
import json

import msgpack
import pytest
import torch

from burn_torch import Device, Distribution, Tensor, nn
from burn_torch.module import Module
from burn_torch.optim import AdamConfig, GradientsParams, OptimizerRecord
from burn_torch.record import (BinBytesRecorder, BinFileRecorder, BinGzFileRecorder,
                               DoublePrecisionSettings, FullPrecisionSettings,
                               HalfPrecisionSettings, JsonGzFileRecorder, NamedMpkBytesRecorder,
                               NamedMpkFileRecorder, NamedMpkGzFileRecorder,
                               PrettyJsonFileRecorder, RecordError, SensitiveCompactRecorder,
                               load_file, save_file)

CPU = Device.cpu()
FILE_RECORDERS = {NamedMpkFileRecorder: "mpk", NamedMpkGzFileRecorder: "mpk.gz",
                  BinFileRecorder: "bin", BinGzFileRecorder: "bin.gz",
                  JsonGzFileRecorder: "json.gz", PrettyJsonFileRecorder: "json"}
BYTES_RECORDERS = [BinBytesRecorder, NamedMpkBytesRecorder]
SETTINGS = {"full": FullPrecisionSettings(), "half": HalfPrecisionSettings(),
            "double": DoublePrecisionSettings()}


class Net(Module):
    def __init__(self, device) -> None:
        super().__init__()
        self.fc = nn.LinearConfig(3, 4).init(device)
        self.heads = [nn.LinearConfig(4, 2).init(device)]
        self.embed = nn.EmbeddingConfig(5, 2).init(device)


def values(module) -> dict[str, torch.Tensor]:
    return {name: p.val().to_torch().clone() for name, p in module.named_params()}


def ids(module) -> list:
    return [p.id for _, p in module.named_params()]


def expected(value: torch.Tensor, settings) -> torch.Tensor:
    """What a recorder with ``settings`` gives back for a float32 parameter."""
    stored = value.to(settings.float_dtype)
    return stored.double() if isinstance(settings, DoublePrecisionSettings) else stored.float()


@pytest.mark.parametrize("settings", SETTINGS.values(), ids=SETTINGS.keys())
@pytest.mark.parametrize("kind", FILE_RECORDERS, ids=lambda k: k.__name__)
def test_each_file_recorder_round_trips_a_module_in_its_settings_precision(tmp_path, kind, settings):
    recorder, net = kind(settings), Net(CPU)
    path = save_file(net, tmp_path / "net", recorder)
    assert path.name == f"net.{FILE_RECORDERS[kind]}"
    record = recorder.load(tmp_path / "net", record_type=None)
    for name, value in values(net).items():
        assert torch.equal(record[name].value.to_torch(), expected(value, settings)), name
    loaded = load_file(Net(CPU), tmp_path / "net", recorder)
    assert ids(loaded) == ids(net)
    for name, value in values(loaded).items():
        assert value.dtype == torch.float32
        assert torch.equal(value, expected(values(net)[name], settings).float()), name


@pytest.mark.parametrize("kind", FILE_RECORDERS, ids=lambda k: k.__name__)
def test_each_file_recorder_round_trips_an_optimizer_record(tmp_path, kind):
    device = CPU.autodiff()
    net, optim = Net(device).train(), AdamConfig().init()
    x = Tensor.random([2, 3], Distribution.default(), device)
    net = optim.step(0.1, net, GradientsParams.from_grads(net.fc.forward(x).sum().backward(), net))
    record = optim.to_record()
    loaded = kind().load(kind().record(record, tmp_path / "optim"), record_type=OptimizerRecord)
    assert set(loaded) == set(record)
    for pid, state in record.items():
        assert loaded[pid]["time"] == state["time"]
        assert torch.equal(loaded[pid]["moment_2"], state["moment_2"])


def test_burns_aliases_are_their_recorders():
    assert SensitiveCompactRecorder() == BinGzFileRecorder(HalfPrecisionSettings())


def test_half_precision_stores_f16_in_the_record():
    net = Net(CPU)
    recorder = NamedMpkBytesRecorder(HalfPrecisionSettings())
    top = msgpack.unpackb(recorder.record(net))
    weight = top["item"]["fc"]["weight"]["param"]
    assert weight["dtype"] == "F16" and len(weight["bytes"]) == 3 * 4 * 2
    assert top["metadata"]["float"] == "half::binary16::f16" and top["metadata"]["int"] == "i16"
    assert top["metadata"]["format"] == ("burn_core::record::memory::NamedMpkBytesRecorder<burn_core::"
                                         "record::settings::HalfPrecisionSettings>")


def test_json_recorders_write_burns_json_record(tmp_path):
    net = Net(CPU)
    pretty = PrettyJsonFileRecorder().record(net, tmp_path / "net")
    text = pretty.read_text()
    top = json.loads(text)
    assert text.startswith('{\n  "metadata": {') and top["metadata"]["float"] == "f32"
    weight = top["item"]["fc"]["weight"]["param"]
    assert weight["shape"] == [3, 4] and weight["dtype"] == "F32"
    assert bytes(weight["bytes"]) == net.fc.weight.val().to_torch().numpy().astype("<f4").tobytes()
    packed = json.loads(gzip.decompress(JsonGzFileRecorder().record(net, tmp_path / "net").read_bytes()))
    assert packed["item"] == top["item"]


@pytest.mark.parametrize("settings", SETTINGS.values(), ids=SETTINGS.keys())
@pytest.mark.parametrize("kind", BYTES_RECORDERS, ids=lambda k: k.__name__)
def test_each_bytes_recorder_round_trips_a_module(kind, settings):
    recorder, net = kind(settings), Net(CPU)
    data = recorder.record(net)
    assert isinstance(data, bytes)
    loaded = Net(CPU).load_record(recorder.load(data))
    assert ids(loaded) == ids(net)
    for name, value in values(loaded).items():
        assert torch.equal(value, expected(values(net)[name], settings).float()), name


@pytest.mark.parametrize("kind", FILE_RECORDERS, ids=lambda k: k.__name__)
def test_a_missing_or_truncated_record_file_is_rejected_naming_it(tmp_path, kind):
    with pytest.raises(RecordError, match=r"absent\.[a-z.]+: no such record file"):
        kind().load(tmp_path / "absent")
    path = kind().record(Net(CPU), tmp_path / "net")
    path.write_bytes(path.read_bytes()[:-30])
    with pytest.raises(RecordError, match=rf"net\.{FILE_RECORDERS[kind]}.*nothing was loaded"):
        kind().load(path)


@pytest.mark.parametrize("kind", [*FILE_RECORDERS, *BYTES_RECORDERS], ids=lambda k: k.__name__)
def test_no_single_damaged_byte_loads_wrong_values(kind):
    # every byte of a record flipped in turn: the load either fails with RecordError or gives
    # back exactly the saved values and ids (a flip in metadata nobody reads); never wrong ones
    class Tiny(Module):
        def __init__(self, device):
            super().__init__()
            self.fc = nn.LinearConfig(2, 1).init(device)

    recorder, net = kind(), Tiny(CPU)
    raw = recorder.to_bytes(net)
    rejected = 0
    for i in range(len(raw)):
        damaged = bytearray(raw)
        damaged[i] ^= 0x04
        try:
            record = recorder.from_bytes(bytes(damaged), "net")
        except RecordError as e:
            assert str(e).startswith("net: ")
            rejected += 1
            continue
        loaded = Tiny(CPU).load_record(record)
        assert ids(loaded) == ids(net) and all(torch.equal(values(loaded)[k], v) for k, v in values(net).items()), i
    assert rejected > len(raw) // 2


@pytest.mark.parametrize("kind", FILE_RECORDERS, ids=lambda k: k.__name__)
def test_a_record_of_another_recorder_is_rejected_naming_both(tmp_path, kind):
    other = BinFileRecorder if kind is not BinFileRecorder else NamedMpkFileRecorder
    path = other().record(Net(CPU), tmp_path / "net")
    path.rename(kind().file_path(tmp_path / "net"))
    with pytest.raises(RecordError, match=rf"net\.{FILE_RECORDERS[kind]}: (written by .*{other.__name__}"
                                          rf"|not a {kind.__name__} record)"):
        kind().load(tmp_path / "net")


def test_bytes_recorders_reject_damaged_bytes_and_other_values():
    data = BinBytesRecorder().record(Net(CPU))
    with pytest.raises(RecordError, match="the bytes"):
        BinBytesRecorder().load(data[:-10])
    with pytest.raises(RecordError, match="NamedMpkBytesRecorder"):
        NamedMpkBytesRecorder().load(data)
    with pytest.raises(TypeError, match="reads bytes"):
        BinBytesRecorder().load("net.bin")


@pytest.mark.parametrize("kind", FILE_RECORDERS, ids=lambda k: k.__name__)
def test_a_modules_save_file_and_load_file_take_a_recorder_as_burns_do(tmp_path, kind):
    net = Net(CPU)
    written = net.save_file(tmp_path / "model", kind())
    assert written == tmp_path / f"model.{FILE_RECORDERS[kind]}"
    loaded = Net(CPU.autodiff()).load_file(tmp_path / "model", kind(), CPU)
    assert ids(loaded) == ids(net) and all(torch.equal(values(loaded)[k], v) for k, v in values(net).items())
    assert loaded.fc.weight.val().is_require_grad()     # back on the autodiff module's device


def test_load_file_without_the_recorder_names_the_call_to_make(tmp_path):
    Net(CPU).save_file(tmp_path / "model", NamedMpkGzFileRecorder())
    with pytest.raises(ValueError, match=r"model\.mpk\.gz is a Burn record file.*"
                                         r"model\.load_file\('.*model', NamedMpkGzFileRecorder\(\), device\)"):
        Net(CPU).load_file(tmp_path / "model")
    with pytest.raises(ValueError, match=r"DefaultRecorder\(\)"):
        Net(CPU).load_file(Net(CPU).save_file(tmp_path / "other", NamedMpkFileRecorder()))


def test_save_file_rejects_what_is_not_a_file_recorder(tmp_path):
    with pytest.raises(TypeError, match="records to bytes"):
        Net(CPU).save_file(tmp_path / "m", BinBytesRecorder())
    with pytest.raises(TypeError, match="takes a file recorder"):
        Net(CPU).save_file(tmp_path / "m", 42)
    assert Net(CPU).save_file(tmp_path / "m", {"note": "hi"}).suffix == ".safetensors"  # metadata


def test_a_record_whose_parts_have_the_wrong_types_is_a_record_error():
    recorder, net = NamedMpkBytesRecorder(), Net(CPU)
    good = msgpack.unpackb(recorder.record(net))
    for param in ({"bytes": b"", "shape": [2 ** 62, 8], "dtype": "F32"},   # no such size
                  {"bytes": b"abc", "shape": [3, 4], "dtype": "F32"},       # 3 bytes for 12 floats
                  {"bytes": b"", "shape": [0], "dtype": "F99"}):            # no such dtype
        weight = {**good["item"]["fc"]["weight"], "param": param}
        damaged = {**good, "item": {**good["item"], "fc": {**good["item"]["fc"], "weight": weight}},
                   "burn_torch": {}}
        with pytest.raises(RecordError, match="^the bytes: malformed record"):
            recorder.load(msgpack.packb(damaged))
    # a checksum block of the wrong shape is no checksum (as in a file Rust Burn wrote)
    unchecked = recorder.load(msgpack.packb({**good, "burn_torch": [1, 2]}))
    assert ids(Net(CPU).load_record(unchecked)) == ids(net)
