"""Recorders (Burn's ``burn::record``): module, optimizer and scheduler records in files or
bytes, in Burn's encodings and precision settings.

Every recorder writes Burn's ``BurnRecord``: ``{"metadata": {"float", "int", "format",
"version", "settings"}, "item": <record>}`` (read from burn-core 0.21's ``record/recorder.rs``),
where a module record is a map of field names (a list for numbered children) down to Burn's
``ParamSerde`` parameters (see ``.serde``), floats and ints stored in the precision of the
recorder's settings. burn_torch adds a top-level ``"burn_torch"`` map holding a SHA-256 of the
item, which Burn ignores and which makes a damaged file fail to load instead of loading wrong
values.

File recorders (``record(record, path)`` writes ``path`` with the recorder's extension,
atomically and durably; ``load(path, device)``):

| recorder | extension | encoding (`formats`) |
|---|---|---|
| `NamedMpkFileRecorder` | `.mpk` | MessagePack with field names (Burn's default) |
| `NamedMpkGzFileRecorder` | `.mpk.gz` | the same, gzip-compressed |
| `BinFileRecorder` | `.bin` | compact binary (see below) |
| `BinGzFileRecorder` | `.bin.gz` | the same, gzip-compressed |
| `JsonGzFileRecorder` | `.json.gz` | JSON, gzip-compressed |
| `PrettyJsonFileRecorder` | `.json` | indented JSON (for reading by eye) |

Bytes recorders (``record(record) -> bytes``; ``load(data, device)``): ``BinBytesRecorder``,
``NamedMpkBytesRecorder``. Burn's aliases are functions returning a recorder:
[`DefaultRecorder`][burn_torch.record.recorder.DefaultRecorder],
[`CompactRecorder`][burn_torch.record.recorder.CompactRecorder],
[`SensitiveCompactRecorder`][burn_torch.record.recorder.SensitiveCompactRecorder],
[`NoStdTrainingRecorder`][burn_torch.record.recorder.NoStdTrainingRecorder],
[`NoStdInferenceRecorder`][burn_torch.record.recorder.NoStdInferenceRecorder],
[`DebugRecordSettings`][burn_torch.record.recorder.DebugRecordSettings].

Differs from Burn:

* The ``Bin*`` recorders write MessagePack, not bincode: bincode has no field names, so
  reading it needs the Rust record structs; a ``.bin`` file is not exchangeable with Rust
  Burn (MessagePack and JSON module records are).
* Optimizer records are ``{ParamId text: {state name: tensor or number}}`` with burn_torch's
  state names, and scheduler records ``{field: number}``; Burn writes each optimizer's and
  scheduler's own record structs. A Rust program can read module records written here, not
  optimizer or scheduler ones.

Loading raises [`RecordError`][burn_torch.record.recorder.RecordError] naming the file (or "the
bytes") when it is missing, truncated, damaged (the checksum) or written by another recorder;
nothing is returned then, so nothing is loaded partially.
"""
from __future__ import annotations

import hashlib
import os
from pathlib import Path
from typing import Any, Mapping

import torch

from ..atomic_file import atomic_write_bytes
from ..device import Device
from ..module import Module, ModuleRecord, ParamId, ParamRecord, into_record
from ..optim import OptimizerRecord
from ..tensor import Tensor
from . import serde
from .formats import JSON, MSGPACK, PRETTY_JSON, Format, FormatError, Gzip
from .settings import (DoublePrecisionSettings, FullPrecisionSettings, HalfPrecisionSettings,
                       PrecisionSettings)

BURN_VERSION = "0.21.0"
"""The Burn version whose layout these files follow (written in the metadata, as Burn does)."""


class RecordError(ValueError):
    """A record that cannot be loaded (missing, corrupt, truncated, or another format)."""


