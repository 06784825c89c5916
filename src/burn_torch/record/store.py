"""Stores (Burn's ``burn-store``): a module's tensors in a file, loaded back with key
remapping, filtering, layout adapters and partial loading, reporting what happened.

``store.save_into(module)`` writes; ``module, result = store.load_from(module)`` returns the
loaded module (modules are values) and an [`ApplyResult`][burn_torch.record.store.ApplyResult]
(``applied``, ``skipped``, ``missing``, ``unused``, ``errors``). Loading raises
[`StoreError`][burn_torch.record.store.StoreError] (its ``.result`` says why) and leaves nothing
changed when a tensor does not fit its parameter, or when parameters are missing without
``allow_partial(True)``.

* [`BurnpackStore`][burn_torch.record.store.BurnpackStore] (``.bpk``): Burn's native format as
  burn-store 0.21 documents it (``burnpack/base.rs``): a 10-byte header (u32 LE magic
  ``0x4255524E``, u16 version 1, u32 metadata length), CBOR metadata ``{"tensors": {path: {"dtype",
  "shape", "data_offsets", "param_id"}}, "metadata": {..}}``, then the tensor bytes, the data
  section and each tensor 256-byte aligned. Parameter ids round-trip.
* [`SafetensorsStore`][burn_torch.record.store.SafetensorsStore]: the safetensors format through the
  ``safetensors`` library.
* [`PytorchStore`][burn_torch.record.store.PytorchStore]: reads ``torch.save`` files with
  ``torch.load(weights_only=True)`` (no code is unpickled); read-only, as Burn's; PyTorch layouts
  are always adapted.

Adapters: [`PyTorchToBurnAdapter`][burn_torch.record.store.PyTorchToBurnAdapter] (loading
PyTorch-named, PyTorch-laid-out tensors: ``Linear`` weights transposed, norms' ``weight``/``bias``
to ``gamma``/``beta``, ...; the rules of ``burn_torch.compat``'s state-dict interop),
[`BurnToPyTorchAdapter`][burn_torch.record.store.BurnToPyTorchAdapter] (saving for PyTorch),
[`HalfPrecisionAdapter`][burn_torch.record.store.HalfPrecisionAdapter] (floats stored as f16).
"""
from __future__ import annotations

import os
import pickle
import re
import struct
from dataclasses import dataclass, field
from pathlib import Path
import cbor2
import safetensors
import safetensors.torch
import torch

from ..atomic_file import atomic_write_bytes
from ..interop.state_dict import _layout
from ..module import Module, ParamId, ParamRecord, check_record, load_record
from ..tensor import Tensor
from . import serde


class StoreError(ValueError):
    """A store could not be read, or its tensors do not fit the module (see ``.result``)."""

    def __init__(self, message: str, result: "ApplyResult | None" = None) -> None:
        super().__init__(message)
        self.result = result


@dataclass
class ApplyResult:
    """What a load did: tensors ``applied`` (module paths), ``skipped`` by the filter,
    module parameters ``missing`` from the store, store tensors ``unused`` by the module, and
    ``errors`` (one message per tensor that did not fit)."""

    applied: list[str] = field(default_factory=list)
    skipped: list[str] = field(default_factory=list)
    missing: list[str] = field(default_factory=list)
    unused: list[str] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)

    def is_success(self) -> bool:
        return not self.errors


# ------------------------------------------------------------------------------ adapters ----
class Adapter:
    """Converts between a module's parameters and a store's tensors (names and layouts)."""

    def to_store(self, module: Module, tensors: dict[str, torch.Tensor]) -> dict[str, torch.Tensor]:
        return tensors

    def from_store(self, module: Module, tensors: dict[str, torch.Tensor]) -> tuple[dict[str, torch.Tensor], list[str]]:
        """``(tensors keyed by module path, store keys to ignore)``."""
        return tensors, []


class PyTorchToBurnAdapter(Adapter):
    """Loads tensors written by PyTorch (``state_dict`` names and layouts)."""

    def from_store(self, module, tensors):
        out, ignored = {}, []
        layout = _layout(module)
        for key, t in tensors.items():
            spec = layout.get(key)
            if spec is None:
                out[key] = t                       # not a PyTorch name of this module: unused
            elif callable(spec):
                ignored.append(key)                # PyTorch-only entry (num_batches_tracked)
            else:
                sizes = [_torch_rows(module, p) for p in spec]
                pieces = torch.split(t, sizes) if len(spec) > 1 and t.dim() and t.shape[0] == sum(sizes) else [t]
                if len(pieces) != len(spec):
                    out[key] = t                   # cannot split: reported as a mismatch later
                    continue
                for part, piece in zip(spec, pieces):
                    out[part.burn_path] = piece.t() if part.transposed and piece.dim() == 2 else piece
        return out, ignored


