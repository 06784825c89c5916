"""Captured steps: run a function once eagerly while recording its kernels, then replay them.

``step = capture(fn)`` returns a callable. Its first call with given input metadata runs ``fn``
eagerly (forward, ``backward()``, gradient reads, an optimizer update on tensors...) while every
torch kernel it runs is recorded — the forward kernels of the op table, the engine's backward
rules, its unbroadcasting sums and accumulations — together with which earlier result each
kernel reads and where each intermediate is last used. Later calls whose inputs have the same
key (per input tensor: shape, strides, dtype, device, autodiff strategy, untracked or
gradient-retaining leaf; which inputs are the same object; every non-tensor argument; debug
mode, the registered backward hooks, the kernel choices of ``burn_torch.autotune`` and torch's
deterministic mode) *replay* the recording: one generated Python line per
kernel, on the new input values, with no public Tensor, no Node and no op-table dispatch per op,
and return what ``fn`` returned (kernels none of whose results it needs are left out: a loss
computed only to seed backward; random draws and in-place kernels always run) — ``Gradients``
containers keyed by the new call's leaves,
``GradientsParams`` keyed by the ParamIds of the new call's parameters (a plan reads them from
the arguments: the key holds no ids), Tensors, containers. Gradients are bit-equal to eager (the
same kernels on the same values).
A call with a different key records again (up to ``max_plans`` plans are kept, one per key);
a stale plan is never used for a different key. A call is first compared with the plan used
last by that plan's generated guard (``_guard``: the same fields, read in bulk, without building
the key); any difference sends it through the general key lookup.

What replay cannot see (as with CUDA graphs):

- **Python control flow that depends on anything but the key**: a branch on a global, a
  counter, the time. ``fn`` must be a function of its arguments' shapes and values. A draw
  from Python's ``random`` module or numpy's global generator while ``fn`` is recorded (a
  teacher-forcing coin flip) is found out (their states are compared) and makes the function
  unreplayable: every call runs eagerly. Tensor
  values read on the host are *guards*: a read through ``int()``, ``bool()``, ``float()``,
  ``.item()`` or ``.tolist()`` is re-read by the replay, which runs ``fn`` eagerly instead when
  the value differs from the recording's; the index range checks of ``gather``/``select``/
  ``embedding``... re-check the range. Other reads (``.numpy()``, printing a tensor) and calls
  whose result *shape* depends on values (``mask_select``, ``nonzero``) make the function
  unreplayable: every call runs eagerly. ``capture(fn, check_every=N)`` runs every N-th call eagerly again and compares the
  kernels it records with the plan; a difference raises
  [`CaptureDivergenceError`][burn_torch.capture.CaptureDivergenceError] (``on_divergence="raise"``)
  or replaces the plan (``"recapture"``).
- **Tensors ``fn`` reads from outside its arguments** (closures, globals) are constants of the
  plan: pass every value that changes between calls as an argument. A gradient-retaining leaf
  reached by backward that is not an argument makes the function unreplayable.
- **Modules** are arguments like containers: their parameters and tensors are inputs, their
  structure and other fields (numbers, strings, enums, configs, training flags, devices) part
  of the key, so ``grads_of(model, x, y)`` replays for every model an optimizer returns (same
  structure, new weights), and records again for a model of another shape or in another
  training state.
- **Records**, objects of classes written in Python (a batch class, a dataclass, a class with
  ``__slots__``, a named tuple), are arguments and results like containers: an argument's
  attributes (``__dict__``, then slots) are walked as a module's are, its class and attribute
  names part of the key, so a new batch of the same shapes replays; a record ``fn`` returns is
  rebuilt as a new object of its class (no ``__init__`` runs) around the replay's tensors.
  Records compare by their attributes, not their identity. burn_torch's own classes are
  records only where they say so (``ClassificationOutput``, ``RegressionOutput``); a frozen
  dataclass holding no tensor is a constant. Objects of C classes (their state is not in
  attributes: ``functools.partial``, a lock, a function), arguments such as a ``Gradients``
  container, and modules or records holding them run eagerly.
- **Optimizers** (a ``ModuleOptimizer`` of Adam, AdamW, Sgd or RmsProp) are arguments too, so
  a whole training iteration replays, ``model = optimizer.step(lr, model, grads)`` included:
  the rule's class and settings, the gradient clipping, the ParamIds of the arguments' Params
  and the structure of the optimizer's state (which ParamIds have a state, which are kept as
  flat batches) are part of the key, the state's tensors inputs; a replay returns the new
  module (new Params under the call's ParamIds, fresh gradient-retaining leaves) and gives the
  optimizer its new state, as eager's step does. From its first captured call on, the
  optimizer holds its step counts as 0-d tensors
  ([`hold_counts`][burn_torch.optim.base.ModuleOptimizer.hold_counts]; records keep ints), and
  what Adam and AdamW derive from a count is read from a table of eager's own floats
  (``burn_torch.optim.counts``): one plan serves every step count, bit-equal to eager. The
  first iterations record (the state is created by the first and kept flat from the second:
  up to three plans), the later ones replay. The learning rate is a Python number, part of
  the key: each new value records a plan (a schedule that changes it every step records every
  step: slower than eager, never wrong). Other rules (AdaGrad, Adan, Muon, LBFGS...) and Adam
  betas within about 4e-5 of 1 run eagerly, with the reason in ``eager_reason``. Step counts
  stay on the host, so a plan stepping Adam or AdamW on CUDA replays without a CUDA graph.
- **Changes to the arguments** other than through kernels: a forward that updates its
  module's state (``BatchNorm``'s running statistics in training, an attention cache), a list
  ``fn`` appends to. Replay runs the kernels, not the Python assignments, so such a function is
  found out while it is recorded and runs eagerly every call.
- **Results with a live graph** (a tracked tensor returned before its backward ran) cannot be
  replayed: such a function runs eagerly every call.

Errors are eager's: a call that raises while being recorded raises that error and records
nothing; a replay that fails runs ``fn`` eagerly so the caller sees eager's error. Random
kernels draw from the generator as eager does (a replay that fails part way, a guard having
seen another value, puts back the generators its random kernels drew from before ``fn`` runs
eagerly, so the eager run draws what eager draws). On CUDA, a plan whose inputs are all on one CUDA
device is replayed through ``torch.cuda.CUDAGraph`` when ``cuda_graphs`` is true (outputs are
copies; falls back to the plain replay when graph capture fails).
"""
from __future__ import annotations

