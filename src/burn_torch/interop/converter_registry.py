"""The registry of ``from_torch_module`` converters: which function converts each ``torch.nn``
class, and the pieces converters are built from (loading a torch layer's weights into its
burn_torch twin, the error for a setting without a counterpart).

Converter modules (``torch_converters``, ``torch_converters_layers``, ``torch_spatial_modules``)
register into it at import; :mod:`.torch_modules` imports them all and is the public entry.
"""
from __future__ import annotations

from typing import Callable, Union

import torch

from ..device import Device
from ..module import Module
from .state_dict import load_torch_state_dict

Converted = Union[Module, list, dict]
Converter = Callable[[torch.nn.Module, Device], Converted]
_CONVERTERS: dict[type, Converter] = {}


def register_converter(torch_class: type, converter: Converter) -> None:
    """Uses ``converter(torch_module, device)`` for ``torch_class`` (and its subclasses without
    a converter of their own). TypeError unless ``torch_class`` is a ``torch.nn.Module`` subclass."""
    if not (isinstance(torch_class, type) and issubclass(torch_class, torch.nn.Module)):
        raise TypeError(f"register_converter expects a torch.nn.Module subclass, got {torch_class!r}")
    _CONVERTERS[torch_class] = converter


def supported_torch_modules() -> list[str]:
    """The names of the ``torch.nn`` classes :func:`from_torch_module` converts, sorted."""
    return sorted(cls.__name__ for cls in _CONVERTERS)


def from_torch_module(module: torch.nn.Module, device: Device) -> Converted:
    """The burn_torch counterpart of ``module`` on ``device``, holding copies of its weights.

    Layers become ``burn_torch.nn`` layers (trainable parameters; an autodiff ``device`` gives
    autodiff parameters), ``Sequential`` a :class:`Sequential`, ``ModuleList`` a list and
    ``ModuleDict`` a dict. Raises TypeError for a class without a converter (a model with its own
    ``forward``: convert its children and port the ``forward`` by hand) and ValueError for a
    setting the burn_torch layer does not have (``padding_mode="reflect"``, a bidirectional
    LSTM, ...).
    """
    if not isinstance(module, torch.nn.Module):
        raise TypeError(f"from_torch_module expects a torch.nn.Module, got {type(module).__name__}")
    if not isinstance(device, Device):
        raise TypeError(f"from_torch_module expects a burn_torch Device, got {type(device).__name__}")
    for cls in type(module).__mro__:
        converter = _CONVERTERS.get(cls)
        if converter is not None:
            return converter(module, device)
    raise TypeError(
        f"no converter for {type(module).__module__}.{type(module).__qualname__}: convert its "
        f"children with from_torch_module and port its forward by hand (supported: "
        f"{', '.join(supported_torch_modules())})")


def with_weights(layer: Module, module: torch.nn.Module) -> Module:
    """``layer`` holding copies of ``module``'s weights (names and layouts adapted)."""
    loaded, _ = load_torch_state_dict(layer, module.state_dict())
    return loaded


def unsupported(module: torch.nn.Module, setting: str) -> ValueError:
    return ValueError(f"from_torch_module: {type(module).__name__} with {setting} has no "
                      f"burn_torch counterpart")


def check_padding_mode(m: torch.nn.modules.conv._ConvNd) -> None:
    if m.padding_mode != "zeros":
        raise unsupported(m, f"padding_mode={m.padding_mode!r}")


def pair(value) -> list[int]:
    return list(value) if isinstance(value, (tuple, list)) else [value, value]


def parameterless(make: Callable[[], Module]) -> Converter:
    """The converter of a torch layer without settings: ``make()``."""
    def convert(module: torch.nn.Module, device: Device) -> Module:
        return make()
    return convert