class Recorder:
    """Encodes records in one format and precision (Burn's ``Recorder``): the shared part of
    [`FileRecorder`][burn_torch.record.recorder.FileRecorder] and
    [`BytesRecorder`][burn_torch.record.recorder.BytesRecorder]."""

    format_name = "Recorder"
    rust_module = "file"       # burn_core::record::<module> in the metadata's format name
    rust_params = ""           # extra type parameters after the settings (bytes recorders)
    encoding: Format = MSGPACK

    def __init__(self, settings: PrecisionSettings | None = None) -> None:
        if settings is None:
            settings = FullPrecisionSettings()
        if not isinstance(settings, PrecisionSettings):
            raise TypeError(f"settings must be a PrecisionSettings, got {type(settings).__name__}")
        self.settings = settings

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.settings!r})"

    def __eq__(self, other: object) -> bool:
        return type(self) is type(other) and self.settings == other.settings

    def __hash__(self) -> int:
        return hash((type(self), self.settings))

    def to_bytes(self, record: Any) -> bytes:
        """``record`` (a Module, ModuleRecord, OptimizerRecord or a mapping of numbers and
        tensors) in this recorder's encoding."""
        item = self._encode(record)
        return self.encoding.dump({"metadata": self.metadata(), "item": item,
                                   "burn_torch": {"sha256": _digest(item)}})

    def from_bytes(self, raw: bytes, where: str, device: Device | None = None,
                   record_type: type | None = None):
        """The record in ``raw`` (see
        [`FileRecorder.load`][burn_torch.record.recorder.FileRecorder.load]); RecordError naming
        ``where`` when ``raw`` is not a complete, undamaged record of this recorder."""
        try:
            top = self.encoding.parse(raw)
        except FormatError as e:
            raise RecordError(f"{where}: not a {self.format_name} record ({self.encoding.name}), "
                              f"or corrupt or truncated ({e}); nothing was loaded") from None
        if not (isinstance(top, dict) and "item" in top and isinstance(top.get("metadata"), dict)):
            raise RecordError(f"{where}: not a Burn record (no metadata and item); nothing was loaded")
        self._check_metadata(where, top["metadata"])
        extra = top.get("burn_torch")
        digest = extra.get("sha256") if isinstance(extra, dict) else None
        try:
            intact = digest is None or digest == _digest(top["item"])
            record = self._decode(top["item"], device or Device.cpu(), record_type) if intact else None
        except (ValueError, TypeError, KeyError, OverflowError) as e:
            raise RecordError(f"{where}: malformed record ({e}); nothing was loaded") from None
        if not intact:
            raise RecordError(f"{where}: checksum mismatch, the record is corrupt; nothing was loaded")
        return record

    def metadata(self) -> dict[str, str]:
        s = self.settings
        return {"float": s.float_name, "int": s.int_name,
                "format": f"burn_core::record::{self.rust_module}::{self.format_name}<burn_core::"
                          f"record::settings::{type(s).__name__}{self.rust_params}>",
                "version": BURN_VERSION, "settings": type(s).__name__}

    def _check_metadata(self, where: str, meta: dict) -> None:
        fmt = str(meta.get("format", ""))
        if f"::{self.format_name}<" not in fmt:
            raise RecordError(f"{where}: written by {fmt or 'an unknown recorder'}, not "
                              f"{self.format_name}; load it with the recorder that saved it")

    # ------------------------------------------------------------- encoding ----
    def _encode_tensor(self, t: torch.Tensor) -> dict:
        if t.is_floating_point():
            t = t.to(self.settings.float_dtype)
        elif t.dtype != torch.bool:
            t = t.to(self.settings.int_dtype)
        return serde.encode_tensor(t)

    def _encode_value(self, value):
        if isinstance(value, Tensor):
            value = value.to_torch()
        if isinstance(value, torch.Tensor):
            return self._encode_tensor(value)
        if isinstance(value, Mapping):
            return {str(k): self._encode_value(v) for k, v in value.items()}
        if isinstance(value, (list, tuple)):
            return [self._encode_value(v) for v in value]
        if value is None or isinstance(value, (bool, int, float, str)):
            return value
        raise TypeError(f"cannot record a {type(value).__name__}")

    def _encode(self, record: Any):
        if isinstance(record, Module):
            record = into_record(record)
        if isinstance(record, ModuleRecord):
            tree: dict = {}
            for name, rec in record.items():
                node = tree
                parts = name.split(".")
                for part in parts[:-1]:
                    node = node.setdefault(part, {})
                pid = rec.id if rec.id is not None else ParamId.new()
                node[parts[-1]] = {"id": serde.encode_param_id(pid),
                                   "param": self._encode_tensor(rec.value.to_torch())}
            return _lists(tree)
        if isinstance(record, OptimizerRecord):
            return {serde.encode_param_id(pid): self._encode_value(state) for pid, state in record.items()}
        if isinstance(record, Mapping):
            return self._encode_value(record)
        raise TypeError(f"cannot record a {type(record).__name__} (a Module, ModuleRecord, "
                        f"OptimizerRecord or mapping)")

    def _decode_tensor(self, obj: dict) -> torch.Tensor:
        t = serde.decode_tensor(obj)
        if t.is_floating_point():
            wide = torch.float64 if isinstance(self.settings, DoublePrecisionSettings) else torch.float32
            return t.to(wide)
        return t if t.dtype == torch.bool else t.to(torch.int64)

    def _decode_value(self, obj):
        if serde.is_tensor(obj):
            return self._decode_tensor(obj)
        if isinstance(obj, dict):
            return {k: self._decode_value(v) for k, v in obj.items()}
        if isinstance(obj, list):
            return [self._decode_value(v) for v in obj]
        return obj

    def _decode(self, item, device: Device, record_type: type | None):
        if record_type is OptimizerRecord:
            if not isinstance(item, dict):
                raise ValueError("an optimizer record is a map")
            return OptimizerRecord({serde.decode_param_id(k): self._decode_value(v) for k, v in item.items()})
        params = dict(_params(item, ""))
        if params or record_type is ModuleRecord:
            return ModuleRecord({
                name: ParamRecord(serde.decode_param_id(p["id"]),
                                  Tensor.from_data(self._decode_tensor(p["param"]), device))
                for name, p in params.items()})
        return self._decode_value(item)


