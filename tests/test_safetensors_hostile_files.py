"""Module files under attack: every malformed file (truncated, byte-flipped, crafted header) is
rejected with a ValueError whose message names the file, and the module is left unchanged.

The generated families print nothing; their sizes are asserted (see ``*_COUNT`` below) so the
closing figures stay true: truncations at every offset of a real file, high-bit flips of every
header byte, and the crafted headers listed in ``CRAFTED``.
"""
from __future__ import annotations

import json
import struct

import pytest
import torch

from burn_torch import Device, Tensor, nn
from burn_torch.module import Module, Param, ParamId, read_record
from burn_torch.module.record import RecordMismatchError

CPU = Device.cpu()


class Small(Module):
    def __init__(self) -> None:
        super().__init__()
        self.fc = nn.LinearConfig(2, 3).init(CPU)
        self.steps = Param(Tensor.from_ints([1, 2], CPU))


def values(module: Module) -> dict:
    return {name: (p.id, p.val().to_torch().clone()) for name, p in module.named_params()}


def unchanged(module: Module, before: dict) -> bool:
    after = values(module)
    return after.keys() == before.keys() and all(
        after[n][0] == before[n][0] and torch.equal(after[n][1], before[n][1]) for n in before)


@pytest.fixture(scope="module")
def good_bytes(tmp_path_factory) -> bytes:
    return Small().save_file(tmp_path_factory.mktemp("good") / "good").read_bytes()


def assert_rejected(path, module: Module) -> None:
    """``path`` is rejected by the reader and by load_file, naming the file; ``module`` unchanged."""
    before = values(module)
    with pytest.raises(ValueError) as reader_error:
        read_record(path)
    assert str(path) in str(reader_error.value)
    with pytest.raises(ValueError) as load_error:
        module.load_file(path)
    assert str(path) in str(load_error.value)
    assert unchanged(module, before)


def header_of(raw: bytes) -> tuple[dict, bytes]:
    (n,) = struct.unpack("<Q", raw[:8])
    return json.loads(raw[8:8 + n]), raw[8 + n:]


def file_with(header, data: bytes) -> bytes:
    text = header if isinstance(header, bytes) else json.dumps(header).encode()
    return struct.pack("<Q", len(text)) + text + data


# --------------------------------------------------------------------------- truncations ----
def test_the_good_file_loads(tmp_path, good_bytes):
    path = tmp_path / "m.safetensors"
    path.write_bytes(good_bytes)
    assert len(Small().load_file(path).named_params()) == 3


def test_a_file_truncated_at_any_offset_is_rejected_naming_the_file(tmp_path, good_bytes):
    module = Small()
    path = tmp_path / "truncated.safetensors"
    tried = 0
    for end in range(len(good_bytes)):
        path.write_bytes(good_bytes[:end])
        assert_rejected(path, module)
        tried += 1
    assert tried == len(good_bytes) > 200


def test_a_file_with_trailing_bytes_is_rejected(tmp_path, good_bytes):
    path = tmp_path / "trailing.safetensors"
    for extra in (b"\0", b"\0" * 8, b"junk" * 5):
        path.write_bytes(good_bytes + extra)
        assert_rejected(path, Small())


# ---------------------------------------------------------------------------- byte flips ----
def test_flipping_the_high_bit_of_any_header_byte_is_rejected(tmp_path, good_bytes):
    """Each such flip makes the length absurd or the header text invalid UTF-8."""
    (n,) = struct.unpack("<Q", good_bytes[:8])
    module = Small()
    path = tmp_path / "flipped.safetensors"
    for i in range(8 + n):
        flipped = bytearray(good_bytes)
        flipped[i] ^= 0x80
        path.write_bytes(bytes(flipped))
        assert_rejected(path, module)
    assert 8 + n > 200


