"""The inputs of a captured call: which values are tensors, and the key that says whether a
recorded plan fits them.

A call's arguments are walked: tuples, lists, dicts and named tuples are entered, and so are
Modules (their attributes, in order: a parameter's tensor and trainability, a training flag's
state, sub-modules and containers) and *records* — instances of classes written in Python (every
class of the MRO but ``object`` defined in Python, so that the instance's ``__dict__`` and
``__slots__`` are all its state), such as a batch or a dataclass holding tensors, walked by
their attributes (burn_torch's own classes only when they declare ``_capture_record``: its
containers keyed by node or parameter ids are not records); public Tensors and torch tensors
are inputs; plain values — None, numbers, strings, enums, dtypes, torch and burn_torch devices,
frozen dataclasses holding no tensor such as configs and padding — are constants that must
compare equal; any other object (a Gradients container, an instance of a class written in C
such as ``functools.partial``, a function) makes the call eager. An optimizer is keyed by its
rule and settings and its state walked after the arguments (``optimizer_states``). The key holds, per
input tensor, its shape, strides, dtype, device, autodiff strategy and graph role (untracked,
or a gradient-retaining leaf), plus which inputs are the same object, plus the structure and the
constants; two calls with equal keys run the same kernels on the same kinds of values (as long
as ``fn`` has no data-dependent or hidden Python state, see ``burn_torch.capture``).
"""
from __future__ import annotations

import dataclasses
import enum
from types import FunctionType
from typing import Callable, Iterator, Optional

import torch

from ..autodiff.graph import Node
from ..device import Device
from ..module.module import Module
from ..module.param import Param, TrainingFlag
from ..optim.base import ModuleOptimizer
from ..tensor import Tensor

_TorchTensor = torch.Tensor
_VALUES = frozenset({type(None), bool, int, float, complex, str, bytes, slice, torch.dtype,
                     torch.device, torch.Size})


_HEAP_TYPE = 1 << 9     # Py_TPFLAGS_HEAPTYPE: a class made by a class statement (not written in C)
_ABSENT = ("absent slot",)   # the key of a record's slot that is not set
_layouts: dict[type, Optional[tuple]] = {}


def record_slots(cls: type) -> tuple | None:
    """The slot attributes (names as stored, private names mangled) of a *record* class, whose
    instances ``flatten`` walks by their attributes (their ``__dict__``, then their slots), or
    None when ``cls`` is no record class: a class with a base written in C (``object`` aside),
    a named tuple (walked as a tuple), or a class of burn_torch's own without a true
    ``_capture_record`` attribute. Cached per class."""
    slots = _layouts.get(cls, _ABSENT)
    if slots is _ABSENT:
        slots = _layouts[cls] = _record_slots(cls)
    return slots


def _record_slots(cls: type) -> tuple | None:
    mro = cls.__mro__
    if len(mro) < 2 or mro[-1] is not object or not all(map(_written_in_python, mro[:-1])):
        return None
    if (cls.__module__ or "").split(".")[0] == "burn_torch" and not cls.__dict__.get("_capture_record"):
        return None
    slots = []
    for k in reversed(mro[:-1]):
        names = k.__dict__.get("__slots__", ())
        for name in (names,) if isinstance(names, str) else names:
            if name in ("__dict__", "__weakref__"):
                continue
            if name.startswith("__") and not name.endswith("__"):
                name = f"_{k.__name__.lstrip('_')}{name}"
            slots.append(name)
    return tuple(slots)


def _written_in_python(cls: type) -> bool:
    """Whether ``cls`` was made by a class statement: a heap type whose ``__new__`` and
    ``__init__``, where it defines them, are Python functions (a C extension's heap type, such
    as ``functools.partial``, defines them in C and keeps its state out of its attributes)."""
    if not cls.__flags__ & _HEAP_TYPE:
        return False
    for name in ("__new__", "__init__"):
        method = cls.__dict__.get(name)
        if method is not None and not isinstance(getattr(method, "__func__", method), FunctionType):
            return False
    return True


def is_named_tuple(cls: type) -> bool:
    """Whether ``cls`` is a named tuple class (``collections.namedtuple``, ``typing.NamedTuple``)."""
    return issubclass(cls, tuple) and cls is not tuple and hasattr(cls, "_fields") and hasattr(cls, "_make")


def record_attributes(value) -> Iterator[tuple[bool, str, object]]:
    """``(in_dict, name, attribute)`` for every attribute of record ``value`` in walk order: its
    ``__dict__``'s items, then its set slots (``record_slots``)."""
    state = getattr(value, "__dict__", None)
    if state.__class__ is dict:
        for k, v in state.items():
            yield True, k, v
    for name in record_slots(value.__class__) or ():
        v = getattr(value, name, _ABSENT)
        if v is not _ABSENT:
            yield False, name, v


def is_constant(value) -> bool:
    """Whether ``value`` is a plain value of the key (compared by equality): None, a number, a
    string, an enum, a dtype, a device, or a frozen dataclass holding no tensor."""
    cls = value.__class__
    if cls in _VALUES or isinstance(value, enum.Enum):
        return True
    return value_object(cls) and not _holds_tensor(value)


