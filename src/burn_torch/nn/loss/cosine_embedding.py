"""Burn's ``CosineEmbeddingLoss`` and its config."""
from __future__ import annotations

from ...dtype import Int
from ...functional.activation import relu
from ...functional.linalg import cosine_similarity
from ...module import Config, Module, module_fields
from ...tensor import Tensor
from .reduction import _reduce, Reduction


# -- cosine embedding ------------------------------------------------------------------------------
class CosineEmbeddingLossConfig(Config):
    """Burn's fields: ``margin`` (0.0) and the ``reduction`` ``forward`` applies (MEAN)."""

    margin: float = 0.0
    reduction: Reduction = Reduction.MEAN

    def init(self) -> "CosineEmbeddingLoss":
        return CosineEmbeddingLoss(self.margin, self.reduction)


@module_fields
class CosineEmbeddingLoss(Module):
    """``1 - cos(x1, x2)`` where the target is 1, ``max(0, cos(x1, x2) - margin)`` where it is
    -1, 0 elsewhere; the cosine over dim 1 of ``[batch, features]`` inputs, with Burn's
    default epsilon (the dtype's smallest normal)."""

    margin: float = 0.0
    reduction: Reduction = Reduction.MEAN

    def forward(self, input1: Tensor, input2: Tensor, target: Tensor) -> Tensor:
        """Reduced with the config's ``reduction``: shape ``[1]``."""
        return _reduce(self.forward_no_reduction(input1, input2, target), self.reduction,
                       "CosineEmbeddingLoss")

    def forward_no_reduction(self, input1: Tensor, input2: Tensor, target: Tensor) -> Tensor:
        """Per sample, ``[batch]``. TypeError unless ``target`` is Int; ValueError unless the
        inputs are ``[batch, features]`` alike and the target ``[batch]``."""
        if target.kind is not Int:
            raise TypeError(f"CosineEmbeddingLoss: target must be an Int tensor, got {target.kind}")
        if input1.rank() != 2 or input1.dims() != input2.dims() \
                or target.dims() != input1.dims()[:1]:
            raise ValueError(f"CosineEmbeddingLoss: expected inputs [batch, features] and target "
                             f"[batch], got {input1.dims()}, {input2.dims()} and {target.dims()}")
        cos = cosine_similarity(input1, input2, 1).squeeze_dim(1)
        loss = cos.zeros_like().mask_where(target.equal_elem(1), 1.0 - cos)
        return loss.mask_where(target.equal_elem(-1), relu(cos - self.margin))

    def __repr__(self) -> str:
        return f"CosineEmbeddingLoss {{margin: {self.margin}, reduction: {self.reduction}}}"
