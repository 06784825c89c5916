"""RMSProp (Burn's ``RmsProp``).

``g = grad + penalty * param``; ``s = alpha * s + (1 - alpha) * g^2``; centered: also
``a = alpha * a + (1 - alpha) * g`` and ``s - a^2`` replaces ``s`` below;
``u = g / (sqrt(s) + eps)``; with ``momentum > 0``: ``b = momentum * b + u`` (``b = u`` first)
and ``u = b``; ``param - lr * u``. This is ``torch.optim.RMSprop``'s update; Burn's defaults
differ: ``momentum`` 0.9 (torch 0), ``epsilon`` 1e-5 (torch 1e-8).
"""
from __future__ import annotations

import torch

from ..module import Config
from .base import ModuleOptimizer, MultiTensorOptimizer, WeightDecayConfig, clipping_of, penalty_of
from .clipping import GradientClippingConfig


class RmsProp(MultiTensorOptimizer):
    """The RMSProp update rule (see the module docstring)."""

    mutates_state = False
    elementwise = True

    def capture_reason(self) -> str | None:
        return None  # no step count: every number of a step is the rule's configuration

    def __init__(self, alpha: float, momentum: float, epsilon: float, centered: bool,
                 weight_decay: float) -> None:
        self.alpha, self.momentum, self.epsilon = float(alpha), float(momentum), float(epsilon)
        self.centered = bool(centered)
        self.weight_decay = float(weight_decay)

    def step(self, lr, param, grad, state):
        a = self.alpha
        if self.weight_decay:
            grad = grad.add(param, alpha=self.weight_decay)
        old = state
        if not old:
            state = {"square_avg": grad.square().mul_(1.0 - a)}
            if self.centered:
                state["grad_avg"] = grad * (1.0 - a)
        else:
            state = {"square_avg": old["square_avg"].mul(a).addcmul_(grad, grad, value=1.0 - a)}
            if self.centered:
                state["grad_avg"] = old["grad_avg"].mul(a).add_(grad, alpha=1.0 - a)
        avg = state["square_avg"]
        if self.centered:
            avg = avg.addcmul(state["grad_avg"], state["grad_avg"], value=-1.0)
        update = grad / avg.sqrt().add_(self.epsilon)
        if self.momentum > 0.0:
            buf = (old or {}).get("momentum_buffer")
            buf = update if buf is None else buf.mul(self.momentum).add_(update)
            update = state["momentum_buffer"] = buf
        return param.add(update, alpha=-lr), state

    def fusable(self, state):
        return bool(state) and (self.momentum <= 0.0 or "momentum_buffer" in state)

    def step_fused(self, lr, params, grads, states):
        a = self.alpha
        if self.weight_decay:
            grads = torch._foreach_add(grads, params, alpha=self.weight_decay)
        square_avg = torch._foreach_mul([s["square_avg"] for s in states], a)
        torch._foreach_addcmul_(square_avg, grads, grads, value=1.0 - a)
        new_states = [{"square_avg": v} for v in square_avg]
        avg = square_avg
        if self.centered:
            grad_avg = torch._foreach_mul([s["grad_avg"] for s in states], a)
            torch._foreach_add_(grad_avg, grads, alpha=1.0 - a)
            for state, g in zip(new_states, grad_avg):
                state["grad_avg"] = g
            avg = torch._foreach_addcmul(avg, grad_avg, grad_avg, value=-1.0)
        denominator = torch._foreach_sqrt(avg)
        torch._foreach_add_(denominator, self.epsilon)
        update = torch._foreach_div(grads, denominator)
        if self.momentum > 0.0:
            buffers = torch._foreach_mul([s["momentum_buffer"] for s in states], self.momentum)
            torch._foreach_add_(buffers, update)
            for state, b in zip(new_states, buffers):
                state["momentum_buffer"] = b
            update = buffers
        return torch._foreach_add(params, update, alpha=-lr), new_states


class RmsPropConfig(Config):
    """Configuration of [`RmsProp`][burn_torch.optim.rmsprop.RmsProp] (Burn's defaults)."""

    alpha: float = 0.99
    momentum: float = 0.9
    epsilon: float = 1e-5
    centered: bool = False
    weight_decay: WeightDecayConfig | None = None
    grad_clipping: GradientClippingConfig | None = None

    def build(self) -> RmsProp:
        return RmsProp(self.alpha, self.momentum, self.epsilon, self.centered,
                       penalty_of(self.weight_decay))

    def init(self) -> ModuleOptimizer:
        return ModuleOptimizer(self.build(), clipping_of(self.grad_clipping))
