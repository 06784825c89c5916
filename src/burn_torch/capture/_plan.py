"""A plan: a recording turned into generated Python functions.

``kernels(v0, ..., v{n-1})`` calls the recorded kernels in order on the input storages, each
line one kernel call on locals (no Tensor, no Node, no dispatch through the op table), less what
``_optimize`` shows the result does not need (a loss computed only to seed backward), drops each
intermediate right after its last use (the release points of the eager pass), and returns the
tensors the result is made of. ``build(outs, nodes, ids)`` rebuilds the result ``fn`` returned —
public Tensors, a ``Gradients`` container keyed by the *new* inputs' leaves, a
``GradientsParams`` keyed by the new call's ParamIds (``ids``, read from its arguments),
containers and constants — around those tensors. ``step(nodes, ids, v0, ..., v{n-1})`` is both
in one function (the plain replay: no tuple of outputs in between); the CUDA-graph replay uses
the two halves.
"""
from __future__ import annotations

import copyreg
from typing import Any, Sequence

import torch
from torch.utils._pytree import tree_flatten

from ..autodiff.gradients import Gradients
from ..autodiff.graph import GRAD, Node, new_leaf
from ..module.module import Module
from ..module.param import Param
from ..optim.flat import FlatStates
from ..optim.grads import GradientsParams
from ..tensor import Tensor
from ._inputs import (_VALUES as _PLAIN, is_constant, is_named_tuple, param_id_reader,
                      record_attributes, record_slots, walk)
from ._optimize import _RANDOM, _name, optimize
from ._record import Const, Slot, slot_uses

_TorchTensor = torch.Tensor


class Diverged(Exception):
    """A guard saw another value than the recording: this call must run eagerly."""


def _in_range(indices, dim_size: int) -> bool:
    low, high = torch.aminmax(indices)
    return int(low) >= 0 and int(high) < dim_size


class Unreplayable(Exception):
    """The recorded call's result cannot be rebuilt from its kernels (see the message)."""


def _gradients_params(grads: dict) -> GradientsParams:
    """A GradientsParams holding ``grads`` (ParamId -> storage) as they are."""
    out = GradientsParams()
    out._grads = grads
    return out


def _module(cls: type[Module], attributes: dict) -> Module:
    """A ``cls`` module holding ``attributes``, made as ``Module.map`` copies one."""
    new = cls.__new__(cls)
    new.__dict__.update(attributes)
    return new


def _record(cls: type, attributes: dict, slots: dict) -> object:
    """A new ``cls`` record (see ``_inputs.record_slots``) holding ``attributes`` in its
    ``__dict__`` and ``slots`` in its slots, made as ``copy.copy`` makes one (no ``__init__``;
    a frozen dataclass's ``__setattr__`` is bypassed)."""
    new: Any = object.__new__(cls)
    if attributes:
        new.__dict__.update(attributes)
    for name, value in slots.items():
        object.__setattr__(new, name, value)
    return new


def _consumed(op, shape, dtype) -> Node:
    """A result tensor's node as eager backward leaves it: consumed, its step released."""
    node = Node(op, None, None, shape, dtype)
    node.consumed = True
    return node


class _Source:
    """Collects generated lines and the constants they name."""

    def __init__(self, prefix: str = "c") -> None:
        self.names: dict = {}
        self.consts: list = []
        self.prefix = prefix

    def const(self, value, prefix: str | None = None) -> str:
        key = id(value)
        name = self.names.get(key)
        if name is None:
            name = self.names[key] = f"{prefix or self.prefix}{len(self.consts)}"
            self.consts.append((name, value))
        return name

    def expr(self, t) -> str:
        cls = t.__class__
        if cls is Slot:
            return f"v{t.index}"
        if cls is Const:
            v = t.value
            if v is None or v.__class__ in (bool, int, str):
                return repr(v)
            return self.const(v)
        if cls is tuple:
            return "(" + "".join(self.expr(x) + ", " for x in t) + ")"
        if cls is list:
            return "[" + ", ".join(self.expr(x) for x in t) + "]"
        raise TypeError(f"unexpected template {t!r}")


