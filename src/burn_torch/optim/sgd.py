"""Stochastic gradient descent with optional momentum and weight decay (Burn's ``Sgd``).

Update: ``g = grad + penalty * param``; with momentum ``v = g`` on the first step, then
``v = momentum * v + (1 - dampening) * g``, and ``g = g + momentum * v`` (Nesterov) or ``v``;
``param - lr * g``. This is ``torch.optim.SGD``'s update; Burn's defaults differ: dampening 0.1
(torch 0), and Nesterov with dampening is allowed (torch raises).
"""
from __future__ import annotations

import torch

from ..module import Config
from .base import ModuleOptimizer, MultiTensorOptimizer, WeightDecayConfig, clipping_of, penalty_of
from .clipping import GradientClippingConfig


class MomentumConfig(Config):
    """Momentum of [`Sgd`][burn_torch.optim.sgd.Sgd] (Burn's defaults)."""

    momentum: float = 0.9
    dampening: float = 0.1
    nesterov: bool = False


class Sgd(MultiTensorOptimizer):
    """The SGD update rule (see the module docstring)."""

    mutates_state = False
    elementwise = True

    def capture_reason(self) -> str | None:
        return None  # no step count: every number of a step is the rule's configuration

    def __init__(self, momentum: MomentumConfig | None = None, weight_decay: float = 0.0) -> None:
        if momentum is not None and not isinstance(momentum, MomentumConfig):
            raise TypeError(f"momentum must be a MomentumConfig or None, got {momentum!r}")
        self.momentum = momentum
        self.weight_decay = float(weight_decay)

    def step(self, lr, param, grad, state):
        if self.weight_decay:
            grad = grad.add(param, alpha=self.weight_decay)
        m = self.momentum
        if m is None:
            return param.add(grad, alpha=-lr), {}
        if state:
            velocity = state["velocity"].mul(m.momentum).add_(grad, alpha=1.0 - m.dampening)
        else:
            velocity = grad.clone()
        update = grad.add(velocity, alpha=m.momentum) if m.nesterov else velocity
        return param.add(update, alpha=-lr), {"velocity": velocity}

    def fusable(self, state):
        return self.momentum is None or bool(state)

    def step_fused(self, lr, params, grads, states):
        if self.weight_decay:
            grads = torch._foreach_add(grads, params, alpha=self.weight_decay)
        m = self.momentum
        if m is None:
            return torch._foreach_add(params, grads, alpha=-lr), [{} for _ in params]
        velocities = torch._foreach_mul([s["velocity"] for s in states], m.momentum)
        torch._foreach_add_(velocities, grads, alpha=1.0 - m.dampening)
        update = torch._foreach_add(grads, velocities, alpha=m.momentum) if m.nesterov else velocities
        return torch._foreach_add(params, update, alpha=-lr), [{"velocity": v} for v in velocities]


class SgdConfig(Config):
    """Configuration of [`Sgd`][burn_torch.optim.sgd.Sgd] (Burn's field names: note
    ``gradient_clipping``)."""

    weight_decay: WeightDecayConfig | None = None
    momentum: MomentumConfig | None = None
    gradient_clipping: GradientClippingConfig | None = None

    def build(self) -> Sgd:
        """The bare update rule."""
        return Sgd(self.momentum, penalty_of(self.weight_decay))

    def init(self) -> ModuleOptimizer:
        """The module optimizer, with the configured gradient clipping."""
        return ModuleOptimizer(self.build(), clipping_of(self.gradient_clipping))
