"""The Module base class: parameters found from attributes, traversed by visitors and mappers.

A module's *children* are its attributes that hold a [`Param`][burn_torch.module.param.Param], a
[`TrainingFlag`][burn_torch.module.param.TrainingFlag], a nested
[`Module`][burn_torch.module.module.Module], or a list / tuple / dict containing any of them
(recursively). Other attributes (ints, configs, ``None``) are plain constants; a bare
[`Tensor`][burn_torch.tensor.Tensor] attribute is a constant tensor: it follows
``to_device``/``fork``/``valid``/``train`` but is neither visited, counted nor recorded (Burn's bare
``Tensor`` field).

Modules are values, as in Burn: every transformation (``map``, ``train``, ``valid``, ``fork``,
``load_record``, an optimizer step, ...) returns a new module and leaves the original untouched.
Attribute assignment (``model.fc1.weight = p``) still works on a module you own.

Walks run on every training step (``GradientsParams.from_grads``, the optimizer's ``map``), so
they are kept cheap without caching anything: each attribute is classified afresh (reassigned
attributes and containers filled in place are always seen), ``enter_module``/``exit_module``
are only called when the walker overrides them, and plain module classes are copied without
the generic ``copy`` protocol.
"""
from __future__ import annotations

import copy
import copyreg
import dataclasses
from typing import Any, Iterator, TypeVar

from typing_extensions import Self, dataclass_transform

from ..device import Device
from ..dtype import Bool, Float, Int
from ..tensor import Tensor
from .distributed import distribute
from .file_io import load_file as _load_file, save_file as _save_file
from .param import Param, ParamId, TrainingFlag
from .record import into_record as _into_record, load_record as _load_record
from .visitor import ModuleMapper, ModuleVisitor, PathTracker

_CONTAINERS = (list, tuple, dict)


_SCALARS = frozenset({int, float, bool, str, type(None)})  # skipped first: conv strides etc.


def _has_children(value) -> bool:
    """Whether a list / tuple / dict holds a module, parameter, flag or tensor at any depth."""
    for item in (value.values() if isinstance(value, dict) else value):
        if type(item) in _SCALARS:
            continue
        if isinstance(item, _NODES) or (isinstance(item, _CONTAINERS) and _has_children(item)):
            return True
    return False


def _entries(value):
    """``(key, child)`` pairs of a dict, list / tuple (index keys) or module (attributes)."""
    if isinstance(value, dict):
        return value.items()
    if isinstance(value, (list, tuple)):
        return enumerate(value)
    return vars(value).items()


def _tracks_paths(walker, base: type[ModuleVisitor] | type[ModuleMapper]) -> bool:
    """Whether ``walker`` overrides ``enter_module`` / ``exit_module`` (else walks skip the calls)."""
    own = getattr(walker, "__dict__", {})
    return ("enter_module" in own or "exit_module" in own
            or getattr(type(walker), "enter_module", None) is not base.enter_module
            or getattr(type(walker), "exit_module", None) is not base.exit_module)


_KIND_SUFFIX = {Float: "float", Int: "int", Bool: "bool"}
_VISIT_HOOK = {kind: f"visit_{suffix}" for kind, suffix in _KIND_SUFFIX.items()}
_MAP_HOOK = {kind: f"map_{suffix}" for kind, suffix in _KIND_SUFFIX.items()}


def _visit(value, visitor: ModuleVisitor, paths: bool) -> None:
    """Calls ``visitor``'s hooks for the children of a module or container, in order.

    Containers are entered when they hold a module, parameter, flag or tensor; bare tensors
    themselves are not visited. ``paths``: call ``enter_module`` / ``exit_module`` around each child.
    """
    container = type(value).__name__
    for key, child in _entries(value):
        if isinstance(child, Param):
            hook = _VISIT_HOOK[child._value.kind]
        elif isinstance(child, TrainingFlag):
            hook = "visit_training"
        elif isinstance(child, Module) or (isinstance(child, _CONTAINERS) and _has_children(child)):
            hook = None
        else:
            continue
        if paths:
            visitor.enter_module(str(key), container)
        if hook is None:
            _visit(child, visitor, paths)
        else:
            getattr(visitor, hook)(child)
        if paths:
            visitor.exit_module(str(key), container)