class ResultTemplate:
    """How ``fn``'s result is made from slots: walks it once at capture time. ``expr`` gives
    the result as an expression over slot locals ``v{s}``, nodes ``n[i]`` and the call's
    ParamIds ``p[i]``, after the statements in ``lines`` (which make its public Tensors).
    ``read_ids``: the reader of the call's ParamIds (``_inputs.param_id_reader``), made when the
    result is keyed by ids, else None."""

    def __init__(self, rec, input_nodes: list, args: tuple, kwargs: dict) -> None:
        self.rec = rec
        self.call = (args, kwargs)
        self.read_ids = None
        self.id_index: dict = {}
        self.node_index = {id(n): i for i, n in enumerate(input_nodes) if n is not None}
        self.leaf_index = {n.id: i for i, n in enumerate(input_nodes) if n is not None}
        self.n_inputs = len(input_nodes)
        self.paths: dict | None = None   # id of an argument's object -> its expression
        self.slots: list[int] = []       # the slots the result reads, each once, in order
        self.lines: list[str] = []
        self.src = _Source("r")

    def tensor_expr(self, data) -> str:
        s = self.rec.slot_of.get(id(data))
        if s is None:
            return self.src.const(data)
        if s not in self.slots:
            self.slots.append(s)
        return f"v{s}"

    def node_expr(self, node, fresh: bool = False) -> str:
        """``node`` as an expression: an input's node, a consumed one, or, when ``fresh`` (its
        tensor was made by the recorded call), a new gradient-retaining leaf."""
        if node is None:
            return "None"
        i = self.node_index.get(id(node))
        if i is not None:
            return f"n[{i}]"
        if fresh and node.__class__ is Node and node.op is None and node.requirement == GRAD:
            return f"_new_leaf({self.src.const(node.shape)}, {self.src.const(node.dtype)})"
        if node.op is not None and node.consumed and node.parents is None:
            return (f"_consumed({self.src.const(node.op)}, {self.src.const(node.shape)}, "
                    f"{self.src.const(node.dtype)})")
        raise Unreplayable("the result holds a tensor whose graph is still live (or a leaf "
                           "not passed as an argument); replay cannot rebuild its graph")

    def keyed(self, grads: dict, index: dict, key: str, missing: str) -> str:
        """A gradient container's dict ``grads`` as an expression: each key, which ``index``
        maps to an input position ``i``, written as ``key.format(i)`` (read from the new call).
        Unreplayable(``missing``) for a key ``index`` lacks."""
        items = []
        for k, g in grads.items():
            i = index.get(k)
            if i is None:
                raise Unreplayable(missing)
            items.append(f"{key.format(i)}: {self.tensor_expr(g)}")
        return "{" + ", ".join(items) + "}"

    def expr(self, value) -> str:
        cls = value.__class__
        if cls is Tensor:           # recorder.wrap, inline
            t = f"t{len(self.lines) // 4}"
            data = self.tensor_expr(value._data)
            made = self.rec.slot_of.get(id(value._data), -1) >= self.n_inputs
            self.lines += [f"{t} = _new(_Tensor)", f"{t}._data = {data}",
                           f"{t}._ctx = {self.src.const(value._ctx)}",
                           f"{t}._node = {self.node_expr(value._node, made)}"]
            return t
        if cls is Gradients:
            return "_Gradients(" + self.keyed(
                value._grads, self.leaf_index, "n[{}].id", "the Gradients hold a leaf that is not "
                "an argument of the captured function; pass the model or its parameters as "
                "arguments") + ")"
        if cls is GradientsParams:
            return "_gradients_params(" + self.keyed(
                value._grads, self.ids(), "p[{}]", "the GradientsParams hold a parameter "
                "that is not in the arguments of the captured function; pass the model as an "
                "argument") + ")"
        if isinstance(value, _TorchTensor):
            return self.tensor_expr(value)
        if cls is tuple:
            return "(" + "".join(self.expr(x) + ", " for x in value) + ")"
        if cls is list:
            return "[" + ", ".join(self.expr(x) for x in value) + "]"
        if cls is dict:
            return "{" + ", ".join(f"{self.src.const(k)}: {self.expr(v)}"
                                   for k, v in value.items()) + "}"
        if value is None or cls in (bool, int, float, str):
            return self.src.const(value)
        path = self.arg_path(value)
        if path is not None:        # an object of the arguments, as it is: the new call's
            return path
        if cls is Param:            # a new Param of an argument's ParamId (an optimizer step)
            i = self.ids().get(value._id)
            if i is None:
                raise Unreplayable("the result holds a Param whose ParamId is not in the "
                                   "arguments of the captured function")
            return f"_param(p[{i}], {self.expr(value._value)}, {value._active!r})"
        if isinstance(value, Module):   # a module mapped by the call (``Module.map``)
            if not cls._copy_by_dict or cls in copyreg.dispatch_table:
                raise Unreplayable(f"the result holds a {cls.__name__} module, whose class "
                                   "copies itself by its own protocol")
            return (f"_module({self.src.const(cls)}, {{"
                    + ", ".join(f"{self.src.const(k)}: {self.expr(v)}"
                                for k, v in value.__dict__.items()) + "})")
        if is_constant(value):
            return self.src.const(value)
        if is_named_tuple(cls):
            return (f"{self.src.const(cls._make)}(("
                    + "".join(self.expr(x) + ", " for x in value) + "))")
        if record_slots(cls) is not None:   # a record made by the call: a new one, as eager's
            items: dict = {True: [], False: []}
            for in_dict, k, v in record_attributes(value):
                items[in_dict].append(f"{self.src.const(k)}: {self.expr(v)}")
            return (f"_record({self.src.const(cls)}, {{{', '.join(items[True])}}}, "
                    f"{{{', '.join(items[False])}}})")
        raise Unreplayable(f"the result holds a {cls.__name__}, which replay cannot rebuild")

    def ids(self) -> dict:
        """ParamId -> its position among the call's ParamIds (``p``), read from the arguments."""
        if self.read_ids is None:
            self.read_ids, ids = param_id_reader(*self.call)
            for i, pid in enumerate(ids):
                self.id_index.setdefault(pid, i)
        return self.id_index

    def arg_path(self, value) -> str | None:
        """The expression reading ``value`` from the new call's arguments when the recorded
        call's arguments hold that very object (a module, a Param, a flag, an optimizer), else
        None."""
        if self.paths is None:
            self.paths = {}
            for expr, v in walk(*self.call, self.src.const):
                if not isinstance(v, _TorchTensor) and v.__class__ not in _PLAIN:
                    self.paths.setdefault(id(v), expr)
        return self.paths.get(id(value))

    def rebind(self, optimizers: Sequence) -> list[str]:
        """The lines that give each optimizer of the new call the state the recorded call left
        in its own: ``optimizers`` holds, per optimizer, ``(optimizer, its states and flat
        slots before the call)``. A state or flat batch the call left as it was is the new
        call's own; new ones are made from the replay's tensors (ParamIds are in the key)."""
        lines = []
        for n, (opt, states_before, flat_before) in enumerate(optimizers):
            path = self.arg_path(opt)
            if path is None:
                raise Unreplayable("the optimizer is not reachable from the arguments")
            c = self.src.const
            lines += [f"o = {path}", "S, F = o._states, o._flat"]
            was = {id(s): pid for pid, s in states_before.items()}
            items = [f"{c(pid)}: " + (f"S[{c(was[id(s)])}]" if id(s) in was else self.state(s))
                     for pid, s in opt._states.items()]
            lines.append("o._states = {" + ", ".join(items) + "}")
            was = {id(kept): pid for pid, (kept, _) in flat_before.items()}
            made: dict = {}
            items = []
            for pid, (kept, j) in opt._flat.items():
                if id(kept) in was:
                    items.append(f"{c(pid)}: F[{c(was[id(kept)])}]")
                    continue
                name = made.get(id(kept))
                if name is None:
                    name = made[id(kept)] = f"b{len(made)}"
                    lines.append(f"{name} = _FlatStates({c(kept.ids)}, {c(kept.shapes)}, "
                                 f"{self.state(kept.state)}, {c(kept.device)}, "
                                 f"{c(kept.counters)})")
                items.append(f"{c(pid)}: ({name}, {j})")
            lines.append("o._flat = {" + ", ".join(items) + "}")
        return lines

    def state(self, state: dict) -> str:
        """An optimizer state (names to tensors and numbers) as a dict expression."""
        return "{" + ", ".join(f"{self.src.const(k)}: {self.expr(v)}"
                               for k, v in state.items()) + "}"


