"""Burn's ``PairwiseDistance`` layer and its config."""
from __future__ import annotations

from ..functional.linalg import lp_norm
from ..module import Config, Module, module_fields
from ..tensor import Tensor


class PairwiseDistanceConfig(Config):
    """Configuration of [`PairwiseDistance`][burn_torch.nn.pairwise_distance.PairwiseDistance]
    (Burn's defaults ``p=2``, ``eps=1e-6``)."""

    p: float = 2.0
    eps: float = 1e-6

    def init(self) -> "PairwiseDistance":
        return PairwiseDistance(self.p, self.eps)


@module_fields
class PairwiseDistance(Module):
    """``forward(x1, x2)``: ``||x1 - x2 + eps||_p`` over the features of two ``[batch,
    features]`` tensors: ``[batch]``."""

    p: float
    eps: float

    def forward(self, x1: Tensor, x2: Tensor) -> Tensor:
        """ValueError unless both inputs are rank 2 with the same shape."""
        _same_matrices("PairwiseDistance", x1, x2)
        return lp_norm((x1 - x2) + self.eps, self.p, 1).squeeze_dim(1)

    def __repr__(self) -> str:
        return f"PairwiseDistance {{p: {self.p}, eps: {self.eps}}}"


def _same_matrices(what: str, x1: Tensor, x2: Tensor) -> None:
    if x1.rank() != 2 or x1.dims() != x2.dims():
        raise ValueError(f"{what}: expected two [batch, features] tensors of the same shape, got "
                         f"{x1.dims()} and {x2.dims()}")
