"""The independent reference: a burn_torch function (or module) against a torch function (or
``torch.nn.Module``) the user wrote, torch's side under real torch autograd.

What each mode catches:

* [`assert_matches_torch`][burn_torch.testing.reference.assert_matches_torch] /
  [`assert_module_matches_torch`][burn_torch.testing.reference.assert_module_matches_torch] (this
  module) compare with code that shares nothing with burn_torch but the inputs: they catch wrong
  backward rules, wrong forward kernels, wrong Burn semantics (rounding, Int division, a ``[]`` for
  a ``[1]`` shape, which tied index wins) and mistakes in the user's composite (a softmax over the
  wrong dim, a wrong scale, a stray ``detach``), and, with both checkpointing strategies, recompute
  bugs. They need a torch twin of the code under test, and the twin follows torch's rules: where the
  inputs hit a point of Burn's table
  ([`burn_torch.testing.burn_rules`][burn_torch.testing.burn_rules]), write it with ``twins``.
* [`assert_grads_match_torch`][burn_torch.testing.grads.assert_grads_match_torch] (the op-table
  oracle) replays the *same* function through the same kernels under torch autograd: no twin to
  write, Burn's table applied automatically, and it localises the op whose rule is wrong; it checks
  backward rules only (a wrong kernel or a wrong composite passes it).
"""
from __future__ import annotations

import zlib
from typing import Callable, Sequence

import torch

from ..autodiff.strategy import GradientCheckpointingStrategy as Strategy
from ..autodiff.recorder import wrap
from ..module import Module, ModuleMapper
from ..tensor import Tensor
from .grads import GradCheck, is_low_precision, numeric_mismatch
from .inputs import Input, argument_names, prepare_all
from .localise import first_disagreeing_step
from .numeric import FiniteDifferences
from .report import difference, gradient_difference as _grad_line, truth_difference
from .runs import BOTH, Failures, burn_runs
from .threads import one_thread_when_small

__all__ = ["assert_matches_torch", "assert_module_matches_torch"]


def _torch_args(inputs: list[Input], float64: bool = False) -> tuple[list, list]:
    """The torch side's arguments (each distinct leaf one ``requires_grad`` copy; constants as
    copies, float64 where asked) and the leaf copies, per argument (None for constants)."""
    copies: dict[int, torch.Tensor] = {}
    args: list[torch.Tensor] = []
    leaves: list[torch.Tensor | None] = []
    for inp in inputs:
        data = inp.storage.detach()
        if float64 and data.is_floating_point():
            data = data.double()
        if not inp.leaf:
            args.append(data.clone())
            leaves.append(None)
            continue
        key = id(inp.tensor)
        if key not in copies:
            copies[key] = data.clone().requires_grad_(True)
        args.append(copies[key])
        leaves.append(copies[key])
    return args, leaves


def _torch_outputs(result) -> list[torch.Tensor]:
    outs = list(result) if isinstance(result, (tuple, list)) else [result]
    for i, o in enumerate(outs):
        if not isinstance(o, torch.Tensor):
            raise TypeError(f"the torch function must return torch tensors (or a tuple of them); "
                            f"output {i} is {type(o).__name__}")
    return outs


def _torch_run(torch_fn: Callable, inputs: list[Input], weights, float64: bool = False,
               params: Sequence[torch.Tensor] = ()):
    """Runs ``torch_fn`` under torch autograd; returns (outputs, per-argument gradients, per-
    ``params`` gradients), gradients None where the loss does not reach."""
    args, leaves = _torch_args(inputs, float64)
    with torch.enable_grad():
        outs = _torch_outputs(torch_fn(*args))
    root = None
    for o, w in zip(outs, weights):
        if w is None or not o.requires_grad:
            continue
        term = (o * w.to(torch.float64 if float64 else o.dtype)).sum()
        root = term if root is None else root + term
    wanted = [leaf for leaf in leaves if leaf is not None] + list(params)
    found = iter([None] * len(wanted) if root is None or not wanted
                 else torch.autograd.grad(root, wanted, allow_unused=True))
    per_input = [next(found) if leaf is not None else None for leaf in leaves]
    return [o.detach() for o in outs], per_input, list(found)


