"""Running a checked function under Burn semantics: the loss, the backward pass, the per-argument
gradients, and the run under each checkpointing strategy.

The loss is built from the function's Float outputs (``"weighted"``: ``sum_i (out_i * W_i).sum()``
with standard-normal weights drawn from ``numpy.random.default_rng(seed)`` in output order;
``"sum"``: ``sum_i out_i.sum()``; ``"direct"``: the single Float output itself, whose seed is
ones), then ``loss.backward()`` and ``leaf.grad(grads)`` for every leaf argument.
"""
from __future__ import annotations

import functools
from dataclasses import dataclass
from typing import Callable, Sequence

import numpy as np
import torch

from ..autodiff.gradients import Gradients
from ..autodiff.graph import GRAD
from ..autodiff.recorder import wrap
from ..autodiff.strategy import GradientCheckpointingStrategy as Strategy
from ..device import Device
from ..tensor import Tensor
from .inputs import Input, outputs_of
from .report import equal_or_both_nan

LOSSES = ("weighted", "sum", "direct")
BOTH = (Strategy.DISABLED, Strategy.BALANCED)
_DEVICES = {Strategy.DISABLED: Device.cpu().autodiff(),
            Strategy.BALANCED: Device.cpu().autodiff().gradient_checkpointing()}


#: Arguments of at most this many elements are printed in full in a failure report.
SHOWN_ELEMENTS = 64


def _shown(value: torch.Tensor) -> str:
    """An argument's values as a failure report prints them: exactly (each float with the
    digits that read back to it) up to ``SHOWN_ELEMENTS`` elements, else shape and dtype."""
    dtype = str(value.dtype).removeprefix("torch.")
    if value.numel() > SHOWN_ELEMENTS:
        return f"<{dtype} tensor of shape {list(value.shape)}>"
    host = value.detach().cpu()
    array = (host.double() if host.dtype is torch.bfloat16 else host).numpy()
    text = np.array2string(array, separator=", ", floatmode="unique", threshold=SHOWN_ELEMENTS)
    return f"{text} ({dtype})"


class Failures:
    """Collects mismatches; [`raise_if_any`][burn_torch.testing.runs.Failures.raise_if_any] raises
    them as one AssertionError: the title, one line per mismatch, and (given ``inputs`` and their
    ``names``) the arguments' values, so the failing call can be repeated with the title's seed."""

    def __init__(self, title: str, inputs: Sequence[Input] = (), names: Sequence[str] = ()) -> None:
        self.title = title
        self.lines: list[str] = []
        self.inputs, self.names = inputs, names

    def check(self, line: str | None) -> None:
        if line is not None:
            self.lines.append(line)

    def raise_if_any(self, extra: Callable[[], str | None] | None = None) -> None:
        """Raises when any mismatch was found; ``extra`` (called only then) adds a last line."""
        __tracebackhide__ = True
        if self.lines:
            more = extra() if extra is not None else None
            lines = [self.title] + self.lines + ([more] if more else [])
            if self.inputs:
                lines.append("inputs (repeat the call with them and the same seed to reproduce):")
                lines += [f"  {name} = {_shown(inp.storage)}" for inp, name in zip(self.inputs, self.names)]
            raise AssertionError("\n  ".join(lines))


@dataclass
class BurnRun:
    """One run under Burn semantics: outputs, loss weights, per-argument gradient (None for
    constants and unreached leaves)."""

    outputs: list[Tensor]
    weights: list[torch.Tensor | None]
    grads: list[Tensor | None]
    gradients: Gradients | None = None


def loss_weights(outs: Sequence, loss: str, seed: int) -> list[torch.Tensor | None]:
    """Per output (burn_torch Tensors or torch tensors): the loss weight (None for non-Float
    outputs). Raises ValueError for an unknown ``loss`` or a ``"direct"`` loss without exactly
    one Float output."""
    if loss not in LOSSES:
        raise ValueError(f"loss must be one of {LOSSES}, got {loss!r}")
    datas = [o.to_torch() if isinstance(o, Tensor) else o for o in outs]
    specs = tuple((tuple(d.shape), d.dtype, d.device) for d in datas)
    ws = list(_weights(specs, loss, seed))
    floats = sum(w is not None for w in ws)
    if loss == "direct" and floats != 1:
        raise ValueError(f"loss='direct' needs exactly one Float output, got {floats}")
    return ws


@functools.lru_cache(maxsize=256)
def _weights(specs: tuple, loss: str, seed: int) -> tuple:
    """The loss weights per output spec ``(shape, dtype, device)`` (cached: the same for the
    same outputs and seed; never written to)."""
    rng = np.random.default_rng(seed)
    ws: list[torch.Tensor | None] = []
    for shape, dtype, device in specs:
        if not dtype.is_floating_point:
            ws.append(None)
        elif loss == "weighted":
            ws.append(torch.from_numpy(rng.standard_normal(shape)).to(dtype).to(device))
        else:
            ws.append(torch.ones(shape, dtype=dtype, device=device))
    return tuple(ws)


