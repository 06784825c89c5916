"""The registry of ``from_torch_module`` converters: which function converts each ``torch.nn``
class, and the pieces converters are built from (loading a torch layer's weights into its
burn_torch twin, the error for a setting without a counterpart).

Converter modules (``torch_converters``, ``torch_converters_layers``, ``torch_spatial_modules``)
register into it at import; ``.torch_modules`` imports them all and is the public entry.
"""
from __future__ import annotations

import contextvars
from dataclasses import dataclass, field
from typing import Callable, Literal, Mapping, TypeVar, Union

import torch

from ..device import Device
from ..module import Module, Param
from ..tensor import Tensor
from .state_dict import load_torch_state_dict

Converted = Union[Module, list, dict]
_M = TypeVar("_M", bound=Module)  # with_weights returns the layer's own class
# converter(torch_module, device): its first argument is an instance of the class it is
# registered for, a type that differs per key (no dict type can carry it)
Converter = Callable[..., Converted]
_CONVERTERS: dict[type, Converter] = {}


def register_converter(torch_class: type, converter: Converter) -> None:
    """Uses ``converter(torch_module, device)`` for ``torch_class`` (and its subclasses without
    a converter of their own). TypeError unless ``torch_class`` is a ``torch.nn.Module`` subclass."""
    if not (isinstance(torch_class, type) and issubclass(torch_class, torch.nn.Module)):
        raise TypeError(f"register_converter expects a torch.nn.Module subclass, got {torch_class!r}")
    _CONVERTERS[torch_class] = converter


def supported_torch_modules() -> list[str]:
    """The names of the ``torch.nn`` classes
    [`from_torch_module`][burn_torch.interop.torch_modules.from_torch_module] converts, sorted."""
    return sorted(cls.__name__ for cls in _CONVERTERS)


BatchNormRunningVar = Literal["burn", "torch"]


@dataclass(frozen=True)
class ConversionOptions:
    """The settings of one [`from_torch_module`][burn_torch.interop.torch_modules.from_torch_module]
    call, seen by every converter it reaches (nested calls inherit them): the user's class map and
    the BatchNorm running-variance choice."""

    classes: Mapping[type, type] = field(default_factory=dict)
    batch_norm_running_var: BatchNormRunningVar | None = None


_OPTIONS: contextvars.ContextVar[ConversionOptions] = contextvars.ContextVar(
    "from_torch_module options", default=ConversionOptions())


def conversion_options() -> ConversionOptions:
    """The options of the [`from_torch_module`][burn_torch.interop.torch_modules.from_torch_module]
    call being converted (for converters)."""
    return _OPTIONS.get()


def from_torch_module(module: torch.nn.Module, device: Device,
                      classes: Mapping[type, type] | None = None, *,
                      batch_norm_running_var: BatchNormRunningVar | None = None) -> Converted:
    """The burn_torch counterpart of ``module`` on ``device``, holding copies of its weights.

    Layers become ``burn_torch.nn`` layers (trainable parameters; an autodiff ``device`` gives
    autodiff parameters), ``Sequential`` a ``Sequential``, ``ModuleList`` a list and
    ``ModuleDict`` a dict.

    ``classes`` maps your torch classes (a model, a block with its own ``forward``) to their
    ports: ``burn_torch`` Module subclasses whose ``forward`` you wrote. A torch module of a
    mapped class (or a subclass) becomes an instance of its port whose ``__init__`` is not
    called: it gets the torch module's children, converted (through ``classes`` too), its own
    parameters (as trainable Params, torch's layout) and buffers (frozen Params), and its public
    constants (None, bools, numbers, strings and tuples of them: ``stride``, a ``downsample``
    of None), each under the same attribute name. So a torchvision ResNet converts in one call
    with ``classes={ResNet: PortResNet, BasicBlock: PortBlock}``.

    ``batch_norm_running_var`` says what converted BatchNorm layers do with the running variance
    in training: torch updates it with the unbiased batch variance, Burn with the biased one.
    ``"torch"`` keeps torch's numbers (``BatchNormConfig.with_unbiased_running_var(True)``, a
    burn_torch option); ``"burn"`` follows Burn. Required when the model has a BatchNorm layer.

    Options given here hold for the nested calls converters make; a nested call without options
    inherits them. Raises TypeError for a class without a converter or mapping (a model with its
    own ``forward``: map it to its port), for a ``classes`` entry that is not a torch.nn.Module
    class mapped to a burn_torch Module class, and ValueError for a setting the burn_torch layer
    does not have (``padding_mode="reflect"``, ...), for a BatchNorm without
    ``batch_norm_running_var``, and for another ``batch_norm_running_var``.
    """
    if not isinstance(module, torch.nn.Module):
        raise TypeError(f"from_torch_module expects a torch.nn.Module, got {type(module).__name__}")
    if not isinstance(device, Device):
        raise TypeError(f"from_torch_module expects a burn_torch Device, got {type(device).__name__}")
    if classes is None and batch_norm_running_var is None:
        return _convert(module, device, _OPTIONS.get())
    options = ConversionOptions(_check_classes(classes or {}),
                                _check_running_var(batch_norm_running_var))
    token = _OPTIONS.set(options)
    try:
        return _convert(module, device, options)
    finally:
        _OPTIONS.reset(token)