def test_any_low_bit_flip_is_rejected_or_loads_consistently(tmp_path, good_bytes):
    """A flip of bit 0 may leave a valid file (a digit of a value, a letter of a name): then the
    load either succeeds with the file's shapes or raises ValueError; never another error."""
    module = Small()
    before = values(module)
    path = tmp_path / "lowbit.safetensors"
    outcomes = {"loaded": 0, "rejected": 0}
    for i in range(len(good_bytes)):
        flipped = bytearray(good_bytes)
        flipped[i] ^= 0x01
        path.write_bytes(bytes(flipped))
        try:
            loaded = module.load_file(path)
        except ValueError as e:
            assert str(path) in str(e)
            outcomes["rejected"] += 1
        else:
            assert [p.val().dims() for p in loaded.params()] == [p.val().dims() for p in module.params()]
            outcomes["loaded"] += 1
        assert unchanged(module, before)
    assert outcomes["rejected"] > 100 and outcomes["loaded"] > 0


# ------------------------------------------------------------------------ crafted headers ----
F32x2 = {"dtype": "F32", "shape": [2], "data_offsets": [0, 8]}
META_OK = {"format": "burn_torch", "version": "1"}


def _ids(**names: str) -> dict:
    return dict(META_OK, param_ids=json.dumps(names))


A, B = str(ParamId.new()), str(ParamId.new())

CRAFTED = {
    "overlapping offsets": file_with({"w": F32x2, "b": F32x2}, b"\0" * 8),
    "gap before the data": file_with({"w": {"dtype": "F32", "shape": [1], "data_offsets": [4, 8]}}, b"\0" * 8),
    "reversed offsets": file_with({"w": {"dtype": "F32", "shape": [0], "data_offsets": [8, 0]}}, b"\0" * 8),
    "offsets past the data": file_with({"w": {"dtype": "F32", "shape": [4], "data_offsets": [0, 16]}}, b"\0" * 8),
    "size not matching the shape": file_with({"w": {"dtype": "F32", "shape": [3], "data_offsets": [0, 8]}}, b"\0" * 8),
    "duplicate keys, other offsets": file_with(
        b'{"w":{"dtype":"F32","shape":[2],"data_offsets":[0,8]},'
        b'"w":{"dtype":"F32","shape":[2],"data_offsets":[8,16]}}', b"\0" * 16),
    "duplicate keys, same offsets": file_with(
        b'{"w":{"dtype":"F32","shape":[2],"data_offsets":[0,8]},'
        b'"w":{"dtype":"F32","shape":[2],"data_offsets":[0,8]}}', b"\0" * 8),
    "duplicate metadata keys": file_with(
        b'{"__metadata__":{"format":"burn_torch","format":"x"},'
        b'"w":{"dtype":"F32","shape":[2],"data_offsets":[0,8]}}', b"\0" * 8),
    'shape "32"': file_with({"w": {"dtype": "F32", "shape": "32", "data_offsets": [0, 24]}}, b"\0" * 24),
    "float shape": file_with({"w": {"dtype": "F32", "shape": [2.5], "data_offsets": [0, 8]}}, b"\0" * 8),
    "negative shape": file_with({"w": {"dtype": "F32", "shape": [-2], "data_offsets": [0, 8]}}, b"\0" * 8),
    "huge shape": file_with({"w": {"dtype": "F32", "shape": [2 ** 62, 8], "data_offsets": [0, 8]}}, b"\0" * 8),
    "string offsets": file_with({"w": {"dtype": "F32", "shape": [2], "data_offsets": ["0", "8"]}}, b"\0" * 8),
    "unknown dtype": file_with({"w": {"dtype": "Q99", "shape": [2], "data_offsets": [0, 8]}}, b"\0" * 8),
    "dtype burn_torch lacks": file_with({"w": {"dtype": "U16", "shape": [4], "data_offsets": [0, 8]}}, b"\0" * 8),
    "missing dtype": file_with({"w": {"shape": [2], "data_offsets": [0, 8]}}, b"\0" * 8),
    "entry not an object": file_with({"w": [1, 2]}, b""),
    "header not an object": file_with([1, 2, 3], b""),
    "header not JSON": file_with(b"{not json", b""),
    "header not UTF-8": file_with(b'{"\xff":1}', b""),
    "header deeply nested": file_with(b"[" * 100_000 + b"]" * 100_000, b""),
    "header NaN": file_with(b'{"w":{"dtype":"F32","shape":[NaN],"data_offsets":[0,8]}}', b"\0" * 8),
    "header length beyond the file": struct.pack("<Q", 10 ** 9) + b"{}",
    "header length zero": struct.pack("<Q", 0) + b"{}",
    "empty file": b"",
    "metadata value not a string": file_with({"__metadata__": {"format": 1}, "w": F32x2}, b"\0" * 8),
    "metadata not an object": file_with({"__metadata__": "burn_torch", "w": F32x2}, b"\0" * 8),
    "unsupported version": file_with({"__metadata__": {"format": "burn_torch", "version": "99"}, "w": F32x2}, b"\0" * 8),
    "duplicate ParamIds": file_with({"__metadata__": _ids(w=A, b=A), "w": F32x2,
                                     "b": {"dtype": "F32", "shape": [2], "data_offsets": [8, 16]}}, b"\0" * 16),
    "param_ids not JSON": file_with({"__metadata__": dict(META_OK, param_ids="{w:"), "w": F32x2}, b"\0" * 8),
    "param_ids a list": file_with({"__metadata__": dict(META_OK, param_ids="[1]"), "w": F32x2}, b"\0" * 8),
    "param_ids value a number": file_with({"__metadata__": dict(META_OK, param_ids='{"w": 12}'), "w": F32x2}, b"\0" * 8),
    "param_ids value not hex": file_with({"__metadata__": _ids(w="zz"), "w": F32x2}, b"\0" * 8),
    "param_ids value too large": file_with({"__metadata__": _ids(w="1" + "0" * 16), "w": F32x2}, b"\0" * 8),
    "param_ids naming no tensor": file_with({"__metadata__": _ids(w=A, ghost=B), "w": F32x2}, b"\0" * 8),
    "param_ids duplicate names": file_with({"__metadata__": dict(
        META_OK, param_ids='{"w": "%s", "w": "%s"}' % (A, B)), "w": F32x2}, b"\0" * 8),
}


