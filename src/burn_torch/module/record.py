"""Module records: a module's parameters as values, and loading them back with checks.

A [`ModuleRecord`][burn_torch.module.record.ModuleRecord] maps each parameter's dotted path to a
[`ParamRecord`][burn_torch.module.record.ParamRecord] (its id and its tensor, without autodiff).
Loading checks names, kinds and shapes *before* anything changes: a failed load raises
[`RecordMismatchError`][burn_torch.module.record.RecordMismatchError] and leaves the module as it
was (modules are values: the loaded module is a new one).
"""
from __future__ import annotations

from typing import TYPE_CHECKING, Iterator, Mapping, NamedTuple, TypeVar

from ..autodiff.recorder import wrap
from ..tensor import Tensor
from .param import Param, ParamId, _effective
from .visitor import ModuleMapper, PathTracker

if TYPE_CHECKING:  # annotations only: this layer sits below Module
    from .module import Module

_M = TypeVar("_M", bound="Module")  # what goes in comes out: the caller's module class


class ParamRecord(NamedTuple):
    """One saved parameter: its id (None when unknown, e.g. from a PyTorch state dict) and value."""

    id: ParamId | None
    value: Tensor


class ModuleRecord(Mapping[str, ParamRecord]):
    """An ordered, read-only mapping ``dotted path -> ParamRecord`` (Burn's ``Module::Record``).

    Built by ``Module.into_record()``; values are tensors without autodiff association, sharing
    the module's (immutable) storage. Picklable.
    """

    __slots__ = ("_items",)

    def __init__(self, items: "Mapping[str, ParamRecord | Tensor]") -> None:
        entries: dict[str, ParamRecord] = {}
        for name, rec in items.items():
            if isinstance(rec, Tensor):
                rec = ParamRecord(None, rec)
            if not isinstance(rec, ParamRecord) or not isinstance(rec.value, Tensor):
                raise TypeError(f"record entry {name!r} must be a ParamRecord or a Tensor, got "
                                f"{type(rec).__name__}")
            entries[str(name)] = ParamRecord(rec.id, rec.value.without_autodiff())
        self._items = entries

    def __getitem__(self, name: str) -> ParamRecord:
        return self._items[name]

    def __iter__(self) -> Iterator[str]:
        return iter(self._items)

    def __len__(self) -> int:
        return len(self._items)

    def __repr__(self) -> str:
        body = ", ".join(f"{k}: {v.value.dims()}" for k, v in self._items.items())
        return f"ModuleRecord({{{body}}})"


class LoadReport(NamedTuple):
    """What loading a record into a module would find wrong (all empty: it fits exactly)."""

    missing: list[str]       # parameters of the module the record lacks
    unexpected: list[str]    # record entries the module has no parameter for
    mismatched: list[str]    # "name: why" for entries whose kind or shape differs

    def is_exact(self) -> bool:
        return not (self.missing or self.unexpected or self.mismatched)


class RecordMismatchError(ValueError):
    """A record does not fit a module; ``.missing``, ``.unexpected``, ``.mismatched`` say how."""

    def __init__(self, report: LoadReport, what: str = "record") -> None:
        self.missing = report.missing
        self.unexpected = report.unexpected
        self.mismatched = report.mismatched
        parts = []
        if report.missing:
            parts.append(f"missing: {', '.join(report.missing)}")
        if report.unexpected:
            parts.append(f"unexpected: {', '.join(report.unexpected)}")
        if report.mismatched:
            parts.append(f"mismatched: {'; '.join(report.mismatched)}")
        super().__init__(f"the {what} does not fit the module ({' | '.join(parts)}); the module "
                         f"is unchanged")


def into_record(module: Module) -> ModuleRecord:
    """Every parameter of ``module`` with its id, in traversal order."""
    return ModuleRecord({name: ParamRecord(p.id, p.val()) for name, p in module.named_params()})


def check_record(module: Module, record: Mapping) -> LoadReport:
    """Compares ``record`` with ``module``'s parameters (names, kinds, shapes); changes nothing."""
    params = dict(module.named_params())
    missing = [n for n in params if n not in record]
    unexpected = [n for n in record if n not in params]
    mismatched = []
    for name, param in params.items():
        if name not in record:
            continue
        rec = record[name]
        got = rec.value if isinstance(rec, ParamRecord) else rec
        want = param.val()
        if got.kind is not want.kind:
            mismatched.append(f"{name}: expected a {want.kind} tensor, got {got.kind}")
        elif got.dims() != want.dims():
            mismatched.append(f"{name}: expected shape {want.dims()}, got {got.dims()}")
    return LoadReport(missing, unexpected, mismatched)


class _Load(PathTracker, ModuleMapper):
    def __init__(self, record: ModuleRecord) -> None:
        super().__init__()
        self.record = record

    def map_float(self, param: Param) -> Param:
        rec = self.record.get(self.path())
        if rec is None:
            return param
        current = param.val()
        target = current.to_torch()
        data = rec.value.to_torch().to(device=target.device, dtype=target.dtype)
        value = _effective(wrap(data, current.gradient_checkpointing_strategy()), param.is_trainable())
        return Param._make(param.id if rec.id is None else rec.id, value, param.is_trainable())

    map_int = map_bool = map_float


def load_record(module: _M, record: Mapping, strict: bool = True, what: str = "record") -> _M:
    """Returns ``module`` holding the record's values (and the record's ids, when it has them).

    Each loaded tensor goes to the device, dtype and autodiff association of the parameter it
    replaces, and keeps that parameter's configured trainability (a trainable parameter on an
    autodiff tensor becomes a fresh ``require_grad()`` leaf). Raises RecordMismatchError when a
    kind or shape differs, or (``strict``) when a name is missing or unexpected; with
    ``strict=False`` missing parameters keep their values and unexpected entries are ignored.
    ``what`` names the record's source in the error message (e.g. the file it came from).
    """
    if not isinstance(record, ModuleRecord):
        record = ModuleRecord(record)
    report = check_record(module, record)
    if report.mismatched or (strict and not report.is_exact()):
        raise RecordMismatchError(report, what)
    return module.map(_Load(record))
