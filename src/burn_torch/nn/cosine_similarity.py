"""Burn's ``CosineSimilarity`` layer and its config."""
from __future__ import annotations

from ..functional.linalg import cosine_similarity
from ..module import Config, Module, module_fields
from ..tensor import Tensor
from .pairwise_distance import _same_matrices


class CosineSimilarityConfig(Config):
    """Configuration of [`CosineSimilarity`][burn_torch.nn.cosine_similarity.CosineSimilarity]
    (Burn's defaults ``dim=1``, ``eps=1e-8``)."""

    dim: int = 1
    eps: float = 1e-8

    def init(self) -> "CosineSimilarity":
        return CosineSimilarity(self.dim, self.eps)


@module_fields
class CosineSimilarity(Module):
    """``forward(x1, x2)``: the cosine similarity of the rows of two ``[batch, features]``
    tensors along ``dim`` (negative counts from the end), that dim removed: ``[batch]``."""

    dim: int
    eps: float

    def forward(self, x1: Tensor, x2: Tensor) -> Tensor:
        """ValueError unless both inputs are rank 2 with the same shape."""
        _same_matrices("CosineSimilarity", x1, x2)
        d = x1._dim(self.dim)
        return cosine_similarity(x1, x2, d, self.eps).squeeze_dim(d)

    def __repr__(self) -> str:
        return f"CosineSimilarity {{dim: {self.dim}, eps: {self.eps}}}"
