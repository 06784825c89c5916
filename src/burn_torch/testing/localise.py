"""Localising a wrong gradient: the first recorded op whose backward rule disagrees with torch
autograd of its own forward kernel.

[`first_disagreeing_step`][burn_torch.testing.localise.first_disagreeing_step] runs the checked
function once more with every op-table entry's kernel wrapped by a logger that keeps the op, its
input storages, its attrs and the user's source line (as debug mode does,
``burn_torch.autodiff.debug``). Then, op by op in recording order, it compares one vector-Jacobian
product per differentiable op: burn_torch's rule (the op re-applied through the recorder on fresh
leaves, then ``backward``) against ``torch.autograd.grad`` of the kernel (or of its twin in Burn's
table) for a random cotangent. Only runs when a gradient already differs: its cost does not matter
on the passing path.
"""
from __future__ import annotations

import functools
from typing import Callable

import numpy as np
import torch

from ..autodiff.debug import _user_line
from ..autodiff.recorder import apply1, apply2, applyn, wrap
from ..device import Device
from ..ops import OPS
from ..tensor import Tensor
from .burn_rules import oracle_kernels
from .inputs import Input, outputs_of
from .report import difference
from .runs import with_strategy
from ..autodiff.strategy import GradientCheckpointingStrategy

_AD = Device.cpu().autodiff()


class _Call:
    __slots__ = ("op", "args", "line")

    def __init__(self, op, args, line) -> None:
        self.op, self.args, self.line = op, args, line


def _record(fn: Callable, inputs: list[Input]) -> list[_Call]:
    calls: list[_Call] = []
    originals = {name: op.forward for name, op in OPS.items()}

    def logging(op, kernel):
        @functools.wraps(kernel)
        def forward(*args):
            if op.differentiable:
                calls.append(_Call(op, args, _user_line()))
            return kernel(*args)
        return forward

    for name, op in OPS.items():
        op.forward = logging(op, originals[name])
    try:
        inputs = with_strategy(inputs, GradientCheckpointingStrategy.DISABLED)
        outputs_of(fn(*(inp.tensor for inp in inputs)))
    finally:
        for name, kernel in originals.items():
            OPS[name].forward = kernel
    return calls


def _split(call: _Call):
    """(input storages, attrs, how they were passed: 1, 2 or 'n')."""
    op, args = call.op, call.args
    if isinstance(args[0], tuple):
        return list(args[0]), args[1:], "n"
    k = 2 if len(op.inputs) == 2 else 1
    return list(args[:k]), args[k:], k


def _first_output(out):
    return out[0] if isinstance(out, tuple) else out


def _torch_vjp(call, datas, attrs, kind, cotangent_seed):
    kernel = oracle_kernels().get(call.op.name, call.op.forward)
    leaves = [d.detach().clone().requires_grad_(d.is_floating_point()) for d in datas]
    with torch.enable_grad():
        out = _first_output(kernel(tuple(leaves), *attrs) if kind == "n" else kernel(*leaves, *attrs))
    rng = np.random.default_rng(cotangent_seed)
    g = torch.from_numpy(rng.standard_normal(tuple(out.shape))).to(out.dtype)
    wanted = [leaf for leaf in leaves if leaf.requires_grad]
    if not out.requires_grad or not wanted:
        return out, g, [None] * len(leaves)
    found = iter(torch.autograd.grad(out, wanted, g, allow_unused=True))
    return out, g, [next(found) if leaf.requires_grad else None for leaf in leaves]


def _burn_vjp(call, datas, attrs, kind, g):
    leaves = [Tensor.from_data(d.clone(), _AD).require_grad() if d.is_floating_point()
              else wrap(d, None) for d in datas]
    if kind == "n":
        out = applyn(call.op, leaves, attrs)
    elif kind == 2:
        out = apply2(call.op, leaves[0], leaves[1], attrs)
    else:
        out = apply1(call.op, leaves[0], attrs)
    if not out.is_tracked():
        return [None] * len(leaves)
    grads = (out * wrap(g, None)).sum().backward()
    return [leaf.grad(grads) if d.is_floating_point() else None for leaf, d in zip(leaves, datas)]


def _names(op, count: int) -> list[str]:
    if op.variadic or len(op.inputs) != count:
        return [f"{op.inputs[0]}[{i}]" for i in range(count)]
    return list(op.inputs)


def first_disagreeing_step(fn: Callable, inputs: list[Input], weights=None,
                           burn_rules: bool = True) -> str | None:
    """One report line naming the first recorded op (in recording order) whose rule's
    vector-Jacobian product differs from torch autograd's for the same kernel, with its input,
    the worst element, and the user's source line; None when every op agrees (the difference
    is then in the composition: a forward kernel, Burn semantics or the reference itself).
    ``weights`` and ``burn_rules`` are accepted for symmetry with the oracle (the twins of Burn's
    table are always used for the per-op reference)."""
    try:
        calls = _record(fn, inputs)
    except Exception as err:  # the function failed when re-run: nothing to localise
        return f"(localisation skipped: re-running the function raised {type(err).__name__})"
    for step, call in enumerate(calls):
        datas, attrs, kind = _split(call)
        if any(d is None for d in datas):
            continue
        try:
            out, g, ref = _torch_vjp(call, datas, attrs, kind, step)
            got = _burn_vjp(call, datas, attrs, kind, g)
        except Exception:  # an op that cannot be replayed alone (random state, ...)
            continue
        for name, d, b, r in zip(_names(call.op, len(datas)), datas, got, ref):
            if not d.is_floating_point():
                continue
            b = torch.zeros_like(d) if b is None else b.to_torch()
            r = torch.zeros_like(d) if r is None else r
            line = difference(f"input {name!r}", b, r, reference="torch")
            if line is not None:
                return (f"first op whose rule disagrees with torch autograd of its kernel: "
                        f"{call.op.name} (op #{step} recorded at {call.line}): {line}")
    return None
