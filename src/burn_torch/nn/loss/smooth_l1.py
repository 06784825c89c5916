"""Burn's ``SmoothL1Loss`` and its config."""
from __future__ import annotations

from typing import Sequence

from ...module import Config, Module, module_fields
from ...tensor import Tensor
from .reduction import _mean_dims, _reduce, _same_shape, Reduction


# -- smooth L1 -------------------------------------------------------------------------------------
class SmoothL1LossConfig(Config):
    beta: float = 1.0

    def init(self) -> "SmoothL1Loss":
        """The loss; ValueError unless ``beta > 0``."""
        if not self.beta > 0.0:
            raise ValueError("The parameter beta must be positive.")
        return SmoothL1Loss(self.beta)


@module_fields
class SmoothL1Loss(Module):
    """``0.5 e^2 / beta`` where ``|e| < beta``, ``|e| - beta / 2`` elsewhere, for ``e =
    predictions - targets``. As Burn, ``forward`` is per element;
    ``forward_with_reduction(predictions, targets, reduction)`` reduces."""

    beta: float = 1.0

    def forward(self, predictions: Tensor, targets: Tensor) -> Tensor:
        _same_shape("SmoothL1Loss", predictions, targets)
        error = predictions - targets
        abs_error = error.abs()
        l1 = abs_error - 0.5 * self.beta
        l2 = error.square() * 0.5 / self.beta
        return l1.mask_where(abs_error.lower_elem(self.beta), l2)

    def forward_with_reduction(self, predictions: Tensor, targets: Tensor,
                               reduction: Reduction = Reduction.AUTO) -> Tensor:
        return _reduce(self.forward(predictions, targets), reduction, "SmoothL1Loss")

    def forward_reduce_dims(self, predictions: Tensor, targets: Tensor,
                            dims: Sequence[int]) -> Tensor:
        """The element losses averaged over ``dims`` (kept as size 1)."""
        return _mean_dims(self.forward(predictions, targets), dims)

    def __repr__(self) -> str:
        return f"SmoothL1Loss {{beta: {self.beta}}}"