def _map(value, mapper: ModuleMapper, paths: bool):
    """The module or container ``value`` rebuilt with ``mapper``'s replacements of its children.

    Containers without children are shared with the original; bare tensors go to
    ``map_constant``. Raises TypeError when a parameter hook returns something else than a Param.
    """
    container = type(value).__name__
    mapped = {}
    for key, child in _entries(value):
        if not (isinstance(child, _NODES) or (isinstance(child, _CONTAINERS) and _has_children(child))):
            continue
        if paths:
            mapper.enter_module(str(key), container)
        mapped[key] = _map_child(child, mapper, paths)
        if paths:
            mapper.exit_module(str(key), container)
    return _rebuild(value, mapped)


def _map_child(child, mapper: ModuleMapper, paths: bool):
    if isinstance(child, Param):
        out = getattr(mapper, _MAP_HOOK[child._value.kind])(child)
        if not isinstance(out, Param):
            raise TypeError(f"{type(mapper).__name__}: a map hook must return a Param, "
                            f"got {type(out).__name__}")
        return out
    if isinstance(child, TrainingFlag):
        return mapper.map_training(child)
    if isinstance(child, Tensor):
        return mapper.map_constant(child)
    return _map(child, mapper, paths)


_COPY_PROTOCOL = ("__copy__", "__reduce_ex__", "__reduce__", "__getstate__", "__setstate__",
                  "__getnewargs__", "__getnewargs_ex__")


def _copies_by_dict(cls: type) -> bool:
    """Whether ``copy.copy`` of a ``cls`` instance just copies its ``__dict__`` into
    ``cls.__new__(cls)``: no copy or pickling hook and no ``__slots__`` anywhere in the MRO."""
    return (all(getattr(cls, name, None) is getattr(object, name, None) for name in _COPY_PROTOCOL)
            and not any("__slots__" in vars(k) for k in cls.__mro__))


def _copy_module(module: "Module") -> "Module":
    """``copy.copy(module)``, without the generic protocol's cost for plain module classes."""
    cls = type(module)
    if not cls._copy_by_dict or cls in copyreg.dispatch_table:
        return copy.copy(module)
    new = cls.__new__(cls)
    new.__dict__.update(module.__dict__)
    return new


def _rebuild(value, mapped: dict):
    """A copy of the module or container ``value`` with the entries of ``mapped`` replaced."""
    if isinstance(value, Module):
        new = _copy_module(value)
        new.__dict__.update(mapped)
        return new
    if isinstance(value, dict):
        return type(value)((k, mapped.get(k, v)) for k, v in value.items())
    items = list(value)
    for index, child in mapped.items():
        items[index] = child
    if type(value) is list:
        return items
    if hasattr(value, "_fields"):  # a namedtuple takes its fields positionally
        return type(value)(*items)
    return type(value)(items)


def _modules(value, path: str) -> Iterator[tuple[str, "Module"]]:
    if isinstance(value, Module):
        yield path, value
    for key, child in _entries(value):
        if isinstance(child, (Module,) + _CONTAINERS):
            yield from _modules(child, f"{path}.{key}" if path else str(key))


class _Collect(PathTracker, ModuleVisitor):
    def __init__(self, want_flags: bool = False) -> None:
        super().__init__()
        self.items: list[tuple[str, Any]] = []
        self._want_flags = want_flags

    def _add(self, p) -> None:
        self.items.append((self.path(), p))

    def visit_float(self, param):
        self._add(param)

    visit_int = visit_bool = visit_float

    def visit_training(self, flag):
        if self._want_flags:
            self._add(flag)


class _Train(ModuleMapper):
    """Autodiff on; each parameter's configured trainability and each flag restored."""

    def map_float(self, param):
        t = param.val().autodiff()
        if not param.is_trainable():
            t = t.set_require_grad(False)
        elif not t.is_require_grad():
            t = (t.detach() if t.is_tracked() else t).require_grad()
        return Param._make(param.id, t, param.is_trainable())

    def map_int(self, param):
        return param.map(Tensor.autodiff)

    map_bool = map_int

    def map_training(self, flag):
        return flag.train()

    def map_constant(self, tensor):
        return tensor.autodiff()


