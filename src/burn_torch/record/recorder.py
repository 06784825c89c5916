"""File recorders (Burn's ``burn::record``): module, optimizer and scheduler records in
MessagePack files through the ``msgpack`` library.

File layout (as Burn 0.21's ``NamedMpkFileRecorder`` writes it, read from burn-core's
``record/recorder.rs`` and ``record/file.rs``): a MessagePack map ``{"metadata": {"float",
"int", "format", "version", "settings"}, "item": <record>}`` where a module record is a map of
field names (a list for numbered children) down to Burn's ``ParamSerde`` parameters (see
:mod:`.serde`). burn_torch adds a top-level ``"burn_torch"`` map holding a SHA-256 of the item,
which Burn ignores and which makes a corrupt file fail to load instead of loading wrong values.

Differs from Burn: optimizer records are ``{ParamId text: {state name: tensor or number}}``
with burn_torch's state names, and scheduler records ``{field: number}``; Burn writes each
optimizer's and scheduler's own record structs. A Rust program can read module records
written here, not optimizer or scheduler ones.

Every file is written atomically; loading raises :class:`RecordError` naming the file when it
is missing, truncated, corrupt or of another recorder kind.
"""
from __future__ import annotations

import gzip
import hashlib
import os
from pathlib import Path
from typing import Any, Mapping

import msgpack
import torch

from ..atomic_file import atomic_write_bytes
from ..device import Device
from ..module import Module, ModuleRecord, ParamId, ParamRecord, into_record
from ..optim import OptimizerRecord
from ..tensor import Tensor
from . import serde
from .settings import (DoublePrecisionSettings, FullPrecisionSettings, HalfPrecisionSettings,
                       PrecisionSettings)

#: The Burn version whose layout these files follow (written in the metadata, as Burn does).
BURN_VERSION = "0.21.0"


class RecordError(ValueError):
    """A record file that cannot be loaded (missing, corrupt, truncated, or another format)."""