#: With ``numeric=None``,
#: [`assert_matches_torch`][burn_torch.testing.reference.assert_matches_torch] runs the
#: finite-difference check on one call in this many (chosen by the input values,
#: [`sampled`][burn_torch.testing.reference.sampled]).
NUMERIC_EVERY = 4


def sampled(inputs: list[Input]) -> bool:
    """Whether the values of ``inputs`` are among the one in ``NUMERIC_EVERY`` that get the
    sampled checks: a CRC-32 of their bytes (the same in every process, unlike ``hash``)."""
    crc = 0
    for inp in inputs:
        data = inp.storage
        crc = zlib.crc32(data.detach().cpu().contiguous().view(-1).view(torch.uint8).numpy(),  # type: ignore[arg-type]
                         crc)  # (an ndarray is a buffer; numpy's stubs do not say so)
    return crc % NUMERIC_EVERY == 0


def _out_line(i, o: torch.Tensor, r: torch.Tensor, t, rtol, atol, slack) -> str | None:
    if r.dtype != o.dtype and o.is_floating_point() and r.is_floating_point():
        return f"output {i}: dtype {o.dtype} != torch {r.dtype}"
    line = difference(f"output {i}", o, r, rtol, atol, "torch")
    if line is None or t is None or not o.is_floating_point():
        return line
    return truth_difference(f"output {i}", o, r, t, rtol, atol, slack)