import threading
from collections import OrderedDict
from typing import Callable

from ..autodiff import hooks as _hooks
from ..errors import AutodiffError
from ._cuda import try_graph
from ._guard import compile_guard, environment
from ._host_random import drew_from_host_random, host_random_state
from ._inputs import OPTIMIZERS, NotReplayable, flatten, optimizer_states
from ._plan import Plan, Unreplayable
from ._record import Recording, signature

__all__ = ["capture", "CapturedStep", "CaptureDivergenceError"]


class CaptureDivergenceError(AutodiffError):
    """An eager check run of a captured step recorded different kernels than its plan."""


class _LeafWatch(_hooks.BackwardHook):
    """During a recording: notes every leaf a backward pass of the recording thread reaches."""

    __slots__ = ("leaves",)

    def __init__(self, leaves: list) -> None:
        self.leaves = leaves

    def check(self, nodes: list) -> None:
        self.leaves.extend(n for n in nodes if n.op is None)


class CapturedStep:
    """The callable [`capture`][burn_torch.capture.capture] returns. ``plans``: how many plans it
    holds; ``eager_reason``: why the last recorded key is not replayed (None when it is), or
    why the last call with arguments a plan cannot stand for (an optimizer whose rule has no
    capturable step...) ran eagerly; ``replayed``: how many calls a plan answered;
    ``recorded``: how many calls were recorded (eager runs that made a plan or found the
    reason not to)."""

    def __init__(self, fn: Callable, check_every: int | None, on_divergence: str,
                 cuda_graphs: bool, max_plans: int) -> None:
        if not callable(fn):
            raise TypeError(f"capture: fn must be callable, got {type(fn).__name__}")
        if check_every is not None and (type(check_every) is not int or check_every < 1):
            raise ValueError(f"capture: check_every must be a positive int or None, got {check_every!r}")
        if on_divergence not in ("raise", "recapture"):
            raise ValueError(f"capture: on_divergence must be 'raise' or 'recapture', got {on_divergence!r}")
        if type(max_plans) is not int or max_plans < 1:
            raise ValueError(f"capture: max_plans must be a positive int, got {max_plans!r}")
        self.fn = fn
        self.check_every = check_every
        self.on_divergence = on_divergence
        self.cuda_graphs = cuda_graphs
        self.max_plans = max_plans
        self._plans: OrderedDict = OrderedDict()
        self._guards: dict = {}         # key -> the compiled fast guard of its plan (or None)
        self._last: tuple | None = None  # (guard, plan, key) of the plan used last
        self._replays = 0
        self.replayed = 0
        self.recorded = 0
        self.eager_reason: str | None = None
        self.__wrapped__ = fn

    @property
    def plans(self) -> int:
        return sum(1 for p in self._plans.values() if isinstance(p, Plan))

    def __call__(self, *args, **kwargs):
        last = self._last
        if last is not None:            # the plan used last first, by its generated guard
            hit = last[0](args, kwargs)
            if hit is not None:
                return self._replay(last[2], last[1], args, kwargs, hit[0], hit[1])
        tensors: list = []
        nodes: list = []
        ids: dict = {}
        try:
            key = (flatten((args, kwargs), tensors, nodes, ids),
                   optimizer_states(ids, tensors, nodes), environment())
        except NotReplayable as e:
            self.eager_reason = str(e)
            return self.fn(*args, **kwargs)
        plan = self._plans.get(key)
        if plan is None:
            return self._record(key, args, kwargs, tensors, nodes, ids.get(OPTIMIZERS, ()))
        if plan.__class__ is str:            # recorded, but not replayable: eager
            return self.fn(*args, **kwargs)
        guard = self._guards.get(key)
        self._last = None if guard is None else (guard, plan, key)
        return self._replay(key, plan, args, kwargs, tensors, nodes, ids.get(OPTIMIZERS, ()))

    def _replay(self, key, plan, args, kwargs, tensors, nodes, optimizers=()):
        self._replays += 1
        if self.check_every is not None and self._replays % self.check_every == 0:
            return self._check(key, plan, args, kwargs, tensors, nodes, optimizers)
        try:
            result = plan.run(tensors, nodes, args, kwargs)
        except Exception:   # a guard saw another value, or a kernel failed: eager decides
            return self.fn(*args, **kwargs)   # (and raises eager's error)
        self.replayed += 1
        return result

    def _recording(self, args, kwargs, key, tensors, nodes, optimizers):
        """Runs ``fn`` eagerly under a recording of the call with ``key`` (the key of its
        arguments) whose arguments hold ``optimizers``; returns (result, Plan or reason
        string)."""
        before = [(o, dict(o._states), dict(o._flat)) for o in optimizers]
        rec = Recording(tensors)
        leaves: list = []
        me = threading.get_ident()
        watch = _LeafWatch(leaves)
        unregister = _hooks.register(
            lambda root, seed: watch if threading.get_ident() == me else None)
        host_random = host_random_state()
        try:
            with rec:
                result = self.fn(*args, **kwargs)
        finally:
            unregister()
        if rec.unreplayable is not None:
            return result, rec.unreplayable
        drew = drew_from_host_random(host_random)
        if drew is not None:
            return result, drew
        if _changed(args, kwargs, key, tensors, nodes):
            return result, ("fn changed its arguments (a module's state, such as BatchNorm's "
                            "running statistics in training, or a container it fills): replay "
                            "runs kernels, not Python assignments")
        known = {id(n) for n in nodes if n is not None}
        if any(id(n) not in known for n in leaves):
            return result, ("backward reached a leaf that is not an argument of the captured "
                            "function; pass the model or its parameters as arguments")
        try:
            plan = Plan(rec, nodes, result, args, kwargs, before)
        except Unreplayable as e:
            return result, str(e)
        plan.signature = signature(rec.entries)
        if self.cuda_graphs:
            plan.cuda_graph, _ = try_graph(plan.kernels, tensors)
        return result, plan

    def _store(self, key, plan, guard) -> None:
        self._plans[key] = plan
        self._plans.move_to_end(key)
        self._guards[key] = None
        while len(self._plans) > self.max_plans:
            self._guards.pop(self._plans.popitem(last=False)[0], None)
        self.eager_reason = plan if plan.__class__ is str else None
        self._last = None
        if plan.__class__ is not str and guard is not None:
            self._guards[key] = guard
            self._last = (guard, plan, key)

    def _record(self, key, args, kwargs, tensors, nodes, optimizers):
        guard = compile_guard(args, kwargs, key[2])   # before fn runs (it may mutate them)
        result, plan = self._recording(args, kwargs, key[0], tensors, nodes, optimizers)
        self.recorded += 1
        self._store(key, plan, guard)
        return result

    def _check(self, key, plan, args, kwargs, tensors, nodes, optimizers):
        guard = compile_guard(args, kwargs, key[2])   # before fn runs (it may mutate them)
        result, fresh = self._recording(args, kwargs, key[0], tensors, nodes, optimizers)
        if fresh.__class__ is str or fresh.signature != plan.signature:
            if self.on_divergence == "raise":
                raise CaptureDivergenceError(
                    "captured step diverged: an eager check run recorded different kernels "
                    "than the plan (fn has Python control flow that the key does not see)"
                    + (f": {fresh}" if fresh.__class__ is str else ""))
            self._store(key, fresh, guard)
        return result