class Plan:
    """A replayable recording. ``run(tensors, nodes, args, kwargs)`` returns what ``fn``
    returned for the call ``fn(*args, **kwargs)`` whose inputs are ``tensors`` (storages, in the
    order of the key) with nodes ``nodes``."""

    def __init__(self, rec, input_nodes: list, result, args: tuple, kwargs: dict,
                 optimizers: Sequence = ()) -> None:
        template = ResultTemplate(rec, input_nodes, args, kwargs)
        body = template.expr(result)
        rebind = template.rebind(optimizers)
        self.read_ids = template.read_ids
        self.signature_entries = rec.entries
        self.out_slots = list(template.slots)
        self.n_inputs = len(input_nodes)
        result_lines = [*template.lines, *rebind, f"return {body}"]
        ns = {"_new": Tensor.__new__, "_Tensor": Tensor, "_Gradients": Gradients,
              "_gradients_params": _gradients_params, "_consumed": _consumed,
              "_new_leaf": new_leaf, "_param": Param._make, "_module": _module, "_record": _record,
              "_FlatStates": FlatStates}
        ns.update(template.src.consts)
        values = {rec.slot_of[id(t)]: t for t in rec.keep if id(t) in rec.slot_of}
        entries, modes = optimize(rec.entries, rec.grad_modes, values, self.n_inputs,
                                  self.out_slots)
        self.entries = entries  # what a replay runs, in order
        # a replay that fails part way (a guard saw another value) runs fn eagerly: the
        # generators its random kernels drew from are put back first, so eager draws as if
        # the replay had not run
        self.generators = _generators(entries)
        self.kernels = self._kernels(entries, modes, self.n_inputs, self.out_slots)
        self.step = self._kernels(entries, modes, self.n_inputs, self.out_slots, result_lines, ns)
        unpack = [f"{''.join(f'v{s}, ' for s in self.out_slots)}= out"] if self.out_slots else []
        code = ("def build(out, n, p, args, kwargs):\n"
                + "".join(f"    {ln}\n" for ln in unpack + result_lines))
        exec(compile(code, "<capture build>", "exec"), ns)
        self.build = ns["build"]
        self.cuda_graph = None

    @staticmethod
    def _kernels(entries, grad_modes: list, n_inputs: int, out_slots: list,
                 result_lines: list | None = None, result_ns: dict | None = None):
        """``kernels`` (the output tensors), or with ``result_lines`` (which build the result
        from the slot locals, ``n`` and ``p``, names from ``result_ns``) ``step``."""
        src = _Source()
        last = {}
        for pos, entry in enumerate(entries):
            used: list = []
            if entry[0] in ("range", "equal"):
                slot_uses(entry[1], used)
            else:
                slot_uses(entry[1], used)
                slot_uses(tuple(entry[2].values()), used)
            for s in used:
                last[s] = pos
        keep = set(out_slots) | set(range(n_inputs))
        lines = []
        mode = None
        for pos, entry in enumerate(entries):
            if grad_modes[pos] != mode:      # the grad mode each call ran under, as eager
                mode = grad_modes[pos]
                lines.append(f"_set_grad({mode})")
            if entry[0] == "range":
                lines.append(f"if not _in_range({src.expr(entry[1])}, {entry[2]!r}): raise _Diverged")
                lines += _dels(last, pos, keep, ())
                continue
            if entry[0] == "equal":
                _, arg, name, value = entry
                lines.append(f"if {src.expr(arg)}.{name}() != {src.const(value)}: raise _Diverged")
                lines += _dels(last, pos, keep, ())
                continue
            func, targs, tkwargs, outs, shape = entry
            call = src.const(getattr(func, "_op", func), "k") + "(" + ", ".join(
                [src.expr(a) for a in targs] + [f"{k}={src.expr(v)}" for k, v in tkwargs.items()]
            ) + ")"
            new = [s for s in outs if s is not None and s >= 0]
            names = ["_" if s is None or s < 0 else f"v{s}" for s in outs]
            if not new:
                lines.append(call)
            elif shape == "single":
                lines.append(f"{names[0]} = {call}")
            elif shape == "seq":
                lines.append(f"{', '.join(names)}, = {call}")
            else:
                lines.append(f"{', '.join(names)}, = _flat({call})")
            lines += _dels(last, pos, keep, new)
        params = [f"v{i}" for i in range(n_inputs)]
        if result_lines is None:
            name, tail = "kernels", []
            lines.append(f"return ({''.join(f'v{s}, ' for s in out_slots)})")
        else:
            name, tail = "step", result_lines
            params[:0] = ["n", "p", "args", "kwargs"]
        # the plain replay dispatches below torch's autograd layer: no input of a replayed
        # kernel requires torch grad, so that layer would only add its per-call cost
        enter, leave = (("    _below = _Below()\n    _below.__enter__()\n",
                         "        _below.__exit__(None, None, None)\n") if name == "step" else ("", ""))
        code = (f"def {name}({', '.join(params)}):\n    _prev = _grad_enabled()\n{enter}    try:\n"
                + "".join(f"        {ln}\n" for ln in lines)
                + f"    finally:\n{leave}        _set_grad(_prev)\n"
                + "".join(f"    {ln}\n" for ln in tail))
        ns = {"_flat": _flat, "_in_range": _in_range, "_Diverged": Diverged,
              "_set_grad": torch._C._set_grad_enabled, "_grad_enabled": torch.is_grad_enabled,
              "_Below": torch._C._AutoDispatchBelowAutograd}
        ns.update(result_ns or {})
        ns.update(src.consts)
        exec(compile(code, f"<capture {name}>", "exec"), ns)
        fn = ns[name]
        fn.source = code
        return fn

    def run(self, tensors: list, nodes: list, args: tuple, kwargs: dict):
        generators = self.generators
        if not generators:
            return self._run(tensors, nodes, args, kwargs)
        states = [g.get_state() for g in generators]
        try:
            return self._run(tensors, nodes, args, kwargs)
        except BaseException:
            for g, state in zip(generators, states):
                g.set_state(state)
            raise

    def _run(self, tensors: list, nodes: list, args: tuple, kwargs: dict):
        ids = None
        if self.read_ids is not None:
            ids = self.read_ids(args, kwargs)
            if len(set(ids)) != len(ids):  # a ParamId twice: eager raises TiedParamError
                raise Diverged
        graph = self.cuda_graph
        if graph is None:
            return self.step(nodes, ids, args, kwargs, *tensors)
        return self.build(graph(tensors), nodes, ids, args, kwargs)


