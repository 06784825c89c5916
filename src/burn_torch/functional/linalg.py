"""The vector norms and similarities of Burn's ``tensor::linalg`` that layers and losses are
built from, composed of burn_torch ops so that gradients follow Burn's rules.
"""
from __future__ import annotations

import math

import torch

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