def _holds_tensor(value, depth: int = 0) -> bool:
    """Whether a dataclass or container ``value`` holds a tensor (public or torch), a few levels
    deep."""
    cls = value.__class__
    if cls is Tensor or isinstance(value, _TorchTensor):
        return True
    if depth > 8:
        return False
    if cls is dict:
        return any(_holds_tensor(v, depth + 1) for v in value.values())
    if isinstance(value, (tuple, list)):
        return any(_holds_tensor(v, depth + 1) for v in value)
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return any(_holds_tensor(getattr(value, f.name, None), depth + 1)
                   for f in dataclasses.fields(value))
    return False


# keys of ``flatten``'s ``ids`` besides storages' ids: the optimizers met, the Params' ParamIds
OPTIMIZERS = "optimizers"
PARAM_IDS = "param ids"


class NotReplayable(Exception):
    """An argument a plan cannot stand for (a tensor carrying an earlier graph, a distributed
    leaf, an unhashable constant): the call runs eagerly."""


def _tensor(t, tensors: list, nodes: list, ids: dict) -> tuple:
    """The key of public Tensor ``t`` (see ``flatten``)."""
    data = t._data
    node = t._node
    i = ids.get(id(data))
    if i is None:
        i = ids[id(data)] = len(tensors)
        tensors.append(data)
        nodes.append(node)
    elif nodes[i] is not node:
        raise NotReplayable("one storage under two different nodes")
    if node is None:
        role = None
    elif node.__class__ is Node and node.op is None:
        role = node.requirement
    else:
        raise NotReplayable("an input carries a recorded graph or a distributed/debug node")
    return (i, data.shape, data.stride(), data.dtype, data.device, t._ctx, role)


def flatten(args, tensors: list, nodes: list, ids: dict) -> tuple:
    """Walks ``args``; appends each new input tensor's storage to ``tensors`` and its node to
    ``nodes`` (``ids`` maps id(storage) to its index); returns the key of ``args``."""
    cls = args.__class__
    if cls is Tensor:
        return _tensor(args, tensors, nodes, ids)
    if isinstance(args, _TorchTensor):
        i = ids.get(id(args))
        if i is None:
            i = ids[id(args)] = len(tensors)
            tensors.append(args)
            nodes.append(None)
        return (i, args.shape, args.stride(), args.dtype, args.device, "torch")
    if cls is tuple or cls is list:
        return (cls, *[flatten(a, tensors, nodes, ids) for a in args])
    if cls is dict:
        return (dict, *[(k, flatten(v, tensors, nodes, ids)) for k, v in args.items()])
    if cls in _VALUES or isinstance(args, enum.Enum):
        return (cls, args)
    if cls is Param:
        pids = ids.get(PARAM_IDS)
        if pids is None:
            pids = ids[PARAM_IDS] = []
        pids.append(args._id)
        return (Param, args._active, flatten(args._value, tensors, nodes, ids))
    if cls is TrainingFlag:
        return (TrainingFlag, args._trainable, args._training)
    if isinstance(args, Module):
        state = getattr(args, "__dict__", None)
        if state is None:
            raise NotReplayable(f"a module of type {cls.__name__} without attributes")
        try:
            return (cls, *[(k, flatten(v, tensors, nodes, ids)) for k, v in state.items()])
        except RecursionError:
            raise NotReplayable(f"a {cls.__name__} that contains itself") from None
    if value_object(cls) and not _holds_tensor(args):
        try:
            hash(args)
        except TypeError:
            raise NotReplayable(f"an unhashable {cls.__name__} constant") from None
        return (cls, args)
    if cls is ModuleOptimizer:
        return _optimizer(args, tensors, nodes, ids)
    if is_named_tuple(cls):
        return (cls, *[flatten(a, tensors, nodes, ids) for a in args])
    if record_slots(cls) is not None:
        try:
            return (cls, *[(in_dict, k, flatten(v, tensors, nodes, ids))
                           for in_dict, k, v in record_attributes(args)])
        except RecursionError:
            raise NotReplayable(f"a {cls.__name__} that contains itself") from None
    # other objects (a Gradients container, a C object whose state flatten cannot see) would
    # key by identity: a new one every step would record every call; they run eagerly
    raise NotReplayable(f"an argument of type {cls.__name__} is not a tensor, a module, an "
                        "optimizer, a record (an object of a class written in Python) or a "
                        "plain value")


def _optimizer(opt: ModuleOptimizer, tensors: list, nodes: list, ids: dict) -> tuple:
    """The key of optimizer ``opt`` (its rule's class and settings, its gradient clipping, which
    optimizer met it is), which it notes in ``ids[OPTIMIZERS]`` for ``optimizer_states``; its
    step counts are held as tensors from now on (``ModuleOptimizer.hold_counts``)."""
    reason = opt.optim.capture_reason()
    if reason is not None:
        raise NotReplayable(f"the optimizer cannot be captured: {reason}")
    if not opt._counts_held:
        opt.hold_counts()
    met = ids.get(OPTIMIZERS)
    if met is None:
        met = ids[OPTIMIZERS] = []
    for i, other in enumerate(met):
        if other is opt:
            return (ModuleOptimizer, i)
    met.append(opt)
    clipping = opt.grad_clipping
    return (ModuleOptimizer, len(met) - 1, type(opt.optim),
            flatten(settings(opt.optim), tensors, nodes, ids),
            None if clipping is None else (type(clipping), flatten(settings(clipping),
                                                                   tensors, nodes, ids)))


