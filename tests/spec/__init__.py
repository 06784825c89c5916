"""The op-table spec: one row per op-table entry, run by ``tests/test_op_spec.py``.

A :class:`Row` names an entry of ``burn_torch.ops.OPS``, the public burn_torch call that applies
it, an independent torch reference written with plain torch (the forward Burn specifies; torch
autograd on it gives the reference gradients) and its arguments: :func:`F` float64 leaves
(tracked), :func:`K` float64 constants, :func:`I` Int and :func:`M` Bool constants; anything else
is passed as is. Each row is checked under DISABLED and BALANCED checkpointing:

* the outputs equal the torch reference's (shape and values);
* every leaf's gradient has the leaf's shape and dtype and equals torch autograd's on the
  reference, and (``numeric=True``) a float64 central difference along a random direction;
* BALANCED's outputs and gradients are bit-equal to DISABLED's;
* an entry declared ``exact`` gives every gradient in its input's shape and dtype (checked
  under DISABLED by debug mode's ``ExactnessCheck`` hook; BALANCED runs without hooks, so the
  bit-equality also compares the engine's two paths);
* a non-differentiable op's result is untracked even on tracked inputs.

``broadcast`` lists the operands that broadcast: the row is also run with each of them, in
turn, given every smaller shape that broadcasts to the full one (a missing leading dim, a size-1
first or last dim, the scalar-like ``[1]``).

Rows live in one module per op family (``tests/spec/<family>.py``, a ``ROWS`` list each).
Adding an op is one op-table entry plus one row here.
"""
from __future__ import annotations

import dataclasses
import importlib
from typing import Callable

import numpy as np
import torch

from burn_torch import Device, GradientCheckpointingStrategy, Tensor
from burn_torch.autodiff import hooks
from burn_torch.autodiff.debug import ExactnessCheck

FAMILIES = ("elementwise", "activation", "linalg", "convert", "compare", "shape", "index", "reduce",
            "module", "signal", "norm", "loss", "recurrent")

CPU = Device.cpu()
AD = CPU.autodiff()
CK = AD.gradient_checkpointing()
STRATEGIES = {GradientCheckpointingStrategy.DISABLED: AD, GradientCheckpointingStrategy.BALANCED: CK}


# ==================================================================================== arguments ====
@dataclasses.dataclass(frozen=True)
class Arg:
    """A tensor argument: ``kind`` is ``leaf`` (tracked float64), ``const`` (float64), ``int``
    or ``bool``; values are drawn uniformly from ``[lo, hi)`` (ints: ``[lo, hi]``), moved at
    least ``margin`` away from each point in ``avoid`` (kinks, poles)."""

    kind: str
    shape: tuple
    lo: float = -2.0
    hi: float = 2.0
    avoid: tuple = ()
    margin: float = 0.0

    def with_shape(self, shape) -> "Arg":
        return dataclasses.replace(self, shape=tuple(shape))

    def draw(self, rng: np.random.Generator) -> torch.Tensor:
        if self.kind == "int":
            return torch.from_numpy(rng.integers(int(self.lo), int(self.hi) + 1, self.shape))
        if self.kind == "bool":
            return torch.from_numpy(rng.random(self.shape) < 0.5)
        v = rng.uniform(self.lo, self.hi, self.shape)
        for point in self.avoid:
            near = np.abs(v - point) < self.margin
            v = np.where(near, point + np.where(v >= point, 1, -1) * self.margin * 1.5, v)
        return torch.from_numpy(np.ascontiguousarray(v, dtype=np.float64))

    @property
    def tracked(self) -> bool:
        return self.kind == "leaf"


def F(*shape, lo=-2.0, hi=2.0, avoid=(), margin=0.0) -> Arg:
    """A tracked float64 leaf of ``shape``."""
    return Arg("leaf", shape, lo, hi, tuple(avoid), margin)


def K(*shape, lo=-2.0, hi=2.0, avoid=(), margin=0.0) -> Arg:
    """An untracked float64 constant of ``shape``."""
    return Arg("const", shape, lo, hi, tuple(avoid), margin)


def I(*shape, lo=0, hi=1) -> Arg:  # noqa: E743  (I for Int, as Burn's kinds)
    """An Int constant of ``shape`` with values in ``[lo, hi]``."""
    return Arg("int", shape, lo, hi)


def M(*shape) -> Arg:
    """A Bool constant (a mask) of ``shape``."""
    return Arg("bool", shape)


