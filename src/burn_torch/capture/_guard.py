"""A fast guard: generated code that checks a call against one recorded key without building it.

``flatten`` builds a call's whole key (a nested tuple) and hashes it to find a plan; that is
most of a small step's replay cost. A guard is compiled once per plan from the recorded call's
arguments: it walks exactly that argument structure (container classes and lengths, dict keys),
gathers every input's key fields — per public Tensor its class, shape, strides, dtype, device,
autodiff strategy and graph role; per torch tensor its class, shape, strides, dtype, device; per
plain value its class and value; per module its class and attribute names, walked like a
dict; the aliasing of inputs; the ``environment`` (debug mode, the registered backward
hooks, the autotune generation, torch's deterministic mode) — into one tuple and compares it
with the recorded one. ``guard(args, kwargs)`` returns ``(tensors, nodes)`` (as ``flatten``
fills them) when the call's key is the recorded key, and None otherwise (any difference, or any
error while walking: the caller then takes the general path, which decides exactly as before).
A guard only ever accepts a call whose key equals the recorded one; it may reject some calls the
general key would accept (a NaN constant, a torch tensor subclass), which then cost the general
lookup.
"""
from __future__ import annotations

from operator import attrgetter
from typing import Callable

import torch

from ..autodiff import hooks as _hooks
from ..autodiff import recorder as _recorder
from ..autodiff.graph import Node
from ..module.module import Module
from ..module.param import Param, TrainingFlag
from ..ops import tuning as _tuning
from ..tensor import Tensor
from ..optim.base import ModuleOptimizer
from ..optim.flat import FlatStates
from ._inputs import (is_constant, is_named_tuple, record_attributes, record_slots, settings,
                      walk)

_deterministic = torch.are_deterministic_algorithms_enabled

_TorchTensor = torch.Tensor


class _NoGuard(Exception):
    """The recorded call has a structure the guard generator does not handle."""


