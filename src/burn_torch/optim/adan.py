"""Adan, the adaptive Nesterov momentum algorithm (Burn's ``Adan``; Xie et al. 2022,
arXiv:2208.06677).

Per parameter, with gradient ``g`` and the previous gradient ``g'`` (``g' = g`` on the first
step, so the first difference is zero)::

    m = b1 m + (1 - b1) g                    (first moment; m = (1 - b1) g at step 1)
    d = b2 d + (1 - b2) (g - g')             (gradient-difference momentum; 0 at step 1)
    n = b3 n + (1 - b3) (g + b2 (g - g'))^2  (second moment; (1 - b3) g^2 at step 1)
    u = (m / (1 - b1^t) + b2 d / (1 - b2^t)) / (sqrt(n) / sqrt(1 - b3^t) + eps)
    param = (param - lr u) / (1 + lr wd)     (proximal decay; no_prox: param (1 - lr wd) - lr u)

Burn's betas are the complements of the paper's (``b1 = 1 - beta_1(paper)``): defaults 0.98,
0.92, 0.99, epsilon 1e-8, weight decay 0. torch.optim has no Adan.
"""
from __future__ import annotations

import math

from ..module import Config
from .base import ModuleOptimizer, SimpleOptimizer, clipping_of
from .clipping import GradientClippingConfig


class Adan(SimpleOptimizer):
    """The Adan update rule (see the module docstring)."""

    mutates_state = False

    def __init__(self, beta_1: float, beta_2: float, beta_3: float, epsilon: float,
                 weight_decay: float, no_prox: bool) -> None:
        self.beta_1, self.beta_2, self.beta_3 = float(beta_1), float(beta_2), float(beta_3)
        self.epsilon = float(epsilon)
        self.weight_decay = float(weight_decay)
        self.no_prox = bool(no_prox)

    def _moments(self, grad, state):
        b1, b2, b3 = self.beta_1, self.beta_2, self.beta_3
        if not state:
            return {"time": 1, "exp_avg": grad * (1.0 - b1),
                    "exp_avg_sq": grad.square().mul_(1.0 - b3),
                    "exp_avg_diff": grad.new_zeros(grad.shape), "neg_pre_grad": -grad}
        diff = state["neg_pre_grad"] + grad
        diff_sq = (diff * b2).add_(grad).square_()
        return {"time": state["time"] + 1,
                "exp_avg": state["exp_avg"].mul(b1).add_(grad, alpha=1.0 - b1),
                "exp_avg_diff": state["exp_avg_diff"].mul(b2).add_(diff, alpha=1.0 - b2),
                "exp_avg_sq": state["exp_avg_sq"].mul(b3).add_(diff_sq, alpha=1.0 - b3),
                "neg_pre_grad": -grad}

    def step(self, lr, param, grad, state):
        state = self._moments(grad, state)
        t = state["time"]
        denom = state["exp_avg_sq"].sqrt().div_(math.sqrt(1.0 - self.beta_3 ** t)).add_(self.epsilon)
        update = (state["exp_avg"] / (1.0 - self.beta_1 ** t)).div_(denom)
        update.add_(state["exp_avg_diff"].mul(self.beta_2 / (1.0 - self.beta_2 ** t)).div_(denom))
        decay = lr * self.weight_decay
        if self.no_prox:
            base = param if decay == 0.0 else param * (1.0 - decay)
            return base.sub(update, alpha=lr), state
        new = param.sub(update, alpha=lr)
        return (new if decay == 0.0 else new.div_(1.0 + decay)), state


class AdanConfig(Config):
    """Configuration of [`Adan`][burn_torch.optim.adan.Adan] (Burn's fields and defaults)."""

    beta_1: float = 0.98
    beta_2: float = 0.92
    beta_3: float = 0.99
    epsilon: float = 1e-8
    weight_decay: float = 0.0
    no_prox: bool = False
    grad_clipping: GradientClippingConfig | None = None

    def build(self) -> Adan:
        return Adan(self.beta_1, self.beta_2, self.beta_3, self.epsilon, self.weight_decay,
                    self.no_prox)

    def init(self) -> ModuleOptimizer:
        return ModuleOptimizer(self.build(), clipping_of(self.grad_clipping))
