"""AdaGrad (Burn's ``AdaGrad``).

``g = grad + penalty * param``; ``s = s + g^2`` (from zero); at step ``t`` (from 1) the rate is
``lr / (1 + (t - 1) * lr_decay)``; ``param - rate * g / (sqrt(s) + eps)``. This is
``torch.optim.Adagrad``'s update (``initial_accumulator_value=0``); Burn's ``epsilon`` default
is 1e-5 (torch 1e-10).
"""
from __future__ import annotations

import torch

from ..module import Config
from .base import ModuleOptimizer, MultiTensorOptimizer, WeightDecayConfig, clipping_of, penalty_of
from .clipping import GradientClippingConfig


class AdaGrad(MultiTensorOptimizer):
    """The AdaGrad update rule (see the module docstring)."""

    mutates_state = False
    elementwise = True

    def __init__(self, lr_decay: float, epsilon: float, weight_decay: float) -> None:
        self.lr_decay, self.epsilon = float(lr_decay), float(epsilon)
        self.weight_decay = float(weight_decay)

    def step(self, lr, param, grad, state):
        if self.weight_decay:
            grad = grad.add(param, alpha=self.weight_decay)
        if not state:
            state = {"time": 1, "sum": grad.square()}
        else:
            state = {"time": state["time"] + 1, "sum": state["sum"].addcmul(grad, grad)}
        rate = lr / (1.0 + (state["time"] - 1) * self.lr_decay)
        return param.addcdiv(grad, state["sum"].sqrt().add_(self.epsilon), value=-rate), state

    def step_fused(self, lr, params, grads, states):
        if self.weight_decay:
            grads = torch._foreach_add(grads, params, alpha=self.weight_decay)
        sums = torch._foreach_addcmul([s["sum"] for s in states], grads, grads)
        times = [s["time"] + 1 for s in states]
        steps = [-(lr / (1.0 + (t - 1) * self.lr_decay)) for t in times]
        denominator = torch._foreach_sqrt(sums)
        torch._foreach_add_(denominator, self.epsilon)
        return (torch._foreach_addcdiv(params, grads, denominator, steps),
                [{"time": t, "sum": total} for t, total in zip(times, sums)])


class AdaGradConfig(Config):
    """Configuration of [`AdaGrad`][burn_torch.optim.adagrad.AdaGrad] (Burn's defaults)."""

    lr_decay: float = 0.0
    epsilon: float = 1e-5
    weight_decay: WeightDecayConfig | None = None
    grad_clipping: GradientClippingConfig | None = None

    def build(self) -> AdaGrad:
        return AdaGrad(self.lr_decay, self.epsilon, penalty_of(self.weight_decay))

    def init(self) -> ModuleOptimizer:
        return ModuleOptimizer(self.build(), clipping_of(self.grad_clipping))