def _digest(item) -> str:
    """The SHA-256 of ``item``'s MessagePack encoding: the same for every recorder's format."""
    return hashlib.sha256(MSGPACK.dump(item)).hexdigest()


def _lists(tree: dict):
    """``tree`` with every map keyed ``"0".."n-1"`` turned into a list (Burn's ``Vec`` fields)."""
    out = {k: _lists(v) if isinstance(v, dict) and not serde.is_param(v) else v for k, v in tree.items()}
    if out and list(out) == [str(i) for i in range(len(out))]:
        return list(out.values())
    return out


def _params(node, path: str):
    """``(dotted path, ParamSerde)`` for every parameter under ``node``."""
    if serde.is_param(node):
        yield path, node
        return
    items = node.items() if isinstance(node, dict) else enumerate(node) if isinstance(node, list) else ()
    for key, child in items:
        yield from _params(child, f"{path}.{key}" if path else str(key))


class FileRecorder(Recorder):
    """A recorder of files (Burn's ``FileRecorder``): ``record(record, path)``,
    ``load(path, device)``."""

    extension = ""

    def file_path(self, path: "str | os.PathLike") -> Path:
        """``path`` with this recorder's extension (Burn's ``set_extension``: an extension
        ``path`` already has is replaced, so ``model.mpk`` becomes ``model.json``; a path that
        already ends with the full extension, ``model.mpk.gz``, is kept)."""
        path = Path(path)
        ext = f".{self.extension}"
        if path.name.endswith(ext):
            return path
        stem = path.name.rsplit(".", 1)[0] if "." in path.name.lstrip(".") else path.name
        return path.with_name(stem + ext)

    def record(self, record: Any, path: "str | os.PathLike") -> Path:
        """Writes ``record`` (a Module, ModuleRecord, OptimizerRecord or a mapping of numbers
        and tensors) atomically and durably; returns the file written (``path`` with the
        extension). Raises TypeError for a value no record can hold."""
        data = self.to_bytes(record)
        target = self.file_path(path)
        target.parent.mkdir(parents=True, exist_ok=True)
        atomic_write_bytes(target, data)
        return target

    def load(self, path: "str | os.PathLike", device: Device | None = None,
             record_type: type | None = None):
        """Reads a record: a ModuleRecord when the file holds parameters, an OptimizerRecord
        when ``record_type`` is OptimizerRecord, else a dict. Tensors go to ``device`` (CPU by
        default), floats as float32 (float64 with DoublePrecisionSettings), ints as int64.
        Raises RecordError naming the file when it is missing or not a complete, undamaged
        record of this recorder."""
        target = self.file_path(path)
        try:
            raw = target.read_bytes()
        except FileNotFoundError:
            raise RecordError(f"{target}: no such record file") from None
        except OSError as e:
            raise RecordError(f"{target}: cannot read the record ({e})") from None
        return self.from_bytes(raw, str(target), device, record_type)


