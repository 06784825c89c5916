"""Burn's ``HuberLoss`` and its config."""
from __future__ import annotations

from ...autodiff.recorder import apply2
from ...module import Config, Module
from ...ops.loss import HUBER_LOSS
from ...tensor import Tensor
from .reduction import _one_step_reduction, _reduce, Reduction


class HuberLossConfig(Config):
    """Configuration of [`HuberLoss`][burn_torch.nn.loss.HuberLoss]: ``delta``, where the loss turns
    from quadratic to linear."""

    delta: float

    def init(self) -> "HuberLoss":
        """The loss; ValueError for a negative (or NaN) delta. No device: it has no tensors."""
        if not self.delta >= 0.0:
            raise ValueError("Delta for Huber loss must be a non-negative number.")
        return HuberLoss(self.delta)


class HuberLoss(Module):
    """Huber loss of the residuals ``r = targets - predictions``: ``r^2 / 2`` where ``|r| <=
    delta``, ``delta * |r| - delta^2 / 2`` elsewhere (``lin_bias = delta^2 / 2``)."""

    def __init__(self, delta: float) -> None:
        super().__init__()
        self.delta = delta
        self.lin_bias = delta * delta * 0.5

    def forward(self, predictions: Tensor, targets: Tensor,
                reduction: Reduction = Reduction.MEAN) -> Tensor:
        """The reduced loss, shape ``[1]`` (``AUTO`` is the mean); ValueError if the shapes differ.
        Float tensors of one dtype and shape reduce in one step (torch's ``huber_loss`` kernels)
        when ``delta`` is positive."""
        code = _one_step_reduction(predictions, targets, reduction)
        if code is not None and self.delta > 0:
            return apply2(HUBER_LOSS, predictions, targets, (code, float(self.delta)))
        return _reduce(self.forward_no_reduction(predictions, targets), reduction)

    def forward_no_reduction(self, predictions: Tensor, targets: Tensor) -> Tensor:
        """The per-element losses, the shape of ``predictions``."""
        if predictions.dims() != targets.dims():
            raise ValueError(f"HuberLoss: predictions shape {predictions.dims()} != targets shape "
                             f"{targets.dims()}")
        return self.forward_residuals(targets - predictions)

    def forward_residuals(self, residuals: Tensor) -> Tensor:
        """The per-element losses of ``residuals``; at ``|r| > delta`` the gradient is
        ``delta * sign(r)``."""
        is_large = residuals.abs().greater_elem(self.delta)
        outside = residuals.clamp(-self.delta, self.delta) * residuals - self.lin_bias
        inside = residuals.square() * 0.5
        return inside.mask_where(is_large, outside)
