"""Burn's ``CosineSimilarity`` and ``PairwiseDistance`` layers, and the vector norms of Burn's
``linalg`` they (and the triplet-margin loss) are built from, composed of burn_torch ops so that
gradients follow Burn's rules."""
from __future__ import annotations

import math

import torch

from ..module import Config, Module
from ..tensor import Tensor


def lp_norm(x: Tensor, p: float, dim: int) -> Tensor:
    """Burn's ``linalg::lp_norm`` along ``dim``, kept as size 1: ``sum(|x|)`` for p = 1,
    ``sqrt(sum(x^2))`` for 2, ``max(|x|)`` for infinity, ``min(|x|)`` for -infinity, the
    count of non-zeros for 0, ``sum(|x|^p)^(1/p)`` otherwise."""
    if p == 1:
        return x.abs().sum_dim(dim)
    if p == 2:
        return x.square().sum_dim(dim).sqrt()
    if p == math.inf:
        return x.abs().max_dim(dim)
    if p == -math.inf:
        return x.abs().min_dim(dim)
    if p == 0:
        return x.not_equal_elem(0).float().cast(x.dtype()).sum_dim(dim)
    if float(p).is_integer() and int(p) % 2 == 0:
        return x.powi_scalar(int(p)).sum_dim(dim).powf_scalar(1.0 / p)
    return x.abs().powf_scalar(p).sum_dim(dim).powf_scalar(1.0 / p)


def cosine_similarity(x1: Tensor, x2: Tensor, dim: int, eps: float | None = None) -> Tensor:
    """Burn's ``linalg::cosine_similarity``: ``sum(x1 * x2) / (max(|x1|, eps) * max(|x2|,
    eps))`` along ``dim`` (kept as size 1); ``eps`` defaults to the dtype's smallest normal."""
    if eps is None:
        eps = torch.finfo(x1.to_torch().dtype).tiny
    dot = (x1 * x2).sum_dim(dim)
    return dot / (lp_norm(x1, 2, dim).clamp_min(eps) * lp_norm(x2, 2, dim).clamp_min(eps))


class CosineSimilarityConfig(Config):
    """Configuration of :class:`CosineSimilarity` (Burn's defaults ``dim=1``, ``eps=1e-8``)."""

    dim: int = 1
    eps: float = 1e-8

    def init(self) -> "CosineSimilarity":
        return CosineSimilarity(self.dim, self.eps)


class CosineSimilarity(Module):
    """``forward(x1, x2)``: the cosine similarity of the rows of two ``[batch, features]``
    tensors along ``dim`` (negative counts from the end), that dim removed: ``[batch]``."""

    def __init__(self, dim: int, eps: float) -> None:
        super().__init__()
        self.dim = dim
        self.eps = eps

    def forward(self, x1: Tensor, x2: Tensor) -> Tensor:
        """ValueError unless both inputs are rank 2 with the same shape."""
        _same_matrices("CosineSimilarity", x1, x2)
        d = x1._dim(self.dim)
        return cosine_similarity(x1, x2, d, self.eps).squeeze_dim(d)

    def __repr__(self) -> str:
        return f"CosineSimilarity {{dim: {self.dim}, eps: {self.eps}}}"


class PairwiseDistanceConfig(Config):
    """Configuration of :class:`PairwiseDistance` (Burn's defaults ``p=2``, ``eps=1e-6``)."""

    p: float = 2.0
    eps: float = 1e-6

    def init(self) -> "PairwiseDistance":
        return PairwiseDistance(self.p, self.eps)


class PairwiseDistance(Module):
    """``forward(x1, x2)``: ``||x1 - x2 + eps||_p`` over the features of two ``[batch,
    features]`` tensors: ``[batch]``."""

    def __init__(self, p: float, eps: float) -> None:
        super().__init__()
        self.p = p
        self.eps = eps

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


__all__ = ["CosineSimilarity", "CosineSimilarityConfig", "PairwiseDistance",
           "PairwiseDistanceConfig"]