class BytesRecorder(Recorder):
    """A recorder of in-memory bytes (Burn's ``BytesRecorder``): ``record(record) -> bytes``,
    ``load(data, device)``."""

    rust_module = "memory"

    def record(self, record: Any) -> bytes:
        """``record`` encoded (see
        [`Recorder.to_bytes`][burn_torch.record.recorder.Recorder.to_bytes])."""
        return self.to_bytes(record)

    def load(self, data: bytes, device: Device | None = None, record_type: type | None = None):
        """The record in ``data`` (see
        [`FileRecorder.load`][burn_torch.record.recorder.FileRecorder.load]); RecordError when
        ``data`` is not a complete, undamaged record of this recorder."""
        if not isinstance(data, (bytes, bytearray, memoryview)):
            raise TypeError(f"{type(self).__name__}.load reads bytes, got {type(data).__name__}")
        return self.from_bytes(bytes(data), "the bytes", device, record_type)


class NamedMpkFileRecorder(FileRecorder):
    """MessagePack with field names (``.mpk``), Burn's default file format."""

    format_name, extension = "NamedMpkFileRecorder", "mpk"


class NamedMpkGzFileRecorder(FileRecorder):
    """As [`NamedMpkFileRecorder`][burn_torch.record.recorder.NamedMpkFileRecorder], gzip-compressed
    (``.mpk.gz``)."""

    format_name, extension, encoding = "NamedMpkGzFileRecorder", "mpk.gz", Gzip(MSGPACK)


class BinFileRecorder(FileRecorder):
    """Compact binary (``.bin``; MessagePack here, see the module docstring)."""

    format_name, extension = "BinFileRecorder", "bin"


class BinGzFileRecorder(FileRecorder):
    """As [`BinFileRecorder`][burn_torch.record.recorder.BinFileRecorder], gzip-compressed
    (``.bin.gz``)."""

    format_name, extension, encoding = "BinGzFileRecorder", "bin.gz", Gzip(MSGPACK)


class JsonGzFileRecorder(FileRecorder):
    """JSON, gzip-compressed (``.json.gz``); tensor bytes as arrays of numbers."""

    format_name, extension, encoding = "JsonGzFileRecorder", "json.gz", Gzip(JSON)


class PrettyJsonFileRecorder(FileRecorder):
    """Indented JSON (``.json``), for reading a record by eye; the largest format."""

    format_name, extension, encoding = "PrettyJsonFileRecorder", "json", PRETTY_JSON


class BinBytesRecorder(BytesRecorder):
    """Compact binary bytes (MessagePack here, see the module docstring)."""

    format_name, rust_params = "BinBytesRecorder", ", alloc::vec::Vec<u8>"


class NamedMpkBytesRecorder(BytesRecorder):
    """MessagePack bytes with field names."""

    format_name = "NamedMpkBytesRecorder"


def DefaultRecorder() -> NamedMpkFileRecorder:
    """Burn's ``DefaultRecorder``: named MessagePack, full precision."""
    return NamedMpkFileRecorder(FullPrecisionSettings())


def CompactRecorder() -> NamedMpkFileRecorder:
    """Burn's ``CompactRecorder``: named MessagePack, half precision (f16 floats)."""
    return NamedMpkFileRecorder(HalfPrecisionSettings())


def SensitiveCompactRecorder() -> BinGzFileRecorder:
    """Burn's ``SensitiveCompactRecorder``: compressed binary, half precision."""
    return BinGzFileRecorder(HalfPrecisionSettings())


def NoStdTrainingRecorder() -> BinFileRecorder:
    """Burn's ``NoStdTrainingRecorder``: binary files, full precision."""
    return BinFileRecorder(FullPrecisionSettings())


def NoStdInferenceRecorder() -> BinBytesRecorder:
    """Burn's ``NoStdInferenceRecorder``: binary bytes, full precision."""
    return BinBytesRecorder(FullPrecisionSettings())


def DebugRecordSettings() -> PrettyJsonFileRecorder:
    """Burn's ``DebugRecordSettings``: indented JSON, full precision."""
    return PrettyJsonFileRecorder(FullPrecisionSettings())


def save_file(module: Module, path: "str | os.PathLike", recorder: FileRecorder) -> Path:
    """Burn's ``module.save_file(path, &recorder)``: returns the file written."""
    return recorder.record(module, path)


def load_file(module: Module, path: "str | os.PathLike", recorder: FileRecorder,
              device: Device | None = None, strict: bool = True) -> Module:
    """Burn's ``module.load_file(path, &recorder, &device)``: ``module`` holding the file's
    values (converted to its parameters' dtypes and devices). Raises RecordError for a bad
    file, RecordMismatchError when it does not fit the module."""
    return module.load_record(recorder.load(path, device, ModuleRecord), strict=strict)