def _generators(entries) -> tuple:
    """The generators the random kernels of ``entries`` draw from: each one given as the
    ``generator`` argument, torch's default ones (CPU, and each CUDA device's once CUDA is
    initialised) for a random kernel given none."""
    found: dict = {}
    for entry in entries:
        if entry[0] in ("range", "equal") or not any(r in _name(entry[0]) for r in _RANDOM):
            continue
        given = entry[2].get("generator")
        value = given.value if given.__class__ is Const else None
        if isinstance(value, torch.Generator):
            found[id(value)] = value
            continue
        defaults = [torch.default_generator]
        if torch.cuda.is_available() and torch.cuda.is_initialized():
            defaults += list(torch.cuda.default_generators)
        for g in defaults:
            found[id(g)] = g
    return tuple(found.values())


def _dels(last: dict, pos: int, keep: set, new: Sequence) -> list:
    """The release line after entry ``pos``: slots it made that nothing reads, and slots it
    read last (never inputs or result slots)."""
    dead = [s for s in new if s not in keep and last.get(s, -1) <= pos]
    dead += [s for s, p in last.items() if p == pos and s not in keep and s not in new]
    return ["del " + ", ".join(f"v{s}" for s in sorted(set(dead)))] if dead else []


def _flat(out):
    """A call's result flattened in the recording's order (nested or named tuples)."""
    return tree_flatten(out)[0]
