"""The op table: every operation declared once, with its forward kernel and its backward rules.

An entry (``OpDef``, declared with ``defop``) names

* ``forward``: the torch kernel, called as ``forward(*inputs, *attrs)`` (a variadic op gets its
  inputs as one tuple: ``forward(inputs, *attrs)``). An op with ``residuals`` returns
  ``(output, *residuals)``: extra forward results its rules need (indices, statistics, masks);
* ``inputs``, ``attrs``, ``residuals``: the names of its tensor inputs, of its non-tensor
  arguments and of its extra forward results. A single input name starting with ``*`` declares a
  variadic op (``cat``, ``stack``);
* ``vjp``: one backward rule per input (a vector-Jacobian product), ``None`` for an input that
  never gets a gradient. A rule is ``vjp(fn, *needs)``: ``fn(g, s)`` returns the gradient for
  its input **in the output's (broadcast) shape and dtype** (or already in the input's), or
  ``None`` for no gradient; ``s`` is the
  step's saved record, whose fields are the op's attrs (always) and the ``needs`` of its rules,
  read by name (``s.other``, ``s.dim``). A need is an input name, ``<input>_shape`` (the
  input's ``torch.Size``), ``out`` or a residual name. ``PASS`` passes the gradient unchanged;
* ``fused`` (instead of ``vjp``): one rule computing every input's gradient in one kernel call
  (linear, convolutions, attention, normalisations): ``fn(g, s, parents)`` returns one gradient
  (or ``None``) per input, **each already in its input's shape**, and ``parents[i] is None``
  tells which inputs are untracked. ``needs`` then gives, per input, what its gradient needs;
* ``exact``: whether every rule already returns its input's shape and dtype, so the engine need
  not look. Fused entries are exact by default, and so are one-input entries (an elementwise op,
  a reshape, a reduction: their rules see the input's shape), except those whose inputs are
  broadcast or promoted to another dtype (``expand``, ``cast``, ``mask_fill``, ``cat``), declared
  ``exact=False``. Entries with several inputs are not exact by default (their operands
  broadcast). The spec table checks every exact entry's gradients (``tests/spec``);
* ``bound``: MEMORY or COMPUTE. Burn's BALANCED checkpointing recomputes memory-bound outputs in
  backward instead of keeping them. Non-differentiable ops have no bound and no rules.

The engine calls only the rules of tracked inputs, and reduces every gradient of an entry that
is not exact to its input's shape (summing broadcast dimensions) and dtype, once, for every such
op: it looks at a gradient's shape only when its input's shape differs from the output's, and at
its dtype only when its input's dtype differs from the output's. The recorder saves exactly
what the rules of the tracked inputs need: a saver per set of tracked inputs, generated once per
entry. Rules run with torch autograd off and must not mutate ``g`` or anything saved.
"""
from __future__ import annotations

import enum
from collections import namedtuple
from typing import Callable


class Bound(enum.Enum):
    """Whether an op's cost is dominated by memory traffic or by arithmetic."""

    MEMORY = "memory"
    COMPUTE = "compute"


MEMORY = Bound.MEMORY
COMPUTE = Bound.COMPUTE


class Rule:
    """A backward rule for one input: ``fn(g, saved)`` and the names it reads from ``saved``."""

    __slots__ = ("fn", "needs")

    def __init__(self, fn: Callable, needs: tuple) -> None:
        self.fn = fn
        self.needs = needs

    def __repr__(self) -> str:
        return f"vjp({getattr(self.fn, '__name__', self.fn)}, needs={self.needs})"


def vjp(fn: Callable, *needs: str) -> Rule:
    """Declares a backward rule ``fn(g, saved)`` reading ``needs`` (see the module docstring)."""
    return Rule(fn, needs)


def _pass(g, s):
    return g


def no_gradient(g, s):
    """The rule of an input declared ``None`` (never differentiable): no gradient."""
    return None


PASS = Rule(_pass, ())
"""The rule of an input whose gradient is the output's gradient (add, reshape-free copies)."""


