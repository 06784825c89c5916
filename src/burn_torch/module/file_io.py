"""Module files in the safetensors format, through the ``safetensors`` library.

The library writes the layout (8-byte header length, JSON header, tensor bytes) and, reading,
rejects malformed files: bad header lengths and JSON, unknown dtypes, non-integer or negative
shapes, overlapping or gapped data offsets, trailing bytes. This module adds what the format
leaves to its users: duplicate JSON keys (a JSON parser keeps the last one silently) and the
burn_torch metadata. Files written here carry ``__metadata__``
``{"format": "burn_torch", "version": "1", "param_ids": <JSON object name -> ParamId>}`` so a
loaded module gets back its ParamIds; files from other tools load too (parameters keep their
ids).

Every save is atomic ([`burn_torch.atomic_file.atomic_write`][burn_torch.atomic_file.atomic_write]):
an interrupted or failed save leaves the previous file byte-identical. Every malformed file raises
``ValueError`` whose message starts with the file's path and says what is wrong.
"""
from __future__ import annotations

import json
import struct
from pathlib import Path
from typing import TYPE_CHECKING, Mapping, TypeVar

import safetensors
import safetensors.torch
import torch

from ..atomic_file import atomic_write_bytes
from ..device import Device
from ..tensor import Tensor
from .param import ParamId
from .record import ModuleRecord, ParamRecord, into_record, load_record
from .tying import tied_param_error

if TYPE_CHECKING:  # annotations only: this layer sits below Module
    from .module import Module

_M = TypeVar("_M", bound="Module")  # what goes in comes out: the caller's module class

FORMAT = "burn_torch"
VERSION = "1"

# the dtypes a burn_torch tensor can have; a file holding another one is rejected
_DTYPES = frozenset({torch.float64, torch.float32, torch.float16, torch.bfloat16, torch.int64,
                     torch.int32, torch.int16, torch.int8, torch.uint8, torch.bool})


def _storable(name: str, t: torch.Tensor, seen: set) -> torch.Tensor:
    """``t`` as a CPU tensor owning its contiguous storage (the library refuses views and
    tensors that share memory, e.g. one Param reachable at two paths)."""
    if t.dtype not in _DTYPES:
        raise TypeError(f"{name}: dtype {t.dtype} cannot be stored in a burn_torch safetensors file")
    t = t.detach().to("cpu").contiguous()
    storage = t.untyped_storage()
    if storage.data_ptr() in seen or storage.nbytes() != t.numel() * t.element_size():
        t = t.clone()
    seen.add(t.untyped_storage().data_ptr())
    return t


def write_safetensors(path, tensors: Mapping[str, torch.Tensor], metadata: Mapping[str, str]) -> None:
    """Writes ``tensors`` (name -> torch tensor) and string ``metadata`` to a safetensors file,
    atomically: on any error (KeyboardInterrupt included) ``path`` keeps its old content.

    Raises TypeError for a metadata key or value that is not a str, or a tensor dtype burn_torch
    does not have.
    """
    for key, value in metadata.items():
        if not isinstance(key, str) or not isinstance(value, str):
            raise TypeError(f"{path}: safetensors metadata maps str to str, got {key!r}: {value!r}")
    seen: set = set()
    storable = {str(name): _storable(name, t, seen) for name, t in tensors.items()}
    data = safetensors.torch.save(storable, dict(metadata))
    atomic_write_bytes(path, data)


def _unique_keys(pairs: list) -> dict:
    keys = [k for k, _ in pairs]
    if len(set(keys)) != len(keys):
        dup = sorted({k for k in keys if keys.count(k) > 1})
        raise ValueError(f"duplicate keys {dup} in the header")
    return dict(pairs)


def _header(raw: bytes) -> dict:
    """The JSON header of file bytes the library already accepted, rejecting duplicate keys."""
    (n,) = struct.unpack("<Q", raw[:8])
    return json.loads(raw[8:8 + n].decode("utf-8"), object_pairs_hook=_unique_keys)