@one_thread_when_small
def assert_matches_torch(burn_fn: Callable, torch_fn: Callable, *inputs,
                         rtol: float | None = None, atol: float | None = None,
                         loss: str = "weighted", seed: int = 0, numeric: bool | None = None,
                         strategies: Sequence[Strategy] = BOTH, slack: float = 2.0,
                         fd: FiniteDifferences | None = None,
                         names: Sequence[str] | None = None, localise: bool = True,
                         jacobian: bool = False) -> GradCheck:
    """Asserts ``burn_fn`` (burn_torch Tensors in, a Tensor or a tuple out) computes what the
    user's ``torch_fn`` (torch tensors in, a torch tensor or tuple out; plain torch,
    ``torch.nn.functional``, a ``torch.nn.Module`` call) computes on the same inputs: every
    output (shape, dtype, values) and every leaf argument's gradient of the same loss (the
    module docstring of [`burn_torch.testing.runs`][burn_torch.testing.runs]), torch's side under
    real torch autograd.

    Inputs are prepared as for
    [`assert_grads_match_torch`][burn_torch.testing.grads.assert_grads_match_torch] (float arrays
    become leaves, [`Const`][burn_torch.testing.inputs.Const] constants). ``burn_fn`` runs under
    each strategy in ``strategies`` (DISABLED and BALANCED; bit-equal results required; ``()`` runs
    the arguments as given). Floats compare within rtol/atol (defaults by dtype), equal infinities
    are equal and NaN positions must match. For float32/float16/bfloat16 inputs ``torch_fn`` also
    runs on float64 copies: a value outside the tolerances passes when burn_torch's worst error
    against that float64 truth is at most ``slack`` times torch's (2 by default: two correct float16
    kernels' rounding errors differ by that much). A gradient one side does not produce is reported
    "missing" (zeros on the other side pass). ``numeric``: the float64 finite-difference check of
    [`numeric_mismatch`][burn_torch.testing.grads.numeric_mismatch] too (the full Jacobian, entry by
    entry, with ``jacobian=True``): ``True`` on every call, ``False`` never, ``None`` (the default)
    on the calls whose input values [`sampled`][burn_torch.testing.reference.sampled] picks, one in
    ``NUMERIC_EVERY``. Against an independent torch twin the finite difference catches a bug only
    when the twin has the same bug (no row of docs/testing-kit-mutations.md needs it), so by default
    it samples: the pick depends on the values alone, so a given input is always checked the same
    way (a hypothesis failure replays and shrinks).

    Reports name arguments by ``burn_fn``'s parameters (or ``names``) and, where a gradient
    differs and ``localise``, the first op whose rule disagrees with torch autograd (when none
    does, the difference is in a forward kernel, in Burn semantics or in the composite).
    Returns a [`GradCheck`][burn_torch.testing.grads.GradCheck]; raises AssertionError listing every
    mismatch, TypeError when ``torch_fn`` returns something other than torch tensors.
    """
    __tracebackhide__ = True  # pytest shows the caller's line, not the kit's
    prepared = prepare_all(inputs)
    labels = argument_names(burn_fn, len(prepared), names)
    failures = Failures(f"burn_torch disagrees with the torch reference (loss={loss!r}, "
                        f"seed={seed}):", prepared, labels)
    run = burn_runs(burn_fn, prepared, loss, seed, failures, labels, strategies)
    ref_outs, ref_grads, _ = _torch_run(torch_fn, prepared, run.weights)
    truth = None
    if is_low_precision(prepared):
        truth = _torch_run(torch_fn, prepared, run.weights, float64=True)
    if len(ref_outs) != len(run.outputs):
        failures.check(f"{len(run.outputs)} outputs, torch's function returned {len(ref_outs)}")
    for i, (o, r) in enumerate(zip(run.outputs, ref_outs)):
        t = truth[0][i] if truth is not None else None
        failures.check(_out_line(i, o.to_torch(), r, t, rtol, atol, slack))
    grad_failed = False
    for i, (inp, g, r) in enumerate(zip(prepared, run.grads, ref_grads)):
        if inp.leaf:
            t = truth[1][i] if truth is not None else None
            if truth is not None and t is None:
                t = torch.zeros_like(inp.storage, dtype=torch.float64)
            line = _grad_line(f"gradient of {labels[i]}", g, r, inp.storage, t, rtol, atol, slack)
            grad_failed |= line is not None
            failures.check(line)
    notes: list[str] = []
    if numeric or (numeric is None and (jacobian or sampled(prepared))):
        failures.check(numeric_mismatch(burn_fn, prepared, run, loss, seed,
                                        fd or FiniteDifferences(), labels, notes, failures, jacobian))
    failures.raise_if_any(
        lambda: first_disagreeing_step(burn_fn, prepared) if grad_failed and localise else None)
    return GradCheck(run.outputs, run.grads, notes)


class _OnStrategy(ModuleMapper):
    """Every float parameter as a fresh leaf (trainable ones require grad) with ``strategy``."""

    def __init__(self, strategy: Strategy) -> None:
        self.strategy = strategy

    def map_float(self, param):
        def fresh(t: Tensor) -> Tensor:
            out = wrap(t.to_torch(), self.strategy)
            return out.require_grad() if t.is_require_grad() else out
        return param.map(fresh)


def _module_on(module: Module, strategy: Strategy) -> Module:
    return module.map(_OnStrategy(strategy))


@one_thread_when_small
def _named(strategy: Strategy | None) -> str:
    return "the module's own strategy" if strategy is None else strategy.name