@pytest.mark.parametrize("case", sorted(CRAFTED))
def test_a_crafted_header_is_rejected_naming_the_file(tmp_path, case):
    path = tmp_path / "crafted.safetensors"
    path.write_bytes(CRAFTED[case])
    assert_rejected(path, Small())


def test_duplicate_param_ids_are_named_in_the_message(tmp_path):
    path = tmp_path / "dup.safetensors"
    path.write_bytes(CRAFTED["duplicate ParamIds"])
    with pytest.raises(ValueError, match=f"ParamId {A} to both 'w' and 'b'"):
        read_record(path)


def test_a_file_that_does_not_fit_names_the_file(tmp_path):
    path = Small().save_file(tmp_path / "small")
    other = nn.LinearConfig(2, 5).init(CPU)
    with pytest.raises(RecordMismatchError, match="small.safetensors does not fit"):
        other.load_file(path)


def test_the_crafted_family_is_as_large_as_reported():
    assert len(CRAFTED) == 36


def test_a_module_with_a_param_at_two_paths_is_not_saved(tmp_path):
    from burn_torch.module import TiedParamError

    class Tied(Module):
        def __init__(self) -> None:
            super().__init__()
            self.fc = nn.LinearConfig(2, 3).init(CPU)
            self.again = self.fc.weight

    with pytest.raises(TiedParamError, match="save_file: .*fc.weight, again"):
        Tied().save_file(tmp_path / "tied")
    assert list(tmp_path.iterdir()) == []


def test_metadata_must_map_strings_to_strings(tmp_path):
    from burn_torch.module import write_safetensors
    with pytest.raises(TypeError, match="metadata maps str to str"):
        write_safetensors(tmp_path / "m.safetensors", {"w": torch.zeros(2)}, {"epoch": 3})
    assert list(tmp_path.iterdir()) == []
