"""A fast guard: generated code that checks a call against one recorded key without building it.

:func:`flatten` builds a call's whole key (a nested tuple) and hashes it to find a plan; that is
most of a small step's replay cost. A guard is compiled once per plan from the recorded call's
arguments: it walks exactly that argument structure (container classes and lengths, dict keys),
gathers every input's key fields — per public Tensor its class, shape, strides, dtype, device,
autodiff strategy and graph role; per torch tensor its class, shape, strides, dtype, device; per
plain value its class and value; the aliasing of inputs; debug mode and the registered backward
hooks — into one tuple and compares it with the recorded one. ``guard(args, kwargs)`` returns
``(tensors, nodes)`` (as :func:`flatten` fills them) when the call's key is the recorded key,
and None otherwise (any difference, or any error while walking: the caller then takes the
general path, which decides exactly as before). A guard only ever accepts a call whose key
equals the recorded one; it may reject some calls the general key would accept (a NaN
constant, a torch tensor subclass), which then cost the general lookup.
"""
from __future__ import annotations

import enum
from typing import Callable

import torch

from ..autodiff import hooks as _hooks
from ..autodiff import recorder as _recorder
from ..autodiff.graph import Node
from ..tensor import Tensor
from ._inputs import _VALUES

_TorchTensor = torch.Tensor


class _NoGuard(Exception):
    """The recorded call has a structure the guard generator does not handle."""


class _Builder:
    """Walks the recorded call; collects unpacking lines, checked expressions and their values."""

    def __init__(self) -> None:
        self.lines: list[str] = []      # structure checks and unpacking, in walk order
        self.exprs: list[str] = []      # expressions whose tuple must equal ``expected``
        self.expected: list = []
        self.consts: dict = {}
        self.ids: dict = {}             # id(storage) -> input index
        self.data_names: list[str] = []
        self.node_names: list[str] = []
        self.n_locals = 0

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
            self.tensor(name, value)
        elif isinstance(value, _TorchTensor):
            self.torch_tensor(name, value)
        elif cls is tuple or cls is list:
            self.lines.append(f"if {name}.__class__ is not {self.const(cls)}: return None")
            parts = [self.local() for _ in value]
            if parts:    # a length mismatch raises ValueError: the guard answers None
                self.lines.append(f"{', '.join(parts)}, = {name}")
            else:
                self.lines.append(f"if {name}: return None")
            for part, v in zip(parts, value):
                self.walk(part, v)
        elif cls is dict:
            self.lines.append(f"if {name}.__class__ is not dict: return None")
            keys = tuple(value)
            self.lines.append(f"if tuple({name}) != {self.const(keys)}: return None")
            for k, v in value.items():
                part = self.local()
                self.lines.append(f"{part} = {name}[{self.const(k)}]")
                self.walk(part, v)
        elif cls in _VALUES or isinstance(value, enum.Enum):
            self.check(f"{name}.__class__", cls)
            self.check(name, value)
        else:
            raise _NoGuard(cls.__name__)

    def tensor(self, name: str, t) -> None:
        data, node = t._data, t._node
        self.check(f"{name}.__class__", Tensor)
        self.check(f"{name}._ctx", t._ctx)
        i = self.ids.get(id(data))
        if i is not None:                 # the same storage as an earlier input, same node
            self.check(f"{name}._data is {self.data_names[i]}", True)
            self.check(f"{name}._node is {self.node_names[i]}", True)
            return
        d, n = self.new_input(data)
        self.node_names.append(n)
        self.meta(f"({d} := {name}._data)", d, data)
        if node is None:
            self.check(f"({n} := {name}._node)", None)
        elif node.__class__ is Node and node.op is None:
            self.check(f"({n} := {name}._node).__class__", Node)
            self.check(f"{n}.op", None)
            self.check(f"{n}.requirement", node.requirement)
        else:
            raise _NoGuard("an input with a recorded graph")

    def torch_tensor(self, name: str, t) -> None:
        self.check(f"{name}.__class__", t.__class__)
        i = self.ids.get(id(t))
        if i is not None:
            self.check(f"{name} is {self.data_names[i]}", True)
            return
        d, _ = self.new_input(t)
        self.node_names.append("None")
        self.meta(f"({d} := {name})", d, t)

    def new_input(self, data) -> tuple[str, str]:
        i = self.ids[id(data)] = len(self.data_names)
        self.data_names.append(f"d{i}")
        return f"d{i}", f"n{i}"

    def meta(self, first: str, d: str, data) -> None:
        self.check(f"{first}.shape", data.shape)
        self.check(f"{d}.stride()", data.stride())
        self.check(f"{d}.dtype", data.dtype)
        self.check(f"{d}.device", data.device)


def compile_guard(args: tuple, kwargs: dict, environment: tuple) -> Callable | None:
    """The guard of the call ``fn(*args, **kwargs)`` recorded under ``environment`` (the key's
    ``(NodeClass, registered hooks)``), or None when its arguments hold something the generator
    does not handle (the general key is then the only path)."""
    b = _Builder()
    try:
        b.walk("args", args)
        b.walk("kwargs", kwargs)
    except _NoGuard:
        return None
    node_class, hooks = environment
    b.check("_rec.NodeClass", node_class)
    b.check("_hooks.registered", list(hooks))
    n = len(b.data_names)
    body = [*b.lines,
            f"if ({''.join(e + ', ' for e in b.exprs)}) != {b.const(tuple(b.expected))}: return None"]
    tensors = "[" + ", ".join(b.data_names) + "]"
    nodes = "[" + ", ".join(b.node_names) + "]"
    distinct = [f"if len({{*map(id, t)}}) != {n}: return None"] if n > 1 else []
    code = ("def guard(args, kwargs):\n    try:\n"
            + "".join(f"        {ln}\n" for ln in body)
            + "    except Exception:\n        return None\n"
            + f"    t = {tensors}\n"
            + "".join(f"    {ln}\n" for ln in distinct)
            + f"    return t, {nodes}\n")
    ns = {"_rec": _recorder, "_hooks": _hooks, **b.consts}
    exec(compile(code, "<capture guard>", "exec"), ns)
    guard = ns["guard"]
    guard.source = code
    return guard
