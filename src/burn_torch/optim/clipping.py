"""Gradient clipping, applied per parameter by every optimizer that has it configured.

Burn clips each parameter's gradient on its own (PyTorch's ``clip_grad_norm_`` uses the norm of
all parameters together); by norm the factor is ``min(1, max_norm / (norm + tiny))`` with
``tiny`` the dtype's smallest positive normal (PyTorch adds ``1e-6``).
"""
from __future__ import annotations

from dataclasses import dataclass

import torch

from ..autodiff.recorder import wrap
from ..tensor import Tensor


@dataclass(frozen=True)
class GradientClippingConfig:
    """``GradientClippingConfig.value(v)`` (clamp to ``[-v, v]``) or ``.norm(n)`` (L2 norm <= n)."""

    kind: str
    threshold: float

    @classmethod
    def value(cls, threshold: float) -> "GradientClippingConfig":
        return cls("value", float(threshold))

    @classmethod
    def norm(cls, max_norm: float) -> "GradientClippingConfig":
        return cls("norm", float(max_norm))

    def init(self) -> "GradientClipping":
        return GradientClipping(self.kind, self.threshold)


class GradientClipping:
    """Clips one gradient tensor (see the module docstring)."""

    __slots__ = ("kind", "threshold")

    def __init__(self, kind: str, threshold: float) -> None:
        if kind not in ("value", "norm"):
            raise ValueError(f"gradient clipping is 'value' or 'norm', got {kind!r}")
        self.kind = kind
        self.threshold = float(threshold)

    def clip_gradient(self, grad: Tensor) -> Tensor:
        """The clipped gradient (no autodiff association)."""
        return wrap(self.clip(grad.to_torch()), None)

    def clip(self, grad: torch.Tensor) -> torch.Tensor:
        """Storage-level clipping; returns a new torch tensor."""
        t = self.threshold
        if self.kind == "value":
            return grad.clamp(-t, t)
        norm = grad.square().sum().sqrt()
        coef = (t / (norm + torch.finfo(grad.dtype).tiny)).clamp_max(1.0)
        return grad * coef

    def clip_many(self, grads: list[torch.Tensor]) -> list[torch.Tensor]:
        """[`clip`][burn_torch.optim.clipping.GradientClipping.clip] of each of several tensors of
        one device and dtype, with torch's multi-tensor kernels and the same operations (so the same
        values); returns new tensors."""
        t = self.threshold
        if self.kind == "value":
            clamped = list(torch._foreach_clamp_min(grads, -t))
            torch._foreach_clamp_max_(clamped, t)
            return clamped
        norms = torch.stack([s.sum() for s in torch._foreach_mul(grads, grads)]).sqrt_()
        coefs = (t / (norms + torch.finfo(norms.dtype).tiny)).clamp_max_(1.0)
        return list(torch._foreach_mul(grads, coefs.unbind()))

    def __repr__(self) -> str:
        return f"GradientClipping.{self.kind}({self.threshold})"
