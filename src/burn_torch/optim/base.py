"""Optimizers over modules: a per-tensor rule
([`SimpleOptimizer`][burn_torch.optim.base.SimpleOptimizer]) lifted to a module by
[`ModuleOptimizer`][burn_torch.optim.base.ModuleOptimizer], with optional gradient clipping and a
per-ParamId state record.

Updates run on the storage tensors (plain torch ops, nothing recorded). A step is a
transaction: it computes every parameter's new values and every new state (moments, velocities,
step counts) into new storage, and commits both only when all succeeded. A step that raises
(a bad gradient, a failing kernel, Ctrl-C) leaves the module, the gradients and the optimizer's
state exactly as they were, so retrying it is the same as running it once.

A step walks the module once (a map whose new Params receive their values after the update),
then updates the parameters of each device and dtype together
([`SimpleOptimizer.step_many`][burn_torch.optim.base.SimpleOptimizer.step_many]): the built-in rules
run torch's multi-tensor ``torch._foreach_*`` kernels there, doing the very operations of their
per-tensor ``step``, so results do not depend on the path taken; their small parameters go through
those kernels as flat batches, one tensor each (``optim.flat``).
"""
from __future__ import annotations

import numbers
from typing import Any, Iterator, Mapping, TypeVar

import torch

from ..autodiff.graph import GRAD, new_leaf
from ..autodiff.recorder import wrap
from ..autodiff.distributed_leaf import carry_mark
from ..module import Config, Module, ModuleMapper, Param, ParamId
from ..module.tying import tied_param_error
from ..tensor import Tensor
from .clipping import GradientClipping, GradientClippingConfig
from . import counts, flat
from .grads import GradientsParams, check_gradient

_M = TypeVar("_M", bound=Module)  # step returns the caller's module class

State = dict[str, Any]


class WeightDecayConfig(Config):
    """L2 penalty added to the gradient: ``grad + penalty * param`` (Burn's ``WeightDecayConfig``)."""

    penalty: float


def penalty_of(config: WeightDecayConfig | None) -> float:
    """The penalty of an optional WeightDecayConfig (0.0 for None); TypeError for anything else."""
    if config is None:
        return 0.0
    if not isinstance(config, WeightDecayConfig):
        raise TypeError(f"weight_decay must be a WeightDecayConfig or None, got {config!r}")
    return config.penalty


def clipping_of(config: GradientClippingConfig | None) -> GradientClipping | None:
    if config is None:
        return None
    if not isinstance(config, GradientClippingConfig):
        raise TypeError(f"grad_clipping must be a GradientClippingConfig or None, got {config!r}")
    return config.init()


class SimpleOptimizer:
    """The update rule for one tensor (Burn's ``SimpleOptimizer``).

    ``step(lr, param, grad, state)`` receives storage tensors and the parameter's previous
    state (None on its first step) and returns ``(new_param, new_state)``. It must not mutate
    ``param`` or ``grad``. A rule that also leaves ``state`` untouched (returning a new one)
    sets ``mutates_state = False``, as the built-in rules do; for any other rule
    [`ModuleOptimizer`][burn_torch.optim.base.ModuleOptimizer] hands ``step`` a copy of the state,
    so that a failed step can leave the optimizer as it was.

    [`ModuleOptimizer`][burn_torch.optim.base.ModuleOptimizer] updates the parameters of one device
    and dtype together through [`step_many`][burn_torch.optim.base.SimpleOptimizer.step_many], which
    runs ``step`` on each unless a rule overrides it.
    """

    mutates_state: bool = True
    elementwise: bool = False  # see MultiTensorOptimizer: only step_fused rules may set it
    counters: tuple[str, ...] = ()  # the state entries that count steps (see ``optim.counts``)

    def capture_reason(self) -> str | None:
        """None when this rule's steps can run inside a captured function (``burn_torch.capture``):
        ``step_many`` takes states whose ``counters`` are 0-d tensors (``optim.counts``) and
        reads nothing on the host; else why not (the default: a rule is not capturable)."""
        return f"its {type(self).__name__} rule has no capturable step"

    def step(self, lr: float, param: torch.Tensor, grad: torch.Tensor,
             state: State | None) -> tuple[torch.Tensor, State]:
        raise NotImplementedError

    def step_many(self, lr: float, params: list[torch.Tensor], grads: list[torch.Tensor],
                  states: list[State | None]) -> tuple[list[torch.Tensor], list[State]]:
        """``step`` for several tensors of one device and dtype: the new tensors and states, in order."""
        results = [self.step(lr, p, g, s) for p, g, s in zip(params, grads, states)]
        return [r[0] for r in results], [r[1] for r in results]