def settings(part) -> dict:
    """The settings of an optimizer's rule or clipping: its attributes (``__dict__`` or
    ``__slots__``), by name."""
    attributes = getattr(part, "__dict__", None)
    if attributes is not None:
        return dict(attributes)
    return {name: getattr(part, name) for k in type(part).__mro__
            for name in getattr(k, "__slots__", ()) if hasattr(part, name)}


def optimizer_states(ids: dict, tensors: list, nodes: list) -> tuple | None:
    """After ``flatten``: None when it met no optimizer, else the key of the optimizers' states,
    their tensors appended to ``tensors`` (after every argument's): the ParamIds of the
    arguments' Params in walk order (the states are keyed by them), and per optimizer each
    state's ParamId and entries (tensors as inputs, numbers as constants; step counts held as
    tensors, those stepped together one input), each flat batch's ParamIds, shapes, device and
    entries, and which batch and position each flat ParamId is at."""
    met = ids.get(OPTIMIZERS)
    if met is None:
        return None
    parts: list = [tuple(ids.get(PARAM_IDS, ()))]
    for opt in met:
        states = tuple((pid, flatten(s, tensors, nodes, ids)) for pid, s in opt._states.items())
        batches: dict = {}
        keys: list = []
        slots: list = []
        for pid, (kept, j) in opt._flat.items():
            b = batches.get(id(kept))
            if b is None:
                b = batches[id(kept)] = len(keys)
                keys.append((kept.ids, tuple(kept.shapes), kept.device,
                             flatten(kept.state, tensors, nodes, ids)))
            slots.append((pid, b, j))
        parts.append((states, tuple(keys), tuple(slots)))
    return tuple(parts)


def value_object(cls: type) -> bool:
    """Whether instances of ``cls`` are constants compared by value: a burn_torch Device or a
    frozen dataclass (a module's config, its padding)."""
    if cls is Device:
        return True
    params = getattr(cls, "__dataclass_params__", None)
    return params is not None and params.frozen and dataclasses.is_dataclass(cls)


def walk(args, kwargs, const: Callable[[object], str]) -> Iterator[tuple[str, object]]:
    """``(expression, value)`` for every value of a call's arguments walked as ``flatten`` walks
    them (tuples, lists, dicts, named tuples, modules' and records' attributes, a Param and its
    tensor), in walk order: the
    expression reads that value from another call's ``args`` and ``kwargs`` with the same key
    (``const(key)`` names a dict key or attribute name as a constant of the generated code)."""
    stack = [("kwargs", kwargs), ("args", args)]
    while stack:
        expr, value = stack.pop()
        yield expr, value
        cls = value.__class__
        if cls is tuple or cls is list:
            stack.extend(reversed([(f"{expr}[{i}]", v) for i, v in enumerate(value)]))
        elif cls is dict:
            stack.extend(reversed([(f"{expr}[{const(k)}]", v) for k, v in value.items()]))
        elif cls is Param:
            stack.append((f"{expr}._value", value._value))
        elif isinstance(value, Module):
            stack.extend(reversed([(f"{expr}.__dict__[{const(k)}]", v)
                                   for k, v in value.__dict__.items()]))
        elif is_constant(value):
            continue
        elif is_named_tuple(cls):
            stack.extend(reversed([(f"{expr}[{i}]", v) for i, v in enumerate(value)]))
        elif record_slots(cls) is not None:
            stack.extend(reversed([(f"{expr}.__dict__[{const(k)}]" if in_dict else f"{expr}.{k}", v)
                                   for in_dict, k, v in record_attributes(value)]))


def param_id_reader(args, kwargs) -> tuple:
    """``(read, ids)``: ``read(args, kwargs)`` returns the ParamId of every Param in the
    arguments of a call whose key is that of ``(args, kwargs)`` (walked as ``flatten`` walks
    them: tuples, lists, dicts, modules' attributes), in walk order, as a tuple; ``ids`` is what
    it returns for ``(args, kwargs)``. The key does not hold ids (a new model of the same
    structure replays): a plan whose result is keyed by ids reads the call's own."""
    consts: dict = {}

    def const(value) -> str:
        name = f"K{len(consts)}"
        consts[name] = value
        return name

    params = [(e, v) for e, v in walk(args, kwargs, const) if v.__class__ is Param]
    code = ("def read(args, kwargs):\n    return ("
            + "".join(f"{e}._id, " for e, _ in params) + ")\n")
    exec(compile(code, "<capture param ids>", "exec"), consts)
    return consts["read"], tuple(v._id for _, v in params)