def _changed(args, kwargs, key, tensors: list, nodes: list) -> bool:
    """Whether the arguments of a call recorded with ``key`` (and its inputs ``tensors`` and
    ``nodes``, the arguments' first, then its optimizers' states) no longer have that key or
    those inputs after ``fn`` ran (an optimizer's state may change: the plan rebinds it)."""
    after_tensors: list = []
    after_nodes: list = []
    try:
        after = flatten((args, kwargs), after_tensors, after_nodes, {})
    except NotReplayable:
        return True
    return (after != key or len(after_tensors) > len(tensors)
            or any(a is not b for a, b in zip(after_tensors, tensors))
            or any(a is not b for a, b in zip(after_nodes, nodes)))


def capture(fn: Callable | None = None, *, check_every: int | None = None,
            on_divergence: str = "raise", cuda_graphs: bool = True, max_plans: int = 8):
    """Returns ``fn`` as a [`CapturedStep`][burn_torch.capture.CapturedStep] (see the module
    docstring); usable as a decorator with or without arguments. Raises TypeError when ``fn`` is not
    callable, ValueError for a ``check_every`` that is not a positive int, an ``on_divergence``
    other than ``"raise"``/``"recapture"`` or a ``max_plans`` below 1."""
    if fn is None:
        return lambda f: CapturedStep(f, check_every, on_divergence, cuda_graphs, max_plans)
    return CapturedStep(fn, check_every, on_divergence, cuda_graphs, max_plans)