class MultiTensorOptimizer(SimpleOptimizer):
    """A rule whose steps from an existing state run on torch's multi-tensor kernels.

    Subclasses write ``step`` (the per-tensor reference, also used for first steps) and
    ``step_fused(lr, params, grads, states)``: the same update for several tensors whose states
    are all [`fusable`][burn_torch.optim.base.MultiTensorOptimizer.fusable], with
    ``torch._foreach_*`` kernels doing the very operations ``step`` does, so both give the same
    values.

    A rule whose ``step_fused`` is ``elementwise`` (every entry of its results depends only on
    the same entry of the parameter, the gradient and the state's tensors, and on the state's
    numbers) sets ``elementwise = True``: [`ModuleOptimizer`][burn_torch.optim.base.ModuleOptimizer]
    then updates its small parameters as flat batches (see ``burn_torch.optim.flat``), unless it
    ``mutates_state``.
    """

    def fusable(self, state: State | None) -> bool:
        """Whether ``step_fused`` handles a parameter with this state (by default: a non-empty
        state, i.e. any step but the first)."""
        return bool(state)

    def step_fused(self, lr: float, params: list[torch.Tensor], grads: list[torch.Tensor],
                   states: list[State]) -> tuple[list[torch.Tensor], list[State]]:
        raise NotImplementedError

    def step_many(self, lr, params, grads, states):
        """``step_fused`` for the tensors with a fusable state, ``step`` for the others."""
        fusable = [self.fusable(s) for s in states]
        if all(fusable):
            return self.step_fused(lr, params, grads, states)
        fused = [i for i, f in enumerate(fusable) if f]
        rest = [i for i, f in enumerate(fusable) if not f]
        new_params, new_states = [None] * len(params), [None] * len(params)
        for indices, run in ((rest, super().step_many), (fused, self.step_fused)):
            if indices:
                for i, p, s in zip(indices, *run(lr, *_pick(indices, params, grads, states))):
                    new_params[i], new_states[i] = p, s
        return new_params, new_states


def _pick(indices: list[int], *lists: list) -> list[list]:
    return [[items[i] for i in indices] for items in lists]


def _state_on(state: State | None, device: torch.device, counters: tuple) -> State | None:
    """``state`` with its tensors on ``device`` (``state`` itself when they already are), but
    its ``counters``: step counts held as tensors stay on the host (``optim.counts``)."""
    if state is not None:
        for k, v in state.items():
            if isinstance(v, torch.Tensor) and v.device != device and k not in counters:
                return {k: v.to(device) if isinstance(v, torch.Tensor) and k not in counters
                        else v for k, v in state.items()}
    return state


def _copy_state(state: State) -> State:
    return {k: v.clone() if isinstance(v, torch.Tensor) else v for k, v in state.items()}


class OptimizerRecord(Mapping[ParamId, State]):
    """A snapshot of an optimizer's state: ``ParamId -> {name: tensor or number}``. Picklable."""

    __slots__ = ("_states",)

    def __init__(self, states: Mapping[ParamId, State]) -> None:
        self._states = {pid: _copy_state(s) for pid, s in states.items()}

    def __getitem__(self, id: ParamId) -> State:
        return self._states[id]

    def __iter__(self) -> Iterator[ParamId]:
        return iter(self._states)

    def __len__(self) -> int:
        return len(self._states)

    def __repr__(self) -> str:
        return f"OptimizerRecord({len(self._states)} parameters)"