def NZ(*shape, lo=-2.0, hi=2.0) -> Arg:
    """A tracked float64 leaf with values at least 0.5 away from 0 (divisors, logs of |x|)."""
    return F(*shape, lo=lo, hi=hi, avoid=(0.0,), margin=0.5)


def P(*shape, lo=0.5, hi=2.0) -> Arg:
    """A tracked float64 leaf with positive values (logs, square roots, powers)."""
    return F(*shape, lo=lo, hi=hi)


# ========================================================================================= rows ====
@dataclasses.dataclass
class Row:
    """One spec row (see the module docstring). ``variant`` names rows of the same op apart;
    ``rtol``/``atol`` compare with torch; ``numeric`` turns the finite difference on."""

    op: str
    fn: Callable
    ref: Callable
    args: tuple
    broadcast: tuple = ()
    numeric: bool = True
    variant: str = ""
    rtol: float = 1e-10
    atol: float = 1e-12

    @property
    def id(self) -> str:
        return f"{self.op}[{self.variant}]" if self.variant else self.op

    def cases(self) -> list[tuple[str, tuple]]:
        """``(case id, args)``: the full shapes, then every broadcast variant."""
        cases = [("full", self.args)]
        for i in self.broadcast:
            full = self.args[i].shape
            for shape in smaller_shapes(full):
                args = list(self.args)
                args[i] = args[i].with_shape(shape)
                cases.append((f"arg{i}={list(shape)}", tuple(args)))
        return cases


def smaller_shapes(full: tuple) -> list[tuple]:
    """Shapes other than ``full`` that broadcast to it: a missing leading dim, a size-1 first
    dim, a size-1 last dim, and ``[1]``."""
    out = []
    if len(full) > 1:
        out.append(full[1:])
    if full and full[0] != 1:
        out.append((1,) + full[1:])
    if full and full[-1] != 1 and len(full) > 1:
        out.append(full[:-1] + (1,))
    if full != (1,):
        out.append((1,))
    unique = []
    for s in out:
        if s not in unique:
            unique.append(s)
    return unique


def all_rows() -> list[Row]:
    rows = []
    for family in FAMILIES:
        rows.extend(importlib.import_module(f"spec.{family}").ROWS)
    return rows


# ======================================================================================= checks ====
def _outputs(x) -> tuple:
    return x if isinstance(x, (tuple, list)) else (x,)


def _burn_value(arg: Arg, value: torch.Tensor, device: Device):
    t = Tensor.from_data(value.clone(), device)
    return t.require_grad() if arg.tracked else t


def _run_burn(row: Row, args, values, device: Device, weights):
    """Runs ``row.fn`` on ``device``; returns (outputs as torch tensors, the output Tensors,
    {leaf index: gradient or None} when any output is tracked)."""
    inputs = [_burn_value(a, v, device) if isinstance(a, Arg) else a for a, v in zip(args, values)]
    outs = _outputs(row.fn(*inputs))
    loss = None
    for o, w in zip(outs, weights):
        if w is not None and o.is_tracked():
            term = (o * Tensor.from_data(w, device)).sum()
            loss = term if loss is None else loss + term
    grads = None
    if loss is not None:
        gs = loss.backward()
        grads = {i: inputs[i].grad(gs) for i, a in enumerate(args) if isinstance(a, Arg) and a.tracked}
    return [o.to_torch() for o in outs], outs, grads


def _loss(fn, args, values, weights, device: Device) -> float:
    inputs = [Tensor.from_data(v.clone(), device) if isinstance(a, Arg) else a
              for a, v in zip(args, values)]
    total = 0.0
    for o, w in zip(_outputs(fn(*inputs)), weights):
        if w is not None:
            total += float((o.to_torch().double() * w).sum())
    return total


def _close(what: str, got: torch.Tensor, want: torch.Tensor, rtol: float, atol: float) -> None:
    assert list(got.shape) == list(want.shape), f"{what}: shape {list(got.shape)}, torch {list(want.shape)}"
    if got.dtype == torch.bool or not got.is_floating_point():
        assert torch.equal(got.to(want.dtype), want), f"{what}: {got} != torch {want}"
        return
    ok = torch.isclose(got.double(), want.double(), rtol=rtol, atol=atol, equal_nan=True)
    if not bool(ok.all()):
        bad = (~ok).nonzero()[0].tolist()
        raise AssertionError(f"{what}: differs from torch at {bad}: {got[tuple(bad)].item()!r} "
                             f"vs {want[tuple(bad)].item()!r} (max abs diff "
                             f"{(got.double() - want.double()).abs().max().item():.3g})")