def _check_classes(classes: Mapping[type, type]) -> dict[type, type]:
    if not isinstance(classes, Mapping):
        raise TypeError(f"from_torch_module: classes maps torch classes to port classes, got "
                        f"{type(classes).__name__}")
    for torch_cls, port in classes.items():
        if not (isinstance(torch_cls, type) and issubclass(torch_cls, torch.nn.Module)):
            raise TypeError(f"from_torch_module: classes keys are torch.nn.Module classes, got {torch_cls!r}")
        if not (isinstance(port, type) and issubclass(port, Module)):
            raise TypeError(f"from_torch_module: the port of {torch_cls.__name__} must be a "
                            f"burn_torch Module subclass, got {port!r}")
    return dict(classes)


def _check_running_var(choice):
    if choice not in (None, "burn", "torch"):
        raise ValueError(f"from_torch_module: batch_norm_running_var is 'torch' or 'burn', got {choice!r}")
    return choice


def _convert(module: torch.nn.Module, device: Device, options: ConversionOptions) -> Converted:
    for cls in type(module).__mro__:
        port = options.classes.get(cls)
        if port is not None:
            return _port_by_attributes(module, device, port)
    for cls in type(module).__mro__:
        converter = _CONVERTERS.get(cls)
        if converter is not None:
            return converter(module, device)
    raise TypeError(
        f"no converter for {type(module).__module__}.{type(module).__qualname__}: write its port "
        f"(a burn_torch Module with its forward) and pass classes={{{type(module).__name__}: "
        f"Port{type(module).__name__}}}, or convert its children with from_torch_module and port "
        f"its forward by hand (supported: {', '.join(supported_torch_modules())})")


_CONSTANTS = (type(None), bool, int, float, str)


def _is_constant(value) -> bool:
    if isinstance(value, tuple):
        return all(_is_constant(v) for v in value)
    return isinstance(value, _CONSTANTS)


def _port_by_attributes(module: torch.nn.Module, device: Device, port: type[Module]) -> Module:
    """An instance of ``port`` (``__init__`` not called) holding ``module``'s converted
    children, parameters, buffers and public constants under their attribute names."""
    out = port.__new__(port)
    Module.__init__(out)
    for name, value in vars(module).items():
        if not name.startswith("_") and name != "training" and _is_constant(value):
            setattr(out, name, value)
    for name, p in module.named_parameters(recurse=False):
        setattr(out, name, Param(Tensor.from_data(p.detach(), device), require_grad=p.requires_grad))
    for name, b in module.named_buffers(recurse=False):
        setattr(out, name, Param(Tensor.from_data(b, device), require_grad=False))
    for name, child in module.named_children():
        setattr(out, name, from_torch_module(child, device))
    return out


def with_weights(layer: _M, module: torch.nn.Module) -> _M:
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