class _Gather(ModuleMapper):
    """The mapping half of a step: each Float parameter with a gradient becomes a new Param.

    The new Params (same id and trainability) get their values only once the whole step has
    succeeded (``ModuleOptimizer._update``); the mapped module is not handed out before
    then. Nothing is checked here beyond what the walk sees cheaply: the first parameter whose
    gradient does not fit it ([`check_gradient`][burn_torch.optim.grads.check_gradient]) and the
    first ParamId met twice are kept in ``bad`` / ``tied`` for
    [`ModuleOptimizer.step`][burn_torch.optim.base.ModuleOptimizer.step] to report.
    """

    def __init__(self, grads: dict[ParamId, torch.Tensor]) -> None:
        self.grads = grads
        self.pending: dict[ParamId, tuple[Param, Tensor, torch.Tensor]] = {}
        self.bad: tuple[Param, torch.Tensor] | None = None
        self.tied: ParamId | None = None

    def map_float(self, param: Param) -> Param:
        pid = param._id
        grad = self.grads.get(pid)
        if grad is None:
            return param
        pending = self.pending
        if pid in pending:
            self.tied = self.tied or pid
            return param
        tensor = param._value
        data = tensor._data
        if grad.shape != data.shape or grad.dtype is not data.dtype or grad.device != data.device:
            self.bad = self.bad or (param, grad)
            return param
        new = Param._make(pid, None, param._active)
        pending[pid] = (new, tensor, grad)
        return new