def check(row: Row, args: tuple, seed: int, differentiable: bool) -> None:
    """Runs every check of the module docstring on one case; AssertionError names what failed."""
    rng = np.random.default_rng(seed)
    values = [a.draw(rng) if isinstance(a, Arg) else None for a in args]

    # torch: the reference forward, and its gradients under torch autograd
    t_inputs = []
    for a, v in zip(args, values):
        if isinstance(a, Arg):
            t = v.clone()
            if a.tracked and differentiable:
                t.requires_grad_(True)
            t_inputs.append(t)
        else:
            t_inputs.append(a)
    with torch.enable_grad():
        t_outs = _outputs(row.ref(*t_inputs))
    weights = [torch.from_numpy(rng.standard_normal(tuple(o.shape))) if o.is_floating_point() else None
               for o in t_outs]

    results = {}
    for strategy, device in STRATEGIES.items():
        unregister = hooks.register(lambda root, seed: ExactnessCheck()) \
            if strategy is GradientCheckpointingStrategy.DISABLED else None
        try:
            outs, tensors, grads = _run_burn(row, args, values, device, weights)
        finally:
            if unregister is not None:
                unregister()
        assert len(outs) == len(t_outs), f"{len(outs)} outputs, torch reference {len(t_outs)}"
        for k, (o, t) in enumerate(zip(outs, t_outs)):
            _close(f"{strategy.name} output {k}", o, t.detach(), row.rtol, row.atol)
        if not differentiable:
            assert not any(t.is_tracked() for t in tensors), f"{row.op} is not differentiable: " \
                "its result must be untracked"
        results[strategy] = (outs, grads)
    if not differentiable:
        return

    disabled, balanced = results[GradientCheckpointingStrategy.DISABLED], results[GradientCheckpointingStrategy.BALANCED]
    grads = disabled[1]
    assert grads is not None, f"{row.op}: no output is tracked"
    leaves = [i for i, a in enumerate(args) if isinstance(a, Arg) and a.tracked]
    t_loss = sum((o * w).sum() for o, w in zip(t_outs, weights) if w is not None and o.requires_grad)
    t_grads = torch.autograd.grad(t_loss, [t_inputs[i] for i in leaves], allow_unused=True)
    for i, t_grad in zip(leaves, t_grads):
        g = grads[i]
        if t_grad is None:
            assert g is None or not bool(g.to_torch().any()), f"gradient of argument {i}: torch has none"
            continue
        assert g is not None, f"gradient of argument {i}: missing (torch has one)"
        gt = g.to_torch()
        assert list(gt.shape) == list(args[i].shape), \
            f"gradient of argument {i} has shape {list(gt.shape)}, its leaf {list(args[i].shape)}"
        assert gt.dtype == values[i].dtype, f"gradient of argument {i} is {gt.dtype}, its leaf {values[i].dtype}"
        _close(f"gradient of argument {i}", gt, t_grad, row.rtol, row.atol)

    # BALANCED is bit-equal to DISABLED
    for k, (a, b) in enumerate(zip(disabled[0], balanced[0])):
        assert torch.equal(a, b), f"BALANCED output {k} differs from DISABLED"
    for i in leaves:
        a, b = disabled[1][i], balanced[1][i]
        assert (a is None) == (b is None), f"BALANCED gradient of argument {i}: present differs"
        if a is not None:
            assert torch.equal(a.to_torch(), b.to_torch()), \
                f"BALANCED gradient of argument {i} differs from DISABLED"

    if row.numeric:
        eps = 1e-6
        direction = {i: torch.from_numpy(rng.standard_normal(tuple(values[i].shape))) for i in leaves}
        plus = [v + eps * direction[i] if i in direction else v for i, v in enumerate(values)]
        minus = [v - eps * direction[i] if i in direction else v for i, v in enumerate(values)]
        numeric = (_loss(row.fn, args, plus, weights, CPU) - _loss(row.fn, args, minus, weights, CPU)) / (2 * eps)
        analytic = sum(float((grads[i].to_torch() * direction[i]).sum()) for i in leaves
                       if grads[i] is not None)
        scale = max(1.0, abs(numeric), abs(analytic))
        assert abs(numeric - analytic) <= 1e-5 * scale, \
            f"finite difference {numeric!r} vs gradient {analytic!r} along a random direction"