def read_safetensors(path) -> tuple[dict[str, torch.Tensor], dict[str, str]]:
    """Reads a safetensors file: ``(name -> CPU torch tensor, metadata)``.

    Raises ValueError naming ``path`` when the file is not a well-formed safetensors file (see
    the module docstring) or holds a dtype burn_torch does not have; OSError when it cannot be
    read.
    """
    raw = Path(path).read_bytes()
    try:
        tensors = safetensors.torch.load(raw)
        header = _header(raw)
    except safetensors.SafetensorError as e:
        raise ValueError(f"{path}: not a valid safetensors file ({e})") from None
    except ValueError as e:
        raise ValueError(f"{path}: not a valid safetensors file ({e})") from None
    for name, t in tensors.items():
        if t.dtype not in _DTYPES:
            raise ValueError(f"{path}: tensor {name!r} has dtype {header[name]['dtype']}, which "
                             f"burn_torch tensors cannot hold")
    return tensors, header.get("__metadata__") or {}


def _param_ids(path, metadata: Mapping[str, str], names) -> dict[str, ParamId]:
    """The ParamIds stored in burn_torch ``metadata`` (none for other writers' files).

    Raises ValueError naming ``path`` for an unknown version, a ``param_ids`` entry that is not
    a JSON object of str -> ParamId, a name the file has no tensor for, or one ParamId given to
    two tensors (an optimizer would mix their gradients).
    """
    if metadata.get("format") != FORMAT:
        return {}
    if metadata.get("version") != VERSION:
        raise ValueError(f"{path}: burn_torch file version {metadata.get('version')!r} is not "
                         f"supported (this burn_torch reads version {VERSION})")
    text = metadata.get("param_ids")
    if text is None:
        return {}
    try:
        entries = json.loads(text, object_pairs_hook=_unique_keys)
    except ValueError as e:
        raise ValueError(f"{path}: metadata param_ids is not valid JSON ({e})") from None
    if not isinstance(entries, dict):
        raise ValueError(f"{path}: metadata param_ids must be a JSON object, got "
                         f"{type(entries).__name__}")
    ids: dict[str, ParamId] = {}
    owner: dict[ParamId, str] = {}
    for name, value in entries.items():
        if name not in names:
            raise ValueError(f"{path}: metadata param_ids names {name!r}, which has no tensor")
        if not isinstance(value, str):
            raise ValueError(f"{path}: metadata param_ids[{name!r}] must be a string, got {value!r}")
        try:
            pid = ParamId.parse(value)
        except ValueError as e:
            raise ValueError(f"{path}: metadata param_ids[{name!r}]: {e}") from None
        if pid in owner:
            raise ValueError(f"{path}: metadata param_ids gives ParamId {value} to both "
                             f"{owner[pid]!r} and {name!r}; ParamIds must be unique")
        owner[pid] = name
        ids[name] = pid
    return ids


def _with_suffix(path) -> Path:
    path = Path(path)
    return path if path.suffix else path.with_suffix(".safetensors")


def save_file(module: Module, path, recorder=None, metadata: "Mapping[str, str] | None" = None) -> Path:
    """Burn's ``module.save_file(path, &recorder)``: with a file recorder of
    ``burn_torch.record`` (``DefaultRecorder()``, ``CompactRecorder()``, ...) writes the
    module's record in the recorder's format and returns the file (``path`` with the recorder's
    extension).

    Without one, writes burn_torch's safetensors file atomically and returns its path:
    ``.safetensors`` is appended when ``path`` has no suffix; extra ``metadata`` strings (also
    accepted in the recorder's place) are stored alongside the burn_torch entries; an
    interrupted or failed save leaves an existing file byte-identical. Raises TiedParamError (a
    ValueError), writing nothing, when one parameter is reachable at two paths: a file gives
    each ParamId to one tensor (see ``burn_torch.module.tying``); TypeError for a recorder that
    does not write files.
    """
    if recorder is not None and not isinstance(recorder, Mapping):
        return _file_recorder(recorder, "save_file").record(module, path)
    metadata = recorder if metadata is None else metadata
    record = into_record(module)
    seen: set = set()
    for rec in record.values():
        if rec.id in seen:
            raise tied_param_error("save_file", module, rec.id)
        seen.add(rec.id)
    ids = {name: str(rec.id) for name, rec in record.items()}
    meta = dict(metadata or {})
    meta.update({"format": FORMAT, "version": VERSION, "param_ids": json.dumps(ids)})
    path = _with_suffix(path)
    write_safetensors(path, {name: rec.value.to_torch() for name, rec in record.items()}, meta)
    return path