class OpDef:
    """One op-table entry (see the module docstring). Read-only once declared.

    ``rules``: per input, the rule's function (``no_gradient`` for an input declared
    ``None``; ``rules`` is None as a whole for fused and non-differentiable ops); ``exact``: see the module docstring; ``needs``: per input, the names its gradient reads; ``differentiable``:
    whether any rule exists; ``Saved``: the record class of its steps' saved values (None when
    its rules read nothing and it has no attrs); ``savers[mask]``: the function that builds that
    record when the inputs in bitmask ``mask`` are tracked (a variadic op: mask 1),
    ``saver(inputs, out, residuals, attrs) -> Saved``, or None when nothing is saved.
    """

    __slots__ = ("name", "forward", "bound", "inputs", "attrs", "residuals", "variadic",
                 "rules", "fused", "exact", "needs", "differentiable", "Saved", "_fields", "savers")

    def __init__(self, name: str, forward: Callable, bound: Bound | None = None, *,
                 inputs: tuple = ("x",), attrs: tuple = (), residuals: tuple = (),
                 vjp: tuple | None = None, fused: Callable | None = None,
                 needs: tuple | None = None, exact: bool | None = None) -> None:
        inputs = tuple(inputs)
        self.name = name
        self.forward = forward
        self.bound = bound
        self.variadic = len(inputs) == 1 and inputs[0].startswith("*")
        self.inputs = (inputs[0][1:],) if self.variadic else inputs
        self.attrs = tuple(attrs)
        self.residuals = tuple(residuals)
        self.fused = fused
        if vjp is not None and fused is not None:
            raise ValueError(f"op {name!r}: declare per-input vjp rules or one fused rule, not both")
        if vjp is not None:
            if len(vjp) != len(self.inputs):
                raise ValueError(f"op {name!r}: {len(vjp)} vjp rules for inputs {self.inputs}")
            self.rules: tuple | None = tuple(no_gradient if r is None else r.fn for r in vjp)
            self.needs = tuple(() if r is None else r.needs for r in vjp)
        else:
            self.rules = None
            self.needs = tuple(tuple(n) for n in needs) if needs is not None else ((),) * len(self.inputs)
        self.differentiable = vjp is not None or fused is not None
        if exact is None:
            exact = fused is not None or (len(self.inputs) == 1 and not self.variadic)
        self.exact = exact
        if self.differentiable and bound is None:
            raise ValueError(f"op {name!r}: a differentiable op must say whether it is "
                             "MEMORY- or COMPUTE-bound")
        if not self.differentiable and bound is not None:
            raise ValueError(f"op {name!r}: a non-differentiable op has no bound")
        known = set(self.inputs) | {f"{i}_shape" for i in self.inputs} | {"out"} | set(self.residuals)
        fields = list(self.attrs)
        for names in self.needs:
            for n in names:
                if n not in known:
                    raise ValueError(f"op {name!r}: a rule needs {n!r}, which is not an input, "
                                     f"an input shape, 'out' or a residual of the op")
                if n not in fields:
                    fields.append(n)
        self._fields = tuple(fields)
        self.Saved = _record_class(name, self._fields) if fields else None
        masks = 2 if self.variadic else 1 << len(self.inputs)
        self.savers = tuple(None if m == 0 else self._make_saver(m) for m in range(masks)) \
            if self.differentiable else None

    def _make_saver(self, mask: int):
        tracked = [i for i in range(len(self.inputs)) if self.variadic or mask >> i & 1]
        if self.Saved is None or (self.rules is not None and all(
                self.rules[i] in (_pass, no_gradient) for i in tracked)):
            return None  # nothing saved: no record, or rules that read none (PASS)
        wanted: set[str] = set()
        for i in tracked:
            wanted.update(self.needs[i])
        index = {n: i for i, n in enumerate(self.inputs)}
        parts = []
        for field in self._fields[len(self.attrs):]:
            if field not in wanted:
                parts.append("None")
            elif field == "out":
                parts.append("out")
            elif field in index:
                parts.append("inputs" if self.variadic else f"inputs[{index[field]}]")
            elif field.endswith("_shape") and field[:-6] in index:
                parts.append("tuple([t.shape for t in inputs])" if self.variadic
                             else f"inputs[{index[field[:-6]]}].shape")
            else:
                parts.append(f"residuals[{self.residuals.index(field)}]")
        # the attrs lead the record: the attrs tuple, extended by what the rules need
        needed = f"({', '.join(parts)},)" if parts else None
        record = "attrs" if needed is None else f"attrs + {needed}" if self.attrs else needed
        src = (f"def save(inputs, out, residuals, attrs):\n"
               f"    return _new(Saved, {record})\n")
        scope = {"_new": tuple.__new__, "Saved": self.Saved}
        exec(compile(src, f"<saver of {self.name}>", "exec"), scope)
        return scope["save"]

    def __repr__(self) -> str:
        kind = f"{self.bound.value}-bound" if self.bound is not None else "not differentiable"
        return f"OpDef({self.name}, {kind})"


def _record_class(op_name: str, fields: tuple) -> type:
    """The saved-record class of an op: a namedtuple, built by savers with ``tuple.__new__``."""
    return namedtuple(f"{op_name}_saved", fields)


OPS: dict[str, OpDef] = {}


def defop(name: str, forward: Callable, bound: Bound | None = None, **declaration) -> OpDef:
    """Declares an op in the table and returns its entry (keywords as ``OpDef``).

    Raises ValueError if ``name`` is already declared or the declaration is inconsistent (a rule
    needing a name the op does not have, a differentiable op without a bound, ...).
    """
    if name in OPS:
        raise ValueError(f"op {name!r} is already declared")
    op = OpDef(name, forward, bound, **declaration)
    OPS[name] = op
    return op