class BurnToPyTorchAdapter(Adapter):
    """Saves tensors under PyTorch's names and layouts (loadable by ``load_state_dict``)."""

    def to_store(self, module, tensors):
        out = {}
        for key, spec in _layout(module).items():
            if callable(spec):
                out[key] = spec()
            elif all(p.burn_path in tensors for p in spec):
                parts = [tensors[p.burn_path].t() if p.transposed else tensors[p.burn_path] for p in spec]
                out[key] = parts[0] if len(parts) == 1 else torch.cat(parts, 0)
        return out


class HalfPrecisionAdapter(Adapter):
    """Stores float tensors as f16 (loading converts them back to the parameters' dtypes)."""

    def to_store(self, module, tensors):
        return {k: t.half() if t.is_floating_point() else t for k, t in tensors.items()}


def _torch_rows(module: Module, part) -> int:
    params = dict(module.named_params())
    dims = params[part.burn_path].val().dims()
    return (dims[::-1] if part.transposed else dims)[0]


# -------------------------------------------------------------------------------- stores ----
class _Store:
    """Shared builder options and the load/save logic; subclasses read and write files."""

    default_from_adapter: Adapter | None = None

    def __init__(self, path: "str | os.PathLike") -> None:
        self.path = Path(path)
        self._remap: list[tuple[re.Pattern, str]] = []
        self._filters: list[re.Pattern] = []
        self._allow_partial = False
        self._from_adapter: Adapter | None = self.default_from_adapter
        self._to_adapter: Adapter | None = None
        self._metadata: dict[str, str] = {}

    @classmethod
    def from_file(cls, path: "str | os.PathLike"):
        return cls(path)

    def with_key_remapping(self, pattern: str, replacement: str):
        """Renames keys matching ``pattern`` (a regex; ``replacement`` as ``re.sub``'s) from the
        store's names to the module's on load, and from the module's on save."""
        self._remap.append((re.compile(pattern), replacement))
        return self

    def with_regex(self, pattern: str):
        """Only tensors whose module path matches ``pattern`` (``re.search``) are saved or
        loaded; several patterns: any may match."""
        self._filters.append(re.compile(pattern))
        return self

    def allow_partial(self, allow: bool = True):
        """Whether a load may leave module parameters missing from the store at their values."""
        self._allow_partial = bool(allow)
        return self

    def with_from_adapter(self, adapter: Adapter):
        self._from_adapter = adapter
        return self

    def with_to_adapter(self, adapter: Adapter):
        self._to_adapter = adapter
        return self

    def metadata(self, key: str, value: str):
        """Adds a ``key: value`` string pair to the file's metadata on save."""
        self._metadata[str(key)] = str(value)
        return self

    def _rename(self, key: str) -> str:
        for pattern, replacement in self._remap:
            key = pattern.sub(replacement, key)
        return key

    def _selected(self, path: str) -> bool:
        return not self._filters or any(p.search(path) for p in self._filters)

    # ---------------------------------------------------------------------- save ----
    def save_into(self, module: Module) -> Path:
        """Writes the module's (selected) parameters atomically; returns the file."""
        tensors = {name: p.val().to_torch().detach() for name, p in module.named_params() if self._selected(name)}
        ids = {name: p.id for name, p in module.named_params() if name in tensors}
        if self._to_adapter is not None:
            tensors = self._to_adapter.to_store(module, tensors)
        renamed = {self._rename(k): v for k, v in tensors.items()}
        ids = {self._rename(k): v for k, v in ids.items() if self._rename(k) in renamed}
        self.path.parent.mkdir(parents=True, exist_ok=True)
        atomic_write_bytes(self.path, self._encode(renamed, ids, dict(self._metadata)))
        return self.path

    # ---------------------------------------------------------------------- load ----
    def load_from(self, module: Module) -> tuple[Module, ApplyResult]:
        """``(module with the store's values, ApplyResult)``; StoreError (module unchanged)
        for an unreadable file, a tensor that does not fit, or missing parameters without
        ``allow_partial``."""
        stored, ids = self._read()
        renamed = {self._rename(k): t for k, t in stored.items()}
        ids = {self._rename(k): v for k, v in ids.items()}
        ignored: list[str] = []
        if self._from_adapter is not None:
            renamed, ignored = self._from_adapter.from_store(module, renamed)
        result = ApplyResult(skipped=sorted(ignored))
        params = dict(module.named_params())
        record = {}
        for key, t in renamed.items():
            if not self._selected(key):
                result.skipped.append(key)
            elif key not in params:
                result.unused.append(key)
            else:
                record[key] = Tensor.from_data(t.contiguous(), params[key].val().device())
        for mismatch in check_record(module, record).mismatched:
            result.errors.append(mismatch)
        result.missing = [n for n in params if n not in record and self._selected(n)]
        result.applied = [k for k in record if not any(e.startswith(f"{k}:") for e in result.errors)]
        if result.errors:
            raise StoreError(f"{self.path}: tensors do not fit the module: {'; '.join(result.errors)}; "
                             f"nothing was loaded", result)
        if result.missing and not self._allow_partial:
            raise StoreError(f"{self.path}: missing tensors for {', '.join(result.missing)} (use "
                             f"allow_partial(True) to keep their values); nothing was loaded", result)
        entries = {k: ParamRecord(ids.get(k), v) for k, v in record.items()}
        return load_record(module, entries, strict=False), result

    def keys(self) -> list[str]:
        """The tensor names in the file (before remapping)."""
        return list(self._read()[0])

    def _read(self) -> tuple[dict[str, torch.Tensor], dict[str, ParamId]]:
        raise NotImplementedError

    def _encode(self, tensors: dict[str, torch.Tensor], ids: dict[str, ParamId], metadata: dict[str, str]) -> bytes:
        raise NotImplementedError

    def _read_bytes(self) -> bytes:
        try:
            return self.path.read_bytes()
        except FileNotFoundError:
            raise StoreError(f"{self.path}: no such file") from None