def read_record(path, device: Device | None = None) -> ModuleRecord:
    """The ModuleRecord stored in a safetensors file (ids from burn_torch metadata, if any).

    Raises ValueError naming the file when it is malformed (see
    [`read_safetensors`][burn_torch.module.file_io.read_safetensors] and the metadata checks of the
    module docstring).
    """
    path = _with_suffix(path)
    tensors, metadata = read_safetensors(path)
    ids = _param_ids(path, metadata, tensors)
    device = Device.cpu() if device is None else device.without_autodiff()
    return ModuleRecord({name: ParamRecord(ids.get(name), Tensor._create(t.to(device.torch), device))
                         for name, t in tensors.items()})


def load_file(module: _M, path, recorder=None, device: Device | None = None,
              strict: bool = True) -> _M:
    """Burn's ``module.load_file(path, &recorder, &device)``: ``module`` holding the record
    ``recorder`` (a file recorder of ``burn_torch.record``) reads from ``path``. Without a
    recorder, reads burn_torch's safetensors file (``load_file(path, device)`` also works).

    ``device`` is where the file is read to (default CPU) before each tensor moves to the
    device, dtype and autodiff association of the parameter it replaces (see
    ``record.load_record`` for the checks). Raises ValueError for a malformed file (RecordError
    from a recorder), naming the recorder to pass when the file is a Burn record read without
    one; RecordMismatchError when the file does not fit; ``module`` is unchanged either way.
    """
    if isinstance(recorder, Device) and device is None:
        recorder, device = None, recorder
    if recorder is not None:
        record = _file_recorder(recorder, "load_file").load(path, device, ModuleRecord)
        return load_record(module, record, strict, f"file {recorder.file_path(path)}")
    target = _with_suffix(path)
    hint = _burn_record_hint(path, target)
    if hint is not None:
        raise ValueError(hint)
    return load_record(module, read_record(target, device), strict, f"file {target}")


#: Burn's record file extensions and the burn_torch.record recorder that reads each
_RECORDERS = {".mpk.gz": "NamedMpkGzFileRecorder()", ".mpk": "DefaultRecorder()",
              ".bin.gz": "BinGzFileRecorder()", ".bin": "BinFileRecorder()",
              ".json.gz": "JsonGzFileRecorder()", ".json": "PrettyJsonFileRecorder()"}


def _burn_record_hint(given, target: Path) -> str | None:
    """What to call instead when ``load_file`` without a recorder meets a Burn record: the
    file given has a recorder's extension, or there is no safetensors file but a record."""
    given = Path(given)
    if target.exists() and _record_extension(target.name) is None:
        return None
    for candidate in (given, *(Path(f"{given}{ext}") for ext in _RECORDERS)):
        ext = _record_extension(candidate.name)
        if ext is not None and candidate.exists():
            return (f"{candidate} is a Burn record file; without a recorder load_file reads "
                    f"burn_torch's safetensors files. Pass its recorder: "
                    f"model.load_file({str(given)!r}, {_RECORDERS[ext]}, device) "
                    f"(recorders are in burn_torch.record)")
    return None


def _record_extension(name: str) -> str | None:
    return next((ext for ext in _RECORDERS if name.endswith(ext)), None)


def _file_recorder(recorder, call: str):
    """``recorder`` when it writes files (``record``, ``load`` and ``file_path``); TypeError
    saying what to pass otherwise."""
    if all(callable(getattr(recorder, m, None)) for m in ("record", "load", "file_path")):
        return recorder
    if callable(getattr(recorder, "record", None)) and callable(getattr(recorder, "load", None)):
        raise TypeError(f"{call}: {type(recorder).__name__} records to bytes, not files: use "
                        f"recorder.record(module) and module.load_record(recorder.load(data))")
    raise TypeError(f"{call}(path, recorder) takes a file recorder of burn_torch.record "
                    f"(DefaultRecorder(), CompactRecorder(), NamedMpkGzFileRecorder(), ...), got "
                    f"{type(recorder).__name__}")