def assert_module_matches_torch(burn_module: Module, torch_module: torch.nn.Module, *inputs,
                                rtol: float | None = None, atol: float | None = None,
                                loss: str = "weighted", seed: int = 0,
                                strategies: Sequence[Strategy] = BOTH, slack: float = 2.0,
                                load_weights: bool = True) -> GradCheck:
    """Asserts a burn_torch module computes what a ``torch.nn.Module`` computes: with
    ``load_weights`` the torch module's ``state_dict()`` is first loaded into ``burn_module``
    through the state-dict adapters
    ([`burn_torch.interop.load_torch_state_dict`][burn_torch.interop.state_dict.load_torch_state_dict],
    strict), then ``burn_module.forward(*inputs)`` and ``torch_module(*inputs)`` are compared:
    outputs, every leaf input's gradient and every parameter's gradient, the latter mapped to
    torch's names and layouts
    ([`burn_torch.interop.to_torch_layout`][burn_torch.interop.state_dict.to_torch_layout]) and
    reported under torch's parameter names (``encoder.layers.0.linear1.weight``). Runs under each
    strategy in ``strategies`` (the module forked onto each; bit-equal results required), torch in
    its current train/eval mode. Float64 truth for lower precisions as
    [`assert_matches_torch`][burn_torch.testing.reference.assert_matches_torch] (``slack``).

    Returns a [`GradCheck`][burn_torch.testing.grads.GradCheck] (the first strategy's outputs and
    input gradients; parameter gradients are not in it). Raises AssertionError listing every
    mismatch; RecordMismatchError when the weights do not load.
    """
    __tracebackhide__ = True  # pytest shows the caller's line, not the kit's
    from ..interop import load_torch_state_dict, to_torch_layout

    if load_weights:
        burn_module, _ = load_torch_state_dict(burn_module, torch_module.state_dict())
    prepared = prepare_all(inputs)
    labels = argument_names(burn_module.forward, len(prepared))  # type: ignore[attr-defined]  # a model has forward (Module declares none)
    failures = Failures(f"the burn_torch module disagrees with the torch module (loss={loss!r}, "
                        f"seed={seed}):", prepared, labels)
    per_strategy = {}
    for strategy in (strategies or (None,)):
        module = burn_module if strategy is None else _module_on(burn_module, strategy)
        captured: dict[str, Module] = {}

        def burn_fn(*args, _m=module, _c=captured):
            out = _m.forward(*args)
            _c["module"] = _m
            return out

        run = burn_runs(burn_fn, prepared, loss, seed, failures, labels,
                        () if strategy is None else (strategy,))
        per_strategy[strategy] = (run, captured["module"])
    first_strategy = next(iter(per_strategy))
    run, module = per_strategy[first_strategy]
    params = [(n, p) for n, p in torch_module.named_parameters() if p.requires_grad]
    ref_outs, ref_grads, ref_params = _torch_run(torch_module, prepared, run.weights,
                                                 params=[p for _, p in params])
    for i, (o, r) in enumerate(zip(run.outputs, ref_outs)):
        failures.check(_out_line(i, o.to_torch(), r, None, rtol, atol, slack))
    for i, (inp, g, r) in enumerate(zip(prepared, run.grads, ref_grads)):
        if inp.leaf:
            failures.check(_grad_line(f"gradient of {labels[i]}", g, r, inp.storage, None,
                                      rtol, atol, slack))
    layouts = {}
    for strategy, (srun, smodule) in per_strategy.items():
        layouts[strategy] = _param_grads(smodule, srun, to_torch_layout)
    burn_params = layouts[first_strategy]
    for strategy, other in list(layouts.items())[1:]:  # several only when strategies were named
        for name, g in other.items():
            a = burn_params.get(name)
            if (a is None) != (g is None) or (a is not None and not torch.equal(a, g)):
                failures.check(f"gradient of parameter {name}: {_named(strategy)} is not "
                               f"bit-equal to {_named(first_strategy)}")
    for (name, p), r in zip(params, ref_params):
        if name not in burn_params:
            failures.check(f"parameter {name}: no burn_torch parameter maps to it")
            continue
        failures.check(_grad_line(f"gradient of parameter {name}", burn_params[name], r, p.detach(),
                                  None, rtol, atol, slack))
    failures.raise_if_any()
    return GradCheck(run.outputs, run.grads)


def _param_grads(module: Module, run, to_torch_layout) -> dict:
    """The module's parameter gradients from its run's backward, in torch's names and layouts
    (None for a parameter the loss does not reach)."""
    values = {}
    for name, p in module.named_params():
        g = p.val().grad(run.gradients) if run.gradients is not None else None
        values[name] = None if g is None else g.to_torch()
    return to_torch_layout(module, values)