def leaf_ids(root: Tensor | None) -> set[int]:
    """The node ids of the ``require_grad()`` leaves in ``root``'s graph (before backward)."""
    if root is None:
        return set()
    seen, stack, leaves = set(), [root._node], set()
    while stack:
        node = stack.pop()
        if node is None or node.id in seen:
            continue
        seen.add(node.id)
        if node.requirement == GRAD:
            leaves.add(node.id)
        stack.extend(node.parents or ())
    return leaves


def burn_run(fn: Callable, inputs: list[Input], loss: str, seed: int, failures: Failures,
             names: Sequence[str]) -> BurnRun:
    """Runs ``fn`` under Burn semantics (torch autograd enabled, to show burn_torch does not need
    it off) and checks the invariants of its outputs, gradients and Gradients container."""
    with torch.enable_grad():
        outs = outputs_of(fn(*(inp.tensor for inp in inputs)))
    ws = loss_weights(outs, loss, seed)
    root = None
    for i, (o, w) in enumerate(zip(outs, ws)):
        data = o.to_torch()
        if data.requires_grad or data.grad_fn is not None:
            failures.check(f"output {i}: its storage carries a torch autograd graph")
        if o.is_tracked() and not o.is_autodiff():
            failures.check(f"output {i}: tracked without an autodiff association")
        if o.is_require_grad() and not o._node.is_leaf():  # type: ignore[union-attr]  # tracked
            failures.check(f"output {i}: an intermediate that retains its gradient")
        if w is None or not o.is_tracked():
            continue
        term = o if loss == "direct" else (o * wrap(w, None)).sum()
        root = term if root is None else root + term
    leaves = leaf_ids(root)
    grads = root.backward() if root is not None else Gradients()
    per_input: list[Tensor | None] = []
    for inp, name in zip(inputs, names):
        g = inp.tensor.grad(grads)
        if not inp.leaf:
            if g is not None:
                failures.check(f"{name}: a constant got a gradient")
            per_input.append(None)
            continue
        if g is not None and g.is_autodiff():
            failures.check(f"{name}: its gradient carries an autodiff association")
        per_input.append(g)
    strays = set(grads._grads) - leaves
    if strays:
        failures.check(f"the Gradients container holds {len(strays)} gradients of tensors that are "
                       "not require_grad() leaves of the loss's graph")
    return BurnRun(outs, ws, per_input, grads)


def with_strategy(inputs: list[Input], strategy: Strategy) -> list[Input]:
    """The arguments on ``strategy``'s CPU autodiff device: each distinct leaf a new leaf over a
    copy of its values, each autodiff constant moved; a leaf already on that strategy and
    non-autodiff constants are kept as they are."""
    copies: dict[int, Tensor] = {}
    out = []
    for inp in inputs:
        t = inp.tensor
        if t.is_autodiff() and t.gradient_checkpointing_strategy() is not strategy:
            key = id(t)
            if key not in copies:
                data = t.to_torch().clone()
                copies[key] = (Tensor.from_data(data, _DEVICES[strategy]).require_grad() if inp.leaf
                               else wrap(data, strategy))
            out.append(Input(copies[key], inp.leaf))
        else:
            out.append(inp)
    return out


def _same(a, b) -> bool:
    if a is None or b is None:
        return a is None and b is None
    return equal_or_both_nan(a.to_torch(), b.to_torch())


def burn_runs(fn: Callable, inputs: list[Input], loss: str, seed: int, failures: Failures,
              names: Sequence[str], strategies: Sequence[Strategy] = BOTH) -> BurnRun:
    """[`burn_run`][burn_torch.testing.runs.burn_run] under each strategy in ``strategies`` (the
    first one's run is returned; an empty sequence runs the inputs as given). Every further strategy
    must give bit-equal outputs and gradients (NaN equal to NaN), reported per value otherwise."""
    if not strategies:
        return burn_run(fn, inputs, loss, seed, failures, names)
    first = burn_run(fn, with_strategy(inputs, strategies[0]), loss, seed, failures, names)
    for strategy in strategies[1:]:
        other = burn_run(fn, with_strategy(inputs, strategy), loss, seed, failures, names)
        pairs: list[tuple[str, Tensor | None, Tensor | None]] = [
            (f"output {i}", a, b) for i, (a, b) in enumerate(zip(first.outputs, other.outputs))]
        pairs += [(f"gradient of {n}", a, b) for n, a, b in zip(names, first.grads, other.grads)]
        for what, a, b in pairs:
            if not _same(a, b):
                failures.check(f"{what}: {strategy.name} is not bit-equal to {strategies[0].name} "
                               f"(checkpointing recomputes it differently)")
    return first
