"""Muon, momentum orthogonalized by Newton-Schulz (Burn's ``Muon``; Jordan et al. 2024).

For a 2-D parameter ``W`` (``[a, b]``) with gradient ``G``: ``M`` = Burn's momentum of ``G``
(SGD's: ``v = G`` first, then ``v = mu v + (1 - dampening) G``; Nesterov ``G + mu v``), then
five Newton-Schulz iterations approximate the orthogonal factor of ``M``::

    X = M / max(||M||_F, eps)            (transposed first when a > b, back at the end)
    repeat ns_steps:  A = X X^T;  X = a X + (b A + c A^2) X
    W = W (1 - lr wd) - lr * ratio * X   ratio: sqrt(max(1, a / b)) (Original) or
                                         0.2 * sqrt(max(a, b)) (MatchRmsAdamW)

Defaults (Burn's): momentum 0.95, dampening 0, Nesterov; coefficients (3.4445, -4.775, 2.0315);
eps 1e-7; 5 steps. Muon only updates 2-D parameters (ValueError otherwise): give it the hidden
matrices and another optimizer the rest. Burn's ``Linear.weight`` is ``[d_input, d_output]``,
torch's ``[out, in]``: ``ratio`` reads Burn's layout.
"""
from __future__ import annotations

import enum

import torch

from ..module import Config
from .base import ModuleOptimizer, SimpleOptimizer, WeightDecayConfig, penalty_of
from .sgd import MomentumConfig


class AdjustLrFn(enum.Enum):
    """How Muon scales the learning rate by the parameter's shape (Burn's ``AdjustLrFn``)."""

    ORIGINAL = "original"
    MATCH_RMS_ADAM_W = "match_rms_adamw"

    def adjustment_ratio(self, shape) -> float:
        """The factor for a parameter of ``shape`` (1 below rank 2)."""
        if len(shape) < 2:
            return 1.0
        a, b = float(shape[0]), float(shape[1])
        if self is AdjustLrFn.ORIGINAL:
            return max(a / b, 1.0) ** 0.5
        return 0.2 * max(a, b) ** 0.5


class Muon(SimpleOptimizer):
    """The Muon update rule (see the module docstring)."""

    mutates_state = False

    def __init__(self, momentum: MomentumConfig, ns_coefficients: tuple, epsilon: float,
                 ns_steps: int, adjust_lr_fn: AdjustLrFn, weight_decay: float) -> None:
        self.momentum = momentum
        self.a, self.b, self.c = (float(v) for v in ns_coefficients)
        self.epsilon = float(epsilon)
        self.ns_steps = int(ns_steps)
        self.adjust_lr_fn = adjust_lr_fn
        self.weight_decay = float(weight_decay)

    def _momentum(self, grad, state):
        m = self.momentum
        if state:
            velocity = state["velocity"].mul(m.momentum).add_(grad, alpha=1.0 - m.dampening)
        else:
            velocity = grad.clone()
        update = grad.add(velocity, alpha=m.momentum) if m.nesterov else velocity
        return update, {"velocity": velocity}

    def orthogonalize(self, g: torch.Tensor) -> torch.Tensor:
        """The Newton-Schulz approximation of ``g``'s orthogonal factor."""
        transpose = g.shape[-2] > g.shape[-1]
        x = g.mT if transpose else g
        x = x / x.square().sum().sqrt().clamp_min(self.epsilon)
        for _ in range(self.ns_steps):
            a = x @ x.mT
            x = x * self.a + (a * self.b + (a @ a) * self.c) @ x
        return x.mT if transpose else x

    def step(self, lr, param, grad, state):
        if param.dim() != 2:
            raise ValueError(f"Muon: Newton-Schulz iteration requires 2D tensors, got "
                             f"{param.dim()}D (optimize other parameters with another optimizer)")
        update, state = self._momentum(grad, state)
        x = self.orthogonalize(update)
        base = param * (1.0 - lr * self.weight_decay) if self.weight_decay else param
        return base.sub(x, alpha=lr * self.adjust_lr_fn.adjustment_ratio(param.shape)), state


class MuonConfig(Config):
    """Configuration of [`Muon`][burn_torch.optim.muon.Muon] (Burn's fields and defaults)."""

    weight_decay: WeightDecayConfig | None = None
    momentum: MomentumConfig = MomentumConfig(momentum=0.95, dampening=0.0, nesterov=True)
    ns_coefficients: tuple = (3.4445, -4.775, 2.0315)
    epsilon: float = 1e-7
    ns_steps: int = 5
    adjust_lr_fn: AdjustLrFn = AdjustLrFn.ORIGINAL

    def build(self) -> Muon:
        return Muon(self.momentum, self.ns_coefficients, self.epsilon, self.ns_steps,
                    self.adjust_lr_fn, penalty_of(self.weight_decay))

    def init(self) -> ModuleOptimizer:
        return ModuleOptimizer(self.build())
