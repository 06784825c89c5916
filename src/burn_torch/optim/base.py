"""Optimizers over modules: a per-tensor rule (:class:`SimpleOptimizer`) lifted to a module by
:class:`ModuleOptimizer`, with optional gradient clipping and a per-ParamId state record.

Updates run on the storage tensors (plain torch ops, nothing recorded): a step computes each
parameter's new values into new storage, so modules and records taken earlier keep theirs;
only the optimizer's private state (moments, velocities) is updated in place.
"""
from __future__ import annotations

from typing import Any, Iterator, Mapping

import torch

from ..autodiff.record import wrap
from ..module import Config, Module, ModuleMapper, Param, ParamId
from .clipping import GradientClipping, GradientClippingConfig
from .grads import GradientsParams

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
    ``param`` or ``grad``; it owns ``state`` and may update it in place.
    """

    def step(self, lr: float, param: torch.Tensor, grad: torch.Tensor,
             state: State | None) -> tuple[torch.Tensor, State]:
        raise NotImplementedError


def _state_to(state: State, device: torch.device) -> State:
    return {k: v.to(device) if isinstance(v, torch.Tensor) else v for k, v in state.items()}


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


class _StepMapper(ModuleMapper):
    def __init__(self, opt: "ModuleOptimizer", lr: float, grads: GradientsParams) -> None:
        self.opt = opt
        self.lr = lr
        self.grads = grads._grads

    def map_float(self, param: Param) -> Param:
        grad = self.grads.pop(param.id, None)
        if grad is None:
            return param
        tensor = param.val()
        if self.opt.grad_clipping is not None:
            grad = self.opt.grad_clipping.clip(grad)
        state = self.opt._states.pop(param.id, None)
        if state is not None:
            state = _state_to(state, grad.device)
        prev = torch.is_grad_enabled()
        torch.set_grad_enabled(False)
        try:
            new, state = self.opt.optim.step(self.lr, tensor.to_torch(), grad, state)
        finally:
            torch.set_grad_enabled(prev)
        self.opt._states[param.id] = state
        updated = wrap(new, tensor.gradient_checkpointing_strategy())
        if tensor.is_require_grad():
            updated = updated.require_grad()
        return Param._make(param.id, updated, param.is_trainable())


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

    def with_grad_clipping(self, clipping: GradientClipping) -> "ModuleOptimizer":
        """This optimizer (same state) with ``clipping`` applied to every gradient."""
        self.grad_clipping = clipping
        return self

    def has_gradient_clipping(self) -> bool:
        return self.grad_clipping is not None

    def step(self, lr: float, module: Module, grads: GradientsParams) -> Module:
        """One update of ``module`` with learning rate ``lr``; returns the updated module."""
        if not isinstance(module, Module):
            raise TypeError(f"expected a Module, got {type(module).__name__}")
        if not isinstance(grads, GradientsParams):
            raise TypeError(f"expected GradientsParams (GradientsParams.from_grads(grads, module)), "
                            f"got {type(grads).__name__}")
        for name, param in module.named_params():
            grad = grads._grads.get(param.id)
            if grad is not None and grad.shape != param.val().to_torch().shape:
                raise ValueError(f"step: the gradient of {name} has shape {list(grad.shape)}, the "
                                 f"parameter {param.val().dims()}; nothing was updated")
        return module.map(_StepMapper(self, float(lr), grads))

    def to_record(self) -> OptimizerRecord:
        """A snapshot of the state (later steps do not change it)."""
        return OptimizerRecord(self._states)

    def into_record(self) -> OptimizerRecord:
        """Same as :meth:`to_record`."""
        return self.to_record()

    def load_record(self, record: OptimizerRecord) -> "ModuleOptimizer":
        """Replaces the state with a copy of ``record``; returns this optimizer."""
        if not isinstance(record, OptimizerRecord):
            raise TypeError(f"expected an OptimizerRecord, got {type(record).__name__}")
        self._states = {pid: _copy_state(s) for pid, s in record.items()}
        return self

    def __repr__(self) -> str:
        return f"ModuleOptimizer({type(self.optim).__name__}, {len(self._states)} states)"