class _Builder:
    """Walks the recorded call; collects unpacking lines, checked expressions and their values.

    Public Tensors are gathered into one list ``ts`` (a list or tuple holding only Tensors is
    spliced in whole, after a length check) whose key fields are read with C-level getters
    mapped over it; torch tensors and plain values are checked one by one."""

    def __init__(self) -> None:
        self.lines: list[str] = []      # structure checks and unpacking, in walk order
        self.exprs: list[str] = []      # expressions whose tuple must equal ``expected``
        self.expected: list = []
        self.consts: dict = {}
        self.ids: dict = {}             # id(storage) -> input index
        self.inputs: list[str] = []     # per input index: its storage expression
        self.nodes: list[str] = []      # per input index: its node expression
        self.ts: list[str] = []         # the items of the ``ts`` list (``name`` or ``*name``)
        self.public: list = []          # the recorded public Tensors, in ``ts`` order
        self.n_locals = 0
        self.optimizers: list = []      # (expression, optimizer) of each optimizer argument
        self.param_ids = False          # whether Params' ids are checked (with an optimizer)

    def local(self) -> str:
        self.n_locals += 1
        return f"a{self.n_locals}"

    def const(self, value) -> str:
        name = f"K{len(self.consts)}"
        self.consts[name] = value
        return name

    def check(self, expr: str, value) -> None:
        self.exprs.append(expr)
        self.expected.append(value)

    def walk(self, name: str, value) -> None:
        cls = value.__class__
        if cls is Tensor:
            self.ts.append(name)
            self.tensor(value)
        elif isinstance(value, _TorchTensor):
            self.torch_tensor(name, value)
        elif cls is tuple or cls is list or is_named_tuple(cls):
            self.lines.append(f"if {name}.__class__ is not {self.const(cls)}: return None")
            if value and all(v.__class__ is Tensor for v in value):
                self.lines.append(f"if len({name}) != {len(value)}: return None")
                self.ts.append(f"*{name}")
                for v in value:
                    self.tensor(v)
                return
            parts = [self.local() for _ in value]
            if parts:    # a length mismatch raises ValueError: the guard answers None
                self.lines.append(f"{', '.join(parts)}, = {name}")
            else:
                self.lines.append(f"if {name}: return None")
            for part, v in zip(parts, value):
                self.walk(part, v)
        elif cls is dict:
            self.lines.append(f"if {name}.__class__ is not dict: return None")
            self.items(name, value)
        elif is_constant(value):
            self.check(f"{name}.__class__", cls)
            self.check(name, value)
        elif cls is Param:
            self.lines.append(f"if {name}.__class__ is not {self.const(Param)}: return None")
            self.check(f"{name}._active", value._active)
            if self.param_ids:
                self.check(f"{name}._id", value._id)
            part = self.local()
            self.lines.append(f"{part} = {name}._value")
            self.walk(part, value._value)
        elif cls is TrainingFlag:
            self.check(f"{name}.__class__", cls)
            self.check(f"{name}._trainable", value._trainable)
            self.check(f"{name}._training", value._training)
        elif isinstance(value, Module):  # flatten admits only modules with a __dict__
            self.lines.append(f"if {name}.__class__ is not {self.const(cls)}: return None")
            self.items(f"{name}.__dict__", value.__dict__)
        elif cls is ModuleOptimizer:
            self.optimizer(name, value)
        elif record_slots(cls) is not None:   # a record: its attributes, as flatten keys them
            self.lines.append(f"if {name}.__class__ is not {self.const(cls)}: return None")
            attributes = list(record_attributes(value))
            state = getattr(value, "__dict__", None)
            if state.__class__ is dict:
                self.items(f"{name}.__dict__", state)
            elif any(in_dict for in_dict, _, _ in attributes):
                raise _NoGuard(f"a {cls.__name__} with a __dict__ that is not a dict")
            slots = [(k, v) for in_dict, k, v in attributes if not in_dict]
            if len(slots) != len(record_slots(cls) or ()):
                raise _NoGuard(f"a {cls.__name__} with unset slots")
            for k, v in slots:
                part = self.local()
                self.lines.append(f"{part} = {name}.{k}")
                self.walk(part, v)
        else:
            raise _NoGuard(cls.__name__)

    def optimizer(self, name: str, opt: ModuleOptimizer) -> None:
        """An optimizer argument: its rule's class and settings and its clipping (as
        ``flatten`` keys them); its states are walked after the arguments (``states``)."""
        if any(o is opt for _, o in self.optimizers):
            raise _NoGuard("an optimizer passed twice")
        clipping = opt.grad_clipping
        for part in (opt.optim, clipping):
            if part is not None and any(isinstance(v, _TorchTensor)
                                        for v in settings(part).values()):
                raise _NoGuard("an optimizer holding tensors in its settings")
        self.check(f"{name}.__class__", ModuleOptimizer)
        self.check(f"{name}._counts_held", True)
        self.check(f"{name}.optim.__class__", type(opt.optim))
        self.check(f"_settings({name}.optim)", settings(opt.optim))
        self.check(f"{name}.grad_clipping.__class__", type(clipping))
        if clipping is not None:
            self.check(f"_settings({name}.grad_clipping)", settings(clipping))
        self.optimizers.append((name, opt))

    def states(self) -> None:
        """Each optimizer's states and flat batches, in ``optimizer_states``' order."""
        for name, opt in self.optimizers:
            states, flats = self.local(), self.local()
            self.lines.append(f"{states}, {flats} = {name}._states, {name}._flat")
            self.walk(states, opt._states)
            self.lines.append(f"if tuple({flats}) != {self.const(tuple(opt._flat))}: return None")
            batches: dict = {}
            for pid, (kept, j) in opt._flat.items():
                slot = self.local()
                self.lines.append(f"{slot} = {flats}[{self.const(pid)}]")
                self.check(f"{slot}[1]", j)
                batch = batches.get(id(kept))
                if batch is not None:
                    self.check(f"{slot}[0] is {batch}", True)
                    continue
                batch = batches[id(kept)] = self.local()
                self.lines.append(f"{batch} = {slot}[0]")
                self.check(f"{batch}.__class__", FlatStates)
                for field in ("ids", "shapes", "device", "counters"):
                    self.check(f"{batch}.{field}", getattr(kept, field))
                self.walk(f"{batch}.state", kept.state)

    def items(self, name: str, value: dict) -> None:
        """The entries of dict ``value`` (a dict argument, a module's attributes), in order."""
        d = self.local()
        self.lines.append(f"{d} = {name}")
        self.lines.append(f"if tuple({d}) != {self.const(tuple(value))}: return None")
        for k, v in value.items():
            part = self.local()
            self.lines.append(f"{part} = {d}[{self.const(k)}]")
            self.walk(part, v)

    def tensor(self, t) -> None:
        """Public Tensor number ``len(self.public)`` of ``ts`` (its fields are checked in bulk)."""
        p = len(self.public)
        self.public.append(t)
        node = t._node
        if node is not None and not (node.__class__ is Node and node.op is None):
            raise _NoGuard("an input with a recorded graph")
        i = self.ids.get(id(t._data))
        if i is not None:                 # the same storage as an earlier input, same node
            self.check(f"D[{p}] is {self.inputs[i]}", True)
            self.check(f"N[{p}] is {self.nodes[i]}", True)
            return
        self.ids[id(t._data)] = len(self.inputs)
        self.inputs.append(f"D[{p}]")
        self.nodes.append(f"N[{p}]")

    def torch_tensor(self, name: str, t) -> None:
        self.check(f"{name}.__class__", t.__class__)
        i = self.ids.get(id(t))
        if i is not None:
            self.check(f"{name} is {self.inputs[i]}", True)
            return
        self.ids[id(t)] = len(self.inputs)
        self.inputs.append(name)
        self.nodes.append("None")
        self.check(f"{name}.shape", t.shape)
        self.check(f"{name}.stride()", t.stride())
        self.check(f"{name}.dtype", t.dtype)
        self.check(f"{name}.device", t.device)

    def bulk(self) -> None:
        """The checks of every public Tensor's fields, each a list mapped over ``ts``."""
        if not self.public:
            return
        pub = self.public
        self.check("[*map(_cls_ctx, ts)]", [(Tensor, t._ctx) for t in pub])
        self.check("[*map(type, N)]", [type(t._node) for t in pub])
        self.check("[*map(_op_req, filter(None, N))]",
                   [(t._node.op, t._node.requirement) for t in pub if t._node is not None])
        self.check("[*map(_meta, D)]", [(t._data.shape, t._data.dtype, t._data.device) for t in pub])
        self.check("[*map(_stride, D)]", [t._data.stride() for t in pub])


