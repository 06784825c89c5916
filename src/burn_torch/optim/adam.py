"""Adam and AdamW (Burn's ``Adam`` / ``AdamW``).

Both keep ``m = b1 * m + (1 - b1) * g`` and ``v = b2 * v + (1 - b2) * g^2`` (starting from zero)
and a step count ``t``.

Adam: ``g = grad + penalty * param`` (L2, as ``torch.optim.Adam(weight_decay=)``), optional
AMSGrad ``v_max = max(v_max, v)``, and ``param - lr * m * c / (sqrt(v) + eps * sqrt(1 - b2^t))``
with ``c = sqrt(1 - b2^t) / (1 - b1^t)``: Burn folds the bias corrections into one factor and
scales epsilon by ``sqrt(1 - b2^t)``, which is algebraically torch's
``m_hat / (sqrt(v_hat) + eps)``.

AdamW: decoupled decay ``param * (1 - lr * weight_decay)`` (or, with ``cautious_weight_decay``,
decay only where the parameter and ``m`` have the same sign), then
``- lr * m_hat / (sqrt(v_hat) + eps)``, as ``torch.optim.AdamW``.

Burn's defaults differ from torch's: ``epsilon`` 1e-5 (torch 1e-8), AdamW ``weight_decay``
1e-4 (torch 1e-2). Hyperparameters are Python floats here (Burn stores betas and epsilon as f32).
"""
from __future__ import annotations

import math
from typing import Sequence

import torch

from ..module import Config
from . import counts
from .base import ModuleOptimizer, MultiTensorOptimizer, WeightDecayConfig, clipping_of, penalty_of
from .clipping import GradientClippingConfig


def _moments(b1: float, b2: float, grad: torch.Tensor, state) -> dict:
    """The new first and second moments and step count (a new state; ``state`` is untouched)."""
    if not state:
        return {"time": 1, "moment_1": grad * (1.0 - b1), "moment_2": grad.square().mul_(1.0 - b2)}
    return {"time": state["time"] + 1,
            "moment_1": state["moment_1"].mul(b1).add_(grad, alpha=1.0 - b1),
            "moment_2": state["moment_2"].mul(b2).addcmul_(grad, grad, value=1.0 - b2)}


def _moments_fused(b1: float, b2: float, grads: list, states: list) -> tuple[Sequence, Sequence]:
    """``_moments`` on existing states with multi-tensor kernels: the new first and second
    moments (``states`` are untouched)."""
    m1 = torch._foreach_mul([s["moment_1"] for s in states], b1)
    torch._foreach_add_(m1, grads, alpha=1.0 - b1)
    m2 = torch._foreach_mul([s["moment_2"] for s in states], b2)
    torch._foreach_addcmul_(m2, grads, grads, value=1.0 - b2)
    return m1, m2


def adam_numbers(b1: float, b2: float, epsilon: float, t: int) -> tuple[float, float]:
    """Adam's numbers at step count ``t``: the moment factor ``sqrt(1 - b2^t) / (1 - b1^t)``
    and the scaled epsilon ``epsilon * sqrt(1 - b2^t)``."""
    bc2_sqrt = math.sqrt(1.0 - b2 ** t)
    return bc2_sqrt / (1.0 - b1 ** t), epsilon * bc2_sqrt


def adamw_numbers(b1: float, b2: float, t: int) -> tuple[float, float]:
    """AdamW's bias corrections at step count ``t``: ``1 - b1^t`` and ``1 - b2^t``."""
    return 1.0 - b1 ** t, 1.0 - b2 ** t


def _states(m1: list, m2: list, times: list[int]) -> list[dict]:
    return [{"time": t, "moment_1": a, "moment_2": b} for a, b, t in zip(m1, m2, times)]


class Adam(MultiTensorOptimizer):
    """The Adam update rule (see the module docstring)."""

    mutates_state = False
    elementwise = True
    counters = ("time",)

    def __init__(self, beta_1: float, beta_2: float, epsilon: float, amsgrad: bool,
                 weight_decay: float) -> None:
        self.beta_1, self.beta_2, self.epsilon = float(beta_1), float(beta_2), float(epsilon)
        self.amsgrad = bool(amsgrad)
        self.weight_decay = float(weight_decay)

    def capture_reason(self) -> str | None:
        return counts.capturable(adam_numbers, (self.beta_1, self.beta_2, self.epsilon))

    def step(self, lr, param, grad, state):
        if self.weight_decay:
            grad = grad.add(param, alpha=self.weight_decay)
        old = state
        state = _moments(self.beta_1, self.beta_2, grad, old)
        v = state["moment_2"]
        if self.amsgrad:
            v = state["max_moment_2"] = torch.maximum(old["max_moment_2"], v) if old else v.clone()
        factor, epsilon = adam_numbers(self.beta_1, self.beta_2, self.epsilon, state["time"])
        delta = (state["moment_1"] * factor).div_(v.sqrt().add_(epsilon))
        return param.add(delta, alpha=-lr), state

    def step_fused(self, lr, params, grads, states):
        if self.weight_decay:
            grads = torch._foreach_add(grads, params, alpha=self.weight_decay)
        m1, m2 = _moments_fused(self.beta_1, self.beta_2, grads, states)
        times, numbers = counts.step(adam_numbers, (self.beta_1, self.beta_2, self.epsilon),
                                     [s["time"] for s in states])
        new_states = _states(m1, m2, times)
        v = m2
        if self.amsgrad:
            v = torch._foreach_maximum([s["max_moment_2"] for s in states], m2)
            for state, v_max in zip(new_states, v):
                state["max_moment_2"] = v_max
        delta = torch._foreach_mul(m1, [n[0] for n in numbers])
        denominator = torch._foreach_sqrt(v)
        torch._foreach_add_(denominator, [n[1] for n in numbers])
        torch._foreach_div_(delta, denominator)
        return torch._foreach_add(params, delta, alpha=-lr), new_states