class _Valid(ModuleMapper):
    """Autodiff off everywhere; configuration kept for a later ``train()``."""

    def map_float(self, param):
        return param.map(Tensor.without_autodiff)

    map_int = map_bool = map_float

    def map_training(self, flag):
        return flag.valid()

    def map_constant(self, tensor):
        return tensor.without_autodiff()


class _NoGrad(ModuleMapper):
    def map_float(self, param):
        return param.set_require_grad(False)

    def map_training(self, flag):
        return flag.with_value(False)


class _ToDevice(ModuleMapper):
    def __init__(self, device: Device) -> None:
        self.device = device

    def map_float(self, param):
        return param.map(lambda t: t.to_device(self.device))

    map_int = map_bool = map_float

    def map_constant(self, tensor):
        return tensor.to_device(self.device)


class _Fork(_ToDevice):
    def map_float(self, param):
        def fork(t: Tensor) -> Tensor:
            keep = t.is_require_grad()
            t = t.to_device(self.device).detach()
            return t.require_grad() if keep else t
        return param.map(fork)

    def map_constant(self, tensor):
        return tensor.to_device(self.device).detach()


class Module:
    """Base class of modules (Burn's ``#[derive(Module)]``); see the package docstring.

    Subclass it, assign parameters, layers and containers of layers as attributes in
    ``__init__``, and write ``forward`` (any name works). Every method below returns a new
    module unless it says otherwise; ParamIds are preserved by all of them.
    """

    _copy_by_dict = True  # see _copies_by_dict; recomputed for every subclass

    def __init_subclass__(cls, **kwargs) -> None:
        super().__init_subclass__(**kwargs)
        cls._copy_by_dict = _copies_by_dict(cls)

    def __init__(self) -> None:
        pass

    # -- traversal ------------------------------------------------------------------------------
    def visit(self, visitor: ModuleVisitor) -> None:
        """Walks the tree in attribute order, calling the visitor's hooks."""
        _visit(self, visitor, _tracks_paths(visitor, ModuleVisitor))

    def map(self, mapper: ModuleMapper) -> Self:
        """Returns a new module whose children are the mapper's replacements."""
        return _map(self, mapper, _tracks_paths(mapper, ModuleMapper))

    def named_params(self) -> list[tuple[str, Param]]:
        """``(dotted path, Param)`` for every parameter (Float, Int and Bool), in traversal order."""
        c = _Collect()
        self.visit(c)
        return c.items

    def params(self) -> list[Param]:
        """Every parameter, in traversal order."""
        return [p for _, p in self.named_params()]

    def named_modules(self) -> list[tuple[str, "Module"]]:
        """``(dotted path, Module)`` for this module (path ``""``) and every sub-module."""
        return list(_modules(self, ""))

    def named_training_flags(self) -> list[tuple[str, TrainingFlag]]:
        """``(dotted path, TrainingFlag)`` for every training flag in the tree."""
        c = _Collect(want_flags=True)
        self.visit(c)
        return [(n, f) for n, f in c.items if isinstance(f, TrainingFlag)]

    def num_params(self) -> int:
        """Number of Float parameter elements, sub-modules included."""
        return sum(p.val().num_elements() for p in self.params() if p.val().kind is Float)

    def devices(self) -> list[Device]:
        """The distinct devices (without autodiff context) of the parameters, in order."""
        out: list[Device] = []
        for p in self.params():
            d = p.val().device().without_autodiff()
            if d not in out:
                out.append(d)
        return out

    # -- autodiff transitions -------------------------------------------------------------------
    def train(self) -> Self:
        """The module for training: autodiff on every tensor, trainability and flags restored.

        A trainable parameter becomes (or stays, keeping its leaf) a ``require_grad()`` leaf; a
        frozen one stays untracked; training flags read their configured value again.
        """
        return self.map(_Train())

    def valid(self) -> Self:
        """The module for inference: no autodiff anywhere, training flags off.

        The configuration is kept, so ``valid().train()`` restores what ``train()`` would.
        """
        return self.map(_Valid())

    def no_grad(self) -> Self:
        """Freezes every parameter and training flag (kept frozen by later ``train()`` calls)."""
        return self.map(_NoGrad())

    def to_device(self, device: Device) -> Self:
        """Moves every tensor to ``device``.

        Tensors keep their own autodiff association; a tracked parameter records a
        differentiable step, so the result cannot be optimized directly: use
        [`fork`][burn_torch.module.module.Module.fork].
        """
        return self.map(_ToDevice(device))

    def fork(self, device: Device) -> Self:
        """Moves every tensor to ``device`` on a fresh graph: trainable leaves stay leaves."""
        return self.map(_Fork(device))

    def clone(self) -> Self:
        """A structural copy sharing the (immutable) parameters."""
        return self.map(ModuleMapper())

    def distributed(self) -> Self:
        """Marks every ``require_grad()`` parameter distributed under its own ParamId (see
        ``Tensor.set_distributed`` and ``module/distributed.py``); others are left unchanged."""
        return distribute(self)

    # -- records and files ----------------------------------------------------------------------
    def into_record(self):
        """The module's state: a [`ModuleRecord`][burn_torch.module.record.ModuleRecord] of every
        parameter."""
        return _into_record(self)

    def load_record(self, record, strict: bool = True) -> Self:
        """Returns this module with the record's values and ids; see ``record.load_record``."""
        return _load_record(self, record, strict)

    def save_file(self, path, recorder=None, metadata: dict[str, str] | None = None):
        """Burn's ``save_file(path, &recorder)``: writes the module with a file recorder of
        ``burn_torch.record`` and returns the file; without one, burn_torch's safetensors file
        (``.safetensors`` appended when ``path`` has no suffix). See
        ``burn_torch.module.file_io.save_file``."""
        return _save_file(self, path, recorder, metadata)

    def load_file(self, path, recorder=None, device: Device | None = None,
                  strict: bool = True) -> Self:
        """Burn's ``load_file(path, &recorder, &device)``: this module holding the file's
        values; without a recorder, from a file
        [`save_file`][burn_torch.module.module.Module.save_file] wrote without one. See
        ``burn_torch.module.file_io.load_file``."""
        return _load_file(self, path, recorder, device, strict)

    def __call__(self, *args, **kwargs):
        """Raises TypeError: Burn modules are called through ``forward`` (no hooks to run)."""
        name = type(self).__name__
        raise TypeError(f"'{name}' object is not callable: burn_torch modules have no __call__ "
                        f"(Burn's modules are structs with a forward method, and there are no "
                        f"hooks to run around it); write {name.lower()}.forward(...), and "
                        f"self.layer.forward(x) inside forward")

    # -- display --------------------------------------------------------------------------------
    def __repr__(self) -> str:
        lines = []
        for name, value in vars(self).items():
            if isinstance(value, Module):
                body = repr(value).replace("\n", "\n  ")
            elif isinstance(value, Param):
                body = f"Param(shape={value.val().dims()}, kind={value.val().kind})"
            elif isinstance(value, _CONTAINERS) and _has_children(value):
                body = f"{type(value).__name__}[{len(value)}]"
            else:
                continue
            lines.append(f"  {name}: {body}")
        head = f"{type(self).__name__} {{params: {self.num_params()}"
        return head + "}" if not lines else head + "\n" + "\n".join(lines) + "\n}"


_ModuleClass = TypeVar("_ModuleClass", bound=type)


@dataclass_transform(eq_default=False)
def module_fields(cls: _ModuleClass) -> _ModuleClass:
    """Declares a module's fields once, as annotations: the class gets the constructor that takes
    them in order (positional or by keyword, defaults as written) and stores each as the
    attribute of that name. Equality stays identity and ``repr`` the module's own::

        @module_fields
        class LeakyRelu(Module):
            negative_slope: float

            def forward(self, input: Tensor) -> Tensor:
                return leaky_relu(input, self.negative_slope)

    Type checkers see the constructor too (``dataclass_transform``). Raises TypeError, as a
    dataclass does, for a field without a default after one with a default.
    """
    # (typeshed's dataclass overloads lose the class a TypeVar stands for)
    return dataclasses.dataclass(eq=False, repr=False, match_args=False)(cls)  # type: ignore[return-value]


_NODES = (Module, Param, TrainingFlag, Tensor)  # what makes a container part of the tree


def list_param_ids(module: Module) -> list[ParamId]:
    """The ParamIds of every parameter of ``module``, in traversal order."""
    return [p.id for p in module.params()]
