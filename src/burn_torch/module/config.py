"""Burn-style configs: immutable values with ``with_<field>(value)`` builders.

Subclass :class:`Config` and declare fields with type annotations and defaults, as a dataclass;
the subclass becomes a frozen dataclass, and every field ``f`` gets a ``with_f(value)`` method
returning an updated copy (Burn's ``#[derive(Config)]``)::

    class LinearConfig(Config):
        d_input: int
        d_output: int
        bias: bool = True

    LinearConfig(4, 8).with_bias(False)
"""
from __future__ import annotations

import dataclasses


def _builder(name: str):
    def with_field(self, value):
        return dataclasses.replace(self, **{name: value})
    with_field.__name__ = f"with_{name}"
    with_field.__doc__ = f"A copy of this config with ``{name}`` set to ``value``."
    return with_field


class Config:
    """Base class of configs; see the module docstring."""

    def __init_subclass__(cls, **kwargs) -> None:
        super().__init_subclass__(**kwargs)
        dataclasses.dataclass(frozen=True)(cls)
        for field in dataclasses.fields(cls):
            if f"with_{field.name}" not in cls.__dict__:
                setattr(cls, f"with_{field.name}", _builder(field.name))

    def to_dict(self) -> dict:
        """The fields as a dict (nested configs as dicts too)."""
        return dataclasses.asdict(self)