BURNPACK_MAGIC, BURNPACK_VERSION, ALIGN = 0x4255524E, 1, 256


class BurnpackStore(_Store):
    """Burn's native ``.bpk`` format (see the module docstring); keeps ParamIds."""

    def __init__(self, path) -> None:
        path = Path(path)
        super().__init__(path if path.suffix == ".bpk" else path.with_name(path.name + ".bpk"))

    def _encode(self, tensors, ids, metadata):
        descriptors, blobs, offset = {}, [], 0
        for name, t in tensors.items():
            blob = serde.tensor_bytes(t)
            start = -(-offset // ALIGN) * ALIGN
            blobs.append((start, blob))
            descriptors[name] = {"dtype": serde.dtype_code(t.dtype), "shape": list(t.shape),
                                 "data_offsets": [start, start + len(blob)]}
            if name in ids:
                descriptors[name]["param_id"] = ids[name].val
            offset = start + len(blob)
        meta = {"tensors": descriptors}
        if metadata:
            meta["metadata"] = metadata
        meta_bytes = cbor2.dumps(meta)
        header = struct.pack("<IHI", BURNPACK_MAGIC, BURNPACK_VERSION, len(meta_bytes))
        data_start = -(-(len(header) + len(meta_bytes)) // ALIGN) * ALIGN
        out = bytearray(header + meta_bytes)
        out.extend(b"\0" * (data_start - len(out)))
        for start, blob in blobs:
            out.extend(b"\0" * (data_start + start - len(out)))
            out.extend(blob)
        return bytes(out)

    def _read(self):
        raw = self._read_bytes()
        if len(raw) < 10:
            raise StoreError(f"{self.path}: not a burnpack file (too short)")
        magic, version, size = struct.unpack_from("<IHI", raw)
        if magic != BURNPACK_MAGIC:
            raise StoreError(f"{self.path}: not a burnpack file (bad magic number)")
        if version != BURNPACK_VERSION:
            raise StoreError(f"{self.path}: burnpack version {version} is not supported")
        try:
            meta = cbor2.loads(raw[10:10 + size])
            data_start = -(-(10 + size) // ALIGN) * ALIGN
            tensors, ids = {}, {}
            for name, d in meta["tensors"].items():
                begin, end = d["data_offsets"]
                if not 0 <= begin <= end <= len(raw) - data_start:
                    raise ValueError(f"{name}: data offsets beyond the end of the file")
                tensors[name] = serde.tensor_from_bytes(raw[data_start + begin:data_start + end],
                                                        serde.code_dtype(d["dtype"]), list(d["shape"]))
                if d.get("param_id") is not None:
                    ids[name] = ParamId(d["param_id"])
        except (cbor2.CBORDecodeError, KeyError, TypeError, ValueError) as e:
            raise StoreError(f"{self.path}: corrupt burnpack file ({e}); nothing was loaded") from None
        return tensors, ids


class SafetensorsStore(_Store):
    """A ``.safetensors`` file (written and read with the ``safetensors`` library)."""

    def _encode(self, tensors, ids, metadata):
        contiguous = {k: t.detach().to("cpu").contiguous() for k, t in tensors.items()}
        return safetensors.torch.save(contiguous, metadata=metadata or None)

    def _read(self):
        try:
            return dict(safetensors.torch.load(self._read_bytes())), {}
        except safetensors.SafetensorError as e:
            raise StoreError(f"{self.path}: corrupt safetensors file ({e}); nothing was loaded") from None


class PytorchStore(_Store):
    """A ``torch.save`` file (a state dict, or a dict holding one under a top-level key), read
    with ``weights_only=True``. Read-only; PyTorch layouts are adapted (PyTorchToBurnAdapter)."""

    default_from_adapter = PyTorchToBurnAdapter()

    def __init__(self, path) -> None:
        super().__init__(path)
        self._top_level_key: str | None = None

    def with_top_level_key(self, key: str) -> "PytorchStore":
        """Reads the state dict stored under ``key`` (e.g. ``"state_dict"``)."""
        self._top_level_key = key
        return self

    def save_into(self, module: Module) -> Path:
        raise TypeError("PytorchStore is read-only (as Burn's); save with SafetensorsStore and "
                        "BurnToPyTorchAdapter, or torch.save(to_torch_state_dict(module))")

    def _read(self):
        try:
            obj = torch.load(self.path, map_location="cpu", weights_only=True)
        except FileNotFoundError:
            raise StoreError(f"{self.path}: no such file") from None
        except pickle.UnpicklingError as e:
            raise StoreError(_pickled_objects_message(self.path, str(e))) from None
        except Exception as e:  # torch raises RuntimeError, EOFError, ... for damaged files
            raise StoreError(f"{self.path}: cannot read it as a weights-only torch file "
                             f"({type(e).__name__}: {_first_sentence(str(e))})") from None
        if self._top_level_key is not None:
            if not isinstance(obj, dict) or self._top_level_key not in obj:
                raise StoreError(f"{self.path}: no top-level key {self._top_level_key!r}")
            obj = obj[self._top_level_key]
        if not isinstance(obj, dict):
            raise StoreError(f"{self.path}: holds a {type(obj).__name__}, not a state dict "
                             f"(save model.state_dict(), not the model)")
        return dict(_flatten(obj, "")), {}


_ANSI = re.compile(r"\x1b\[[0-9;]*[A-Za-z]")
_UNSUPPORTED_GLOBAL = re.compile(r"Unsupported global: GLOBAL ([\w.]+)")


def _first_sentence(message: str) -> str:
    """The first sentence of a torch error, without terminal escapes."""
    text = _ANSI.sub("", message).strip().split("\n")[0]
    return text.split(". ")[0].rstrip(".")


def _pickled_objects_message(path: Path, torch_message: str) -> str:
    """What to do with a torch file that holds pickled objects (a whole model saved with
    ``torch.save(model)``, or code): re-export its state dict. Never suggests unpickling it."""
    found = _UNSUPPORTED_GLOBAL.search(_ANSI.sub("", torch_message))
    holds = f"a pickled {found.group(1)}" if found else "pickled Python objects"
    return (f"{path}: holds {holds}, not only tensors (a whole model saved with "
            f"torch.save(model), or code); PytorchStore reads weights and never unpickles objects. "
            f"Re-export the weights from the code that builds the model: "
            f"torch.save(model.state_dict(), \"weights.pt\"), then load PytorchStore(\"weights.pt\") "
            f"(a dict holding the state dict under a key, e.g. {{\"state_dict\": ...}}, works with "
            f"with_top_level_key)")


def _flatten(obj: dict, prefix: str):
    for key, value in obj.items():
        name = f"{prefix}.{key}" if prefix else str(key)
        if isinstance(value, torch.Tensor):
            yield name, value.detach()
        elif isinstance(value, dict):
            yield from _flatten(value, name)
