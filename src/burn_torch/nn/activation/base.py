"""What the activation layers share: a stateless layer applies one function, a configured layer
applies it with its config's fields.
"""
from __future__ import annotations

import dataclasses
from typing import Callable, ClassVar, Generic, TypeVar, cast

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
_Layer = TypeVar("_Layer", bound="_Configured")


class _ActivationConfig(Config, Generic[_Layer]):
    """A configured activation's config: its fields (Burn's names and defaults) are its layer's,
    in order; ``init`` builds the layer (the class that names this config, see ``_Configured``)."""

    _layer_class: ClassVar[type[_Configured]]  # set by the layer class that names this config

    def init(self) -> _Layer:
        """The activation layer with this config's fields."""
        layer = self._layer_class(*(getattr(self, n) for n in self._layer_class._names))
        return cast(_Layer, layer)  # the layer class declared for this config


class _Configured(Module):
    """An activation whose fields are its config's: ``forward`` applies ``_fn(input, *fields)``.
    A subclass names its config (``class Elu(_Configured, config=EluConfig)``): its fields are
    the config's, in order."""

    _fn: ClassVar[Callable[..., Tensor]]
    _names: ClassVar[tuple[str, ...]] = ()

    def __init_subclass__(cls, config: type[_ActivationConfig] | None = None, **kwargs) -> None:
        super().__init_subclass__(**kwargs)
        if config is not None:
            cls._names = tuple(f.name for f in dataclasses.fields(config))
            config._layer_class = cls

    def __init__(self, *values: float) -> None:
        super().__init__()
        for name, value in zip(self._names, values):
            setattr(self, name, value)

    def forward(self, input: Tensor) -> Tensor:
        return type(self)._fn(input, *(getattr(self, n) for n in self._names))

    def __repr__(self) -> str:
        return f"{type(self).__name__} {{{_fields(self, *self._names)}}}"
