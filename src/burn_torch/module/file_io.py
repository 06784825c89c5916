"""Module files in the safetensors format, written and read by hand (no extra dependency).

Layout: an 8-byte little-endian header length ``N``; ``N`` bytes of JSON header
``{name: {"dtype", "shape", "data_offsets": [begin, end]}, "__metadata__": {str: str}}`` padded
with spaces to a multiple of 8; then every tensor's raw little-endian bytes, back to back, in
header order (offsets are relative to the start of that data section). Files written here
carry ``__metadata__`` ``{"format": "burn_torch", "version": ..., "param_ids": <JSON object
name -> ParamId>}`` so a loaded module gets back its ParamIds; files from other tools load too
(parameters keep their ids).
"""
from __future__ import annotations

import json
import struct
from pathlib import Path

import numpy as np
import torch

from ..device import Device
from ..tensor import Tensor
from .module import Module
from .param import ParamId
from .record import ModuleRecord, ParamRecord, into_record, load_record

FORMAT = "burn_torch"
VERSION = "1"

_CODES = {
    torch.float64: "F64", torch.float32: "F32", torch.float16: "F16", torch.bfloat16: "BF16",
    torch.int64: "I64", torch.int32: "I32", torch.int16: "I16", torch.int8: "I8",
    torch.uint8: "U8", torch.bool: "BOOL",
}
_DTYPES = {code: dtype for dtype, code in _CODES.items()}
# same-width signed integer views: numpy and torch both handle them, so bytes round-trip exactly
_INT_VIEW = {1: (torch.int8, "<i1"), 2: (torch.int16, "<i2"), 4: (torch.int32, "<i4"),
             8: (torch.int64, "<i8")}


def _to_bytes(t: torch.Tensor) -> bytes:
    t = t.detach().to("cpu").contiguous().reshape(-1)
    view, little = _INT_VIEW[t.element_size()]
    return t.view(view).numpy().astype(little, copy=False).tobytes()


def _from_bytes(buf: memoryview, dtype: torch.dtype, shape: list[int]) -> torch.Tensor:
    size = torch.empty((), dtype=dtype).element_size()
    view, little = _INT_VIEW[size]
    arr = np.frombuffer(buf, dtype=little).astype(little[1:], copy=True)  # native order, owned
    return torch.from_numpy(arr).view(dtype).reshape(shape)


def write_safetensors(path, tensors: dict[str, torch.Tensor], metadata: dict[str, str]) -> None:
    """Writes ``tensors`` (name -> torch tensor) and string ``metadata`` to a safetensors file."""
    header: dict = {"__metadata__": {str(k): str(v) for k, v in metadata.items()}}
    blobs = []
    offset = 0
    for name, t in tensors.items():
        if t.dtype not in _CODES:
            raise TypeError(f"{name}: dtype {t.dtype} cannot be stored in a safetensors file")
        blob = _to_bytes(t)
        header[name] = {"dtype": _CODES[t.dtype], "shape": list(t.shape),
                        "data_offsets": [offset, offset + len(blob)]}
        blobs.append(blob)
        offset += len(blob)
    text = json.dumps(header, separators=(",", ":")).encode("utf-8")
    text += b" " * (-len(text) % 8)
    with open(path, "wb") as f:
        f.write(struct.pack("<Q", len(text)))
        f.write(text)
        for blob in blobs:
            f.write(blob)


def read_safetensors(path) -> tuple[dict[str, torch.Tensor], dict[str, str]]:
    """Reads a safetensors file: ``(name -> CPU torch tensor, metadata)``.

    Raises ValueError when the file is not a well-formed safetensors file (bad header length,
    JSON, dtype, or offsets that do not match the shapes or the data).
    """
    raw = memoryview(Path(path).read_bytes())
    if len(raw) < 8:
        raise ValueError(f"{path}: not a safetensors file (shorter than its 8-byte header length)")
    (n,) = struct.unpack("<Q", raw[:8])
    if n > len(raw) - 8:
        raise ValueError(f"{path}: header length {n} exceeds the file size {len(raw)}")
    try:
        header = json.loads(bytes(raw[8:8 + n]).decode("utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError) as e:
        raise ValueError(f"{path}: the safetensors header is not valid JSON ({e})") from None
    if not isinstance(header, dict):
        raise ValueError(f"{path}: the safetensors header is not a JSON object")
    data = raw[8 + n:]
    metadata = header.pop("__metadata__", None) or {}
    tensors = {}
    for name, info in header.items():
        try:
            dtype = _DTYPES[info["dtype"]]
            shape = [int(d) for d in info["shape"]]
            begin, end = (int(o) for o in info["data_offsets"])
        except (KeyError, TypeError, ValueError):
            raise ValueError(f"{path}: malformed header entry for {name!r}: {info!r}") from None
        numel = int(np.prod(shape, dtype=np.int64)) if shape else 1
        expected = numel * torch.empty((), dtype=dtype).element_size()
        if not 0 <= begin <= end <= len(data) or end - begin != expected:
            raise ValueError(f"{path}: {name!r} has data offsets [{begin}, {end}] that do not hold "
                             f"a {info['dtype']} tensor of shape {shape} ({expected} bytes)")
        tensors[name] = _from_bytes(data[begin:end], dtype, shape)
    return tensors, metadata


def _with_suffix(path) -> Path:
    path = Path(path)
    return path if path.suffix else path.with_suffix(".safetensors")


def save_file(module: Module, path, metadata: dict[str, str] | None = None) -> Path:
    """Writes every parameter of ``module`` to ``path``; returns the path written.

    ``.safetensors`` is appended when ``path`` has no suffix (Burn's recorders add their
    extension). Extra ``metadata`` strings are stored alongside the burn_torch entries.
    """
    record = into_record(module)
    ids = {name: str(rec.id) for name, rec in record.items()}
    meta = dict(metadata or {})
    meta.update({"format": FORMAT, "version": VERSION, "param_ids": json.dumps(ids)})
    path = _with_suffix(path)
    write_safetensors(path, {name: rec.value.to_torch() for name, rec in record.items()}, meta)
    return path


def read_record(path, device: Device | None = None) -> ModuleRecord:
    """The ModuleRecord stored in a safetensors file (ids from burn_torch metadata, if any)."""
    tensors, metadata = read_safetensors(_with_suffix(path))
    ids = {}
    if metadata.get("format") == FORMAT and "param_ids" in metadata:
        ids = {name: ParamId.parse(text) for name, text in json.loads(metadata["param_ids"]).items()}
    device = Device.cpu() if device is None else device.without_autodiff()
    return ModuleRecord({name: ParamRecord(ids.get(name), Tensor._create(t.to(device.torch), device))
                         for name, t in tensors.items()})


def load_file(module: Module, path, device: Device | None = None, strict: bool = True) -> Module:
    """Returns ``module`` loaded from ``path`` (see ``record.load_record`` for the checks).

    ``device`` is where the file is read to (default CPU) before each tensor moves to the
    device of the parameter it replaces.
    """
    return load_record(module, read_record(path, device), strict)