class ModuleOptimizer:
    """An optimizer for modules (Burn's ``OptimizerAdaptor``): ``step(lr, module, grads)``.

    Built by the configs' ``init()``. The step maps every Float parameter that has a gradient in
    ``grads`` (clipping it first, when configured) and returns the updated module; parameters
    keep their ParamIds and trainability, and a ``require_grad()`` leaf stays one (a fresh leaf
    with the new values). Parameters without a gradient are left as they are. The gradients
    used are removed from ``grads``; there is no ``zero_grad``.
    """

    def __init__(self, optim: SimpleOptimizer, grad_clipping: GradientClipping | None = None) -> None:
        self.optim = optim
        self.grad_clipping = grad_clipping
        self._states: dict[ParamId, State] = {}
        self._flat: dict[ParamId, flat.Slot] = {}  # the states kept flat (see optim.flat)
        self._counts_held = False  # step counts held as tensors (see hold_counts)

    def with_grad_clipping(self, clipping: GradientClipping) -> "ModuleOptimizer":
        """This optimizer (same state) with ``clipping`` applied to every gradient."""
        self.grad_clipping = clipping
        return self

    def has_gradient_clipping(self) -> bool:
        return self.grad_clipping is not None

    def hold_counts(self) -> None:
        """From now on keeps the rule's step counts as 0-d int64 CPU tensors (``optim.counts``),
        those of the present state included, so that a captured function stepping this
        optimizer replays one plan at every step count; the values and records stay eager's.
        ``burn_torch.capture`` calls it for an optimizer passed to a captured function. Raises
        ValueError, changing nothing, when the rule's ``capture_reason()`` says it cannot."""
        reason = self.optim.capture_reason()
        if reason is not None:
            raise ValueError(f"this optimizer cannot be captured: {reason}")
        self._counts_held = True
        counters = self.optim.counters
        if not counters:
            return
        made: dict = {}
        self._states = {pid: counts.held(s, counters, made) if s else s
                        for pid, s in self._states.items()}
        rebuilt: dict = {}
        for pid, (kept, j) in self._flat.items():
            new = rebuilt.get(id(kept))
            if new is None:
                state = counts.held(kept.state, counters, made)
                new = rebuilt[id(kept)] = kept if state is kept.state else flat.FlatStates(
                    kept.ids, kept.shapes, state, kept.device, counters)
            self._flat[pid] = (new, j)

    def step(self, lr: float, module: _M, grads: GradientsParams) -> _M:
        """One update of ``module`` with learning rate ``lr``; returns the updated module.

        A transaction: on any error the module, ``grads`` and this optimizer's state are left
        exactly as they were. Raises TypeError for a non-number ``lr``, a gradient of another
        dtype than its parameter; ValueError for a gradient of another shape or device
        (naming the parameter's path and ParamId); TiedParamError when a parameter with a
        gradient is reachable at two paths of ``module`` (see ``burn_torch.module.tying``).
        """
        if not isinstance(module, Module):
            raise TypeError(f"expected a Module, got {type(module).__name__}")
        if not isinstance(grads, GradientsParams):
            raise TypeError(f"expected GradientsParams (GradientsParams.from_grads(grads, module)), "
                            f"got {type(grads).__name__}")
        if not isinstance(lr, numbers.Real) or isinstance(lr, bool):
            raise TypeError(f"step: the learning rate must be a real number, got {lr!r}")
        gather = _Gather(grads._grads)
        updated = module.map(gather)
        if gather.tied is not None:
            raise tied_param_error("ModuleOptimizer.step", module, gather.tied)
        if gather.bad is not None:
            param, grad = gather.bad
            name = next(n for n, p in module.named_params() if p is param)
            check_gradient("step", name, param.id, param.val().to_torch(), grad)
        self._update(float(lr), list(gather.pending.values()))
        for pid in gather.pending:
            del grads._grads[pid]
        return updated

    def _update(self, lr: float, pending: list[tuple[Param, Tensor, torch.Tensor]]) -> None:
        """Runs the rule on each device-and-dtype group of ``(new Param, tensor, grad)`` entries
        (the small parameters of an ``elementwise`` rule as flat batches, see ``optim.flat``),
        then, only when every group succeeded, commits the new states and gives each new Param
        its value: a ``require_grad()`` leaf when the old one was, still distributed when the
        old one was."""
        groups: dict[tuple[torch.device, torch.dtype], list] = {}
        for entry in pending:
            grad = entry[2]
            groups.setdefault((grad.device, grad.dtype), []).append(entry)
        rule = self.optim
        # a flat batch's state is handed to the rule as it is kept: only for a rule that leaves it be
        elementwise = rule.elementwise and not rule.mutates_state
        commits = []
        with torch.no_grad():
            for (device, _), entries in groups.items():
                grads = [grad for _, _, grad in entries]
                if self.grad_clipping is not None:
                    grads = self.grad_clipping.clip_many(grads)
                params = [tensor._data for _, tensor, _ in entries]
                ids = [new._id for new, _, _ in entries]
                found, rest = (flat.batches(rule, ids, params, self._states, self._flat, device)
                               if elementwise else ([], []))
                if found:
                    values, states = flat.step(rule, lr, ids, params, grads, rest,
                                               self._own([ids[i] for i in rest], device), found,
                                               device)
                else:
                    values, states = rule.step_many(lr, params, grads, self._own(ids, device))
                for (new, tensor, _), value, state in zip(entries, values, states):
                    node = tensor._node
                    leaf = (new_leaf(value.shape, value.dtype)
                            if node is not None and node.requirement == GRAD else None)
                    # a distributed parameter stays marked (same ParamId, sync position, name)
                    value = carry_mark(tensor, wrap(value, tensor._ctx, leaf))
                    commits.append((new, value, state))
        counters = rule.counters if self._counts_held else ()
        made: dict = {}
        for new, value, state in commits:
            pid = new._id
            if counters and state and type(state) is not tuple:  # a first step's int counts
                state = counts.held(state, counters, made)
            if type(state) is tuple:  # a flat batch's slot
                self._flat[pid] = state
                self._states.pop(pid, None)
            else:
                self._states[pid] = state
                self._flat.pop(pid, None)
            new._value = value

    def _own(self, ids: list[ParamId], device: torch.device) -> list[State | None]:
        """The states of parameters ``ids`` for the rule: on ``device``, each its own (a copy
        for a rule that mutates its state)."""
        copy = self.optim.mutates_state
        states, slots = self._states, self._flat
        own = ([flat.state_of(pid, states, slots) for pid in ids] if slots
               else [states.get(pid) for pid in ids])
        counters = self.optim.counters
        return [_state_on(_copy_state(s) if copy and s else s, device, counters) for s in own]

    def _all_states(self) -> dict[ParamId, State]:
        """Every parameter's state (its own part for those kept flat)."""
        states = dict(self._states)
        for pid in self._flat:
            states[pid] = flat.state_of(pid, self._states, self._flat)
        counters = self.optim.counters if self._counts_held else ()
        return {pid: counts.released(s, counters) if counters and s else s
                for pid, s in states.items()}

    def to_record(self) -> OptimizerRecord:
        """A snapshot of the state (later steps do not change it)."""
        return OptimizerRecord(self._all_states())

    def into_record(self) -> OptimizerRecord:
        """Same as [`to_record`][burn_torch.optim.base.ModuleOptimizer.to_record]."""
        return self.to_record()

    def load_record(self, record: OptimizerRecord) -> "ModuleOptimizer":
        """Replaces the state with a copy of ``record``; returns this optimizer."""
        if not isinstance(record, OptimizerRecord):
            raise TypeError(f"expected an OptimizerRecord, got {type(record).__name__}")
        self._states = {pid: _copy_state(s) for pid, s in record.items()}
        self._flat = {}
        if self._counts_held:
            self.hold_counts()
        return self

    def __repr__(self) -> str:
        return (f"ModuleOptimizer({type(self.optim).__name__}, "
                f"{len(self._states) + len(self._flat)} states)")
