"""What the activation layers share: a stateless layer applies one function, a configured layer
applies it with its config's fields.
"""
from __future__ import annotations

from typing import Callable, ClassVar, TypeVar

from ...module import Config, Module
from ...tensor import Tensor


def _fields(module: Module, *names: str) -> str:
    return ", ".join(f"{n}: {getattr(module, n)}" for n in names)


class _Stateless(Module):
    """An activation without fields: ``forward`` applies ``_fn``."""

    _fn: ClassVar[Callable[..., Tensor]]  # a staticmethod in each subclass

    def forward(self, input: Tensor) -> Tensor:
        return type(self)._fn(input)

    def __repr__(self) -> str:
        return type(self).__name__


# -- configured activations: Config (Burn's fields and defaults) -> layer ------------------------
class _Configured(Module):
    """An activation whose fields are its config's: ``forward`` applies ``_fn(input, *fields)``."""

    _fn: ClassVar[Callable[..., Tensor]]
    _names: ClassVar[tuple[str, ...]] = ()

    def __init__(self, *values: float) -> None:
        super().__init__()
        for name, value in zip(self._names, values):
            setattr(self, name, value)

    def forward(self, input: Tensor) -> Tensor:
        return type(self)._fn(input, *(getattr(self, n) for n in self._names))

    def __repr__(self) -> str:
        return f"{type(self).__name__} {{{_fields(self, *self._names)}}}"


_Layer = TypeVar("_Layer", bound=_Configured)


def _layer(cls: type[_Layer], config: Config) -> _Layer:
    return cls(*(getattr(config, n) for n in cls._names))