class Recorder:
    """Saves and loads records in one format and precision (Burn's ``Recorder``)."""

    format_name = "Recorder"
    extension = ""

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

    # ---------------------------------------------------------------- files ----
    def file_path(self, path: "str | os.PathLike") -> Path:
        """``path`` with this recorder's extension (replacing the last one, as Burn does)."""
        path = Path(path)
        ext = f".{self.extension}"
        if path.name.endswith(ext):
            return path
        return path.with_name(path.name.rsplit(".", 1)[0] + ext if "." in path.name else path.name + ext)

    def record(self, record: Any, path: "str | os.PathLike") -> Path:
        """Writes ``record`` (a Module, ModuleRecord, OptimizerRecord or a mapping of numbers
        and tensors) atomically; returns the file written (``path`` with the extension)."""
        item = self._encode(record)
        packed_item = msgpack.packb(item, use_bin_type=True)
        target = self.file_path(path)
        target.parent.mkdir(parents=True, exist_ok=True)
        packer = msgpack.Packer(use_bin_type=True)
        raw = b"".join([
            packer.pack_map_header(3), packer.pack("metadata"), packer.pack(self.metadata()),
            packer.pack("item"), packed_item,
            packer.pack("burn_torch"), packer.pack({"sha256": hashlib.sha256(packed_item).hexdigest()}),
        ])
        atomic_write_bytes(target, self._compress(raw))
        return target

    def load(self, path: "str | os.PathLike", device: Device | None = None,
             record_type: type | None = None):
        """Reads a record: a ModuleRecord when the file holds parameters, an OptimizerRecord
        when ``record_type`` is OptimizerRecord, else a dict. Tensors go to ``device`` (CPU by
        default), floats as float32 (float64 with DoublePrecisionSettings), ints as int64.
        Raises RecordError when the file is missing or not a valid record of this recorder."""
        target = self.file_path(path)
        try:
            raw = self._decompress(target.read_bytes())
        except FileNotFoundError:
            raise RecordError(f"{target}: no such record file") from None
        except (OSError, EOFError, gzip.BadGzipFile) as e:
            raise RecordError(f"{target}: cannot read the record ({e})") from None
        try:
            top = msgpack.unpackb(raw, raw=False, strict_map_key=False)
        except (ValueError, msgpack.ExtraData, msgpack.FormatError, msgpack.StackError) as e:
            raise RecordError(f"{target}: not a {self.format_name} record, or corrupt or "
                              f"truncated ({type(e).__name__}: {e}); nothing was loaded") from None
        if not (isinstance(top, dict) and "item" in top and isinstance(top.get("metadata"), dict)):
            raise RecordError(f"{target}: not a Burn record (no metadata and item)")
        self._check_metadata(target, top["metadata"])
        digest = (top.get("burn_torch") or {}).get("sha256")
        if digest is not None and digest != hashlib.sha256(msgpack.packb(top["item"], use_bin_type=True)).hexdigest():
            raise RecordError(f"{target}: checksum mismatch, the record is corrupt; nothing was loaded")
        try:
            return self._decode(top["item"], device or Device.cpu(), record_type)
        except (ValueError, TypeError, KeyError) as e:
            raise RecordError(f"{target}: malformed record ({e}); nothing was loaded") from None

    def metadata(self) -> dict[str, str]:
        s = self.settings
        return {"float": s.float_name, "int": s.int_name,
                "format": f"burn_core::record::file::{self.format_name}<burn_core::record::"
                          f"settings::{type(s).__name__}>",
                "version": BURN_VERSION, "settings": type(s).__name__}

    def _check_metadata(self, target: Path, meta: dict) -> None:
        fmt = str(meta.get("format", ""))
        if f"::{self.format_name}<" not in fmt:
            raise RecordError(f"{target}: written by {fmt or 'an unknown recorder'}, not "
                              f"{self.format_name}; load it with the recorder that saved it")

    def _compress(self, raw: bytes) -> bytes:
        return raw

    def _decompress(self, raw: bytes) -> bytes:
        return raw

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


class NamedMpkFileRecorder(Recorder):
    """MessagePack with field names (``.mpk``), Burn's default file format."""

    format_name, extension = "NamedMpkFileRecorder", "mpk"


class NamedMpkGzFileRecorder(NamedMpkFileRecorder):
    """As :class:`NamedMpkFileRecorder`, gzip-compressed (``.mpk.gz``)."""

    format_name, extension = "NamedMpkGzFileRecorder", "mpk.gz"

    def file_path(self, path):
        path = Path(path)
        return path if path.name.endswith(".mpk.gz") else path.with_name(path.name + ".mpk.gz")

    def _compress(self, raw: bytes) -> bytes:
        return gzip.compress(raw, mtime=0)

    def _decompress(self, raw: bytes) -> bytes:
        return gzip.decompress(raw)


def DefaultRecorder() -> NamedMpkFileRecorder:
    """Burn's ``DefaultRecorder``: named MessagePack, full precision."""
    return NamedMpkFileRecorder(FullPrecisionSettings())


def CompactRecorder() -> NamedMpkFileRecorder:
    """Burn's ``CompactRecorder``: named MessagePack, half precision (f16 floats)."""
    return NamedMpkFileRecorder(HalfPrecisionSettings())


def save_file(module: Module, path: "str | os.PathLike", recorder: Recorder) -> Path:
    """Burn's ``module.save_file(path, &recorder)``: returns the file written."""
    return recorder.record(module, path)


def load_file(module: Module, path: "str | os.PathLike", recorder: Recorder,
              device: Device | None = None, strict: bool = True) -> Module:
    """Burn's ``module.load_file(path, &recorder, &device)``: ``module`` holding the file's
    values (converted to its parameters' dtypes and devices). Raises RecordError for a bad
    file, RecordMismatchError when it does not fit the module."""
    return module.load_record(recorder.load(path, device, ModuleRecord), strict=strict)