class AdamConfig(Config):
    """Configuration of [`Adam`][burn_torch.optim.adam.Adam] (Burn's defaults)."""

    beta_1: float = 0.9
    beta_2: float = 0.999
    epsilon: float = 1e-5
    amsgrad: bool = False
    weight_decay: WeightDecayConfig | None = None
    grad_clipping: GradientClippingConfig | None = None

    def build(self) -> Adam:
        return Adam(self.beta_1, self.beta_2, self.epsilon, self.amsgrad, penalty_of(self.weight_decay))

    def init(self) -> ModuleOptimizer:
        return ModuleOptimizer(self.build(), clipping_of(self.grad_clipping))


class AdamW(MultiTensorOptimizer):
    """The AdamW update rule (see the module docstring)."""

    mutates_state = False
    elementwise = True
    counters = ("time",)

    def __init__(self, beta_1: float, beta_2: float, epsilon: float, weight_decay: float,
                 cautious_weight_decay: bool) -> None:
        self.beta_1, self.beta_2, self.epsilon = float(beta_1), float(beta_2), float(epsilon)
        self.weight_decay = float(weight_decay)
        self.cautious_weight_decay = bool(cautious_weight_decay)

    def capture_reason(self) -> str | None:
        return counts.capturable(adamw_numbers, (self.beta_1, self.beta_2))

    def step(self, lr, param, grad, state):
        state = _moments(self.beta_1, self.beta_2, grad, state)
        c1, c2 = adamw_numbers(self.beta_1, self.beta_2, state["time"])
        m_hat = state["moment_1"] / c1
        v_hat = state["moment_2"] / c2
        delta = m_hat.div_(v_hat.sqrt_().add_(self.epsilon))
        decay = lr * self.weight_decay
        if decay == 0.0:
            return param.sub(delta, alpha=lr), state
        if self.cautious_weight_decay:
            differ = (param >= 0) != (state["moment_1"] >= 0)
            decayed = param - (param * decay).masked_fill_(differ, 0.0)
        else:
            decayed = param * (1.0 - decay)
        return decayed.sub_(delta, alpha=lr), state

    def step_fused(self, lr, params, grads, states):
        m1, m2 = _moments_fused(self.beta_1, self.beta_2, grads, states)
        times, numbers = counts.step(adamw_numbers, (self.beta_1, self.beta_2),
                                     [s["time"] for s in states])
        states = _states(m1, m2, times)
        delta = torch._foreach_div(m1, [n[0] for n in numbers])
        v_hat = torch._foreach_div(m2, [n[1] for n in numbers])
        torch._foreach_sqrt_(v_hat)
        torch._foreach_add_(v_hat, self.epsilon)
        torch._foreach_div_(delta, v_hat)
        decay = lr * self.weight_decay
        if decay == 0.0:
            return torch._foreach_sub(params, delta, alpha=lr), states
        if self.cautious_weight_decay:
            decayed = [p - (p * decay).masked_fill_((p >= 0) != (m >= 0), 0.0)
                       for p, m in zip(params, m1)]
        else:
            decayed = torch._foreach_mul(params, 1.0 - decay)
        torch._foreach_sub_(decayed, delta, alpha=lr)
        return decayed, states


class AdamWConfig(Config):
    """Configuration of [`AdamW`][burn_torch.optim.adam.AdamW] (Burn's defaults)."""

    beta_1: float = 0.9
    beta_2: float = 0.999
    epsilon: float = 1e-5
    weight_decay: float = 1e-4
    cautious_weight_decay: bool = False
    grad_clipping: GradientClippingConfig | None = None

    def build(self) -> AdamW:
        return AdamW(self.beta_1, self.beta_2, self.epsilon, self.weight_decay,
                     self.cautious_weight_decay)

    def init(self) -> ModuleOptimizer:
        return ModuleOptimizer(self.build(), clipping_of(self.grad_clipping))
