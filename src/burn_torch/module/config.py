"""Burn-style configs: immutable values with ``with_<field>(value)`` builders.

Subclass [`Config`][burn_torch.module.Config] and declare fields with type annotations and
defaults, as a dataclass; the subclass becomes a frozen dataclass (fields positional or by
keyword, in declaration order), and every field ``f`` gets a ``with_f(value)`` method returning
an updated copy (Burn's ``#[derive(Config)]``)::

    class LinearConfig(Config):
        d_input: int
        d_output: int
        bias: bool = True

    LinearConfig(4, 8).with_bias(False)

Type checkers see the same: ``Config`` is a ``dataclass_transform`` base (so ``LinearConfig(4,
8)`` and ``LinearConfig(d_input=4, d_output=8)`` are checked against the fields), and a
``with_<field>`` builder is typed as a call returning the config's own class (``Self``), so a
chain such as ``AdamConfig().with_epsilon(1e-6).init()`` keeps its type. The builder's argument
is not checked statically (a misspelled builder name is only caught when it runs).
"""
from __future__ import annotations

import dataclasses
import json
import os
import re
import types
import typing
from typing import TYPE_CHECKING, Any, ClassVar, Protocol

from typing_extensions import Self, dataclass_transform

_C_co = typing.TypeVar("_C_co", covariant=True)


def _builder(name: str):
    def with_field(self, value):
        return dataclasses.replace(self, **{name: value})
    with_field.__name__ = f"with_{name}"
    with_field.__doc__ = f"A copy of this config with ``{name}`` set to ``value``."
    return with_field


def _sequence_fields(cls: type) -> tuple[tuple[str, int | None], ...]:
    """``(name, expected length or None)`` of the fields annotated ``Sequence[int]`` (one size
    per dim, Burn's ``[usize; N]``); the length is that of the class's tuple defaults."""
    fields = dataclasses.fields(cls)
    lengths = {len(f.default) for f in fields if isinstance(f.default, tuple) and f.default
               and all(type(v) is int for v in f.default)}
    rank = re.search(r"(\d)d", cls.__name__)
    n = lengths.pop() if len(lengths) == 1 else int(rank.group(1)) if rank else None
    return tuple((f.name, n) for f in fields
                 if str(f.type).replace("typing.", "") in ("Sequence[int]", "Sequence[int] | None"))


def _checked_init(init, cls: type):
    """``init`` followed by the check that no ``Sequence[int]`` field holds a bare int."""
    def __init__(self, *args, **kwargs):
        init(self, *args, **kwargs)
        for name, n in cls._sequence_fields:
            value = getattr(self, name)
            if isinstance(value, int) and name == "channels":
                raise TypeError(f"{cls.__name__}: channels is [channels_in, channels_out] "
                                f"(Burn's [usize; 2]), got the int {value}")
            if isinstance(value, int):
                fix = f"[{', '.join([str(value)] * n)}]" if n else f"[{value}, ...]"
                raise TypeError(f"{cls.__name__}: {name} takes one size per dim (Burn's "
                                f"[usize; {n or 'N'}]), got the int {value}; write {fix}")
    __init__.__wrapped__ = init  # type: ignore[attr-defined]  # inspect.signature follows it
    return __init__


class _Builder(Protocol[_C_co]):
    """What a ``with_<field>`` builder is to a type checker: one value in, the config out."""

    def __call__(self, value: Any, /) -> _C_co: ...


@dataclass_transform(frozen_default=True, field_specifiers=(dataclasses.field,))
class Config:
    """Base class of configs; see the module docstring. A field annotated ``Sequence[int]``
    given a bare int (``Conv2dConfig([1, 8], 3)``) raises TypeError naming the list to write."""

    _sequence_fields: ClassVar[tuple] = ()

    if TYPE_CHECKING:
        __dataclass_fields__: ClassVar[dict[str, dataclasses.Field[Any]]]

        def __getattr__(self, name: str) -> _Builder[Self]:
            """``with_<field>`` builders, generated per field when the class is created."""

    def __init_subclass__(cls, **kwargs) -> None:
        super().__init_subclass__(**kwargs)
        dataclasses.dataclass(frozen=True)(cls)
        for field in dataclasses.fields(cls):
            if f"with_{field.name}" not in cls.__dict__:
                setattr(cls, f"with_{field.name}", _builder(field.name))
        cls._sequence_fields = _sequence_fields(cls)
        if cls._sequence_fields:
            cls.__init__ = _checked_init(cls.__init__, cls)  # type: ignore[method-assign]  # by design

    def to_dict(self) -> dict:
        """The fields as a dict (nested configs as dicts too)."""
        return dataclasses.asdict(self)

    def save(self, path: "str | os.PathLike") -> None:
        """Writes the config as JSON (pretty-printed), atomically (Burn's ``Config::save``).
        Raises TypeError when a field value has no JSON form."""
        from ..atomic_file import atomic_write_bytes
        atomic_write_bytes(path, (json.dumps(self.to_dict(), indent=2) + "\n").encode("utf-8"))

    @classmethod
    def load(cls, path: "str | os.PathLike") -> Self:
        """The config saved at ``path`` (Burn's ``Config::load``): fields absent from the file
        take their defaults, nested configs are rebuilt. Raises FileNotFoundError, ValueError
        for a file that is not JSON or has unknown fields, TypeError for a required field the
        file lacks."""
        with open(path, encoding="utf-8") as f:
            try:
                data = json.load(f)
            except json.JSONDecodeError as e:
                raise ValueError(f"{path}: not a JSON config ({e})") from None
        return cls.from_dict(data)

    @classmethod
    def from_dict(cls, data: dict) -> Self:
        """The config with the fields of ``data`` (as
        [`to_dict`][burn_torch.module.config.Config.to_dict] gives them); ValueError for unknown
        fields."""
        return _from_dict(cls, data)


def _from_dict(cls: type, data):
    """An instance of dataclass ``cls`` from a dict, nested dataclasses and tuples rebuilt."""
    if not isinstance(data, dict):
        raise ValueError(f"a {cls.__name__} is a JSON object, got {type(data).__name__}")
    fields = {f.name: f for f in dataclasses.fields(cls)}
    unknown = sorted(set(data) - set(fields))
    if unknown:
        raise ValueError(f"{cls.__name__} has no field(s) {', '.join(unknown)}")
    hints = typing.get_type_hints(cls)
    return cls(**{name: _rebuild(hints.get(name), fields[name], value) for name, value in data.items()})


def _rebuild(hint, field: dataclasses.Field, value):
    """``value`` read from JSON as the field's type: a dataclass from a dict, a tuple from a list
    where the hint or the default is a tuple."""
    candidates = typing.get_args(hint) if typing.get_origin(hint) in (typing.Union, types.UnionType) else (hint,)
    if isinstance(value, dict):
        for c in candidates:
            if isinstance(c, type) and dataclasses.is_dataclass(c):
                return _from_dict(c, value)
    if isinstance(value, list):
        tuple_hint = any(c is tuple or typing.get_origin(c) is tuple for c in candidates)
        if tuple_hint or isinstance(field.default, tuple):
            return tuple(_rebuild(None, field, v) if isinstance(v, list) else v for v in value)
    return value