def environment() -> tuple:
    """What a plan depends on beyond its arguments (a part of its key): the recorder's node class
    (debug mode), the registered backward hooks, the autotune generation and torch's
    deterministic mode."""
    return (_recorder.NodeClass, tuple(_hooks.registered), _tuning.generation, _deterministic())


def compile_guard(args: tuple, kwargs: dict, recorded: tuple) -> Callable | None:
    """The guard of the call ``fn(*args, **kwargs)`` recorded under the ``environment``
    ``recorded``, or None when its arguments hold something the generator does not handle (the
    general key is then the only path)."""
    b = _Builder()
    b.param_ids = any(v.__class__ is ModuleOptimizer for _, v in walk(args, kwargs, b.const))
    try:
        parts = [b.local() for _ in args]
        if parts:
            b.lines.append(f"if len(args) != {len(args)}: return None")
            b.lines.append(f"{', '.join(parts)}, = args")
        else:
            b.lines.append("if args: return None")
        for part, v in zip(parts, args):
            b.walk(part, v)
        if kwargs:
            b.walk("kwargs", kwargs)
        else:
            b.lines.append("if kwargs: return None")
        b.states()
    except _NoGuard:
        return None
    b.bulk()
    b.check("_environment()", recorded)
    n = len(b.inputs)
    plain = len(b.public) == n and b.inputs == [f"D[{p}]" for p in range(n)]
    prelude = [f"ts = [{', '.join(b.ts)}]", "D = [*map(_data, ts)]", "N = [*map(_node, ts)]"]
    body = [*b.lines, *(prelude if b.public else []),
            f"if ({''.join(e + ', ' for e in b.exprs)}) != {b.const(tuple(b.expected))}: return None"]
    inputs = "D" if plain else "[" + ", ".join(b.inputs) + "]"
    nodes = "N" if plain else "[" + ", ".join(b.nodes) + "]"
    distinct = [f"if len({{*map(id, t)}}) != {n}: return None"] if n > 1 else []
    code = ("def guard(args, kwargs):\n    try:\n"
            + "".join(f"        {ln}\n" for ln in body)
            + "    except Exception:\n        return None\n"
            + f"    t = {inputs}\n"
            + "".join(f"    {ln}\n" for ln in distinct)
            + f"    return t, {nodes}\n")
    ns = {"_environment": environment, "_settings": settings, "_data": attrgetter("_data"), "_node": attrgetter("_node"),
          "_cls_ctx": attrgetter("__class__", "_ctx"), "_op_req": attrgetter("op", "requirement"),
          "_meta": attrgetter("shape", "dtype", "device"),
          "_stride": _TorchTensor.stride, **b.consts}  # unbound: no bound method per call
    exec(compile(code, "<capture guard>", "exec"), ns)
    guard = ns["guard"]
    guard.source = code
    return guard
