"""Burn's ``tensor::linalg``: the vector norms and similarities that layers and losses are built
from (``lp_norm``, ``cosine_similarity``), composed of burn_torch ops so that gradients follow
Burn's rules, and ``qr`` (Burn's newest sources), one op-table entry. Public as
``burn_torch.linalg``.
"""
from __future__ import annotations

import math

import torch

from ..autodiff.recorder import apply1
from ..methods.base import require_float
from ..ops import linalg as linalg_ops
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


def qr(tensor: Tensor, reduced: bool) -> "tuple[Tensor, Tensor]":
    """The QR decomposition ``tensor = Q R`` of the matrices in the last two dims of a Float
    tensor ``[..., m, n]``, with Burn's Householder convention: ``Q`` orthonormal, ``R`` upper
    triangular with each diagonal entry of the opposite sign to its column's pivot (the
    reflection is made even where the column is already zero below the pivot; a column of
    norm below 1e-8 is left as is).

    Shapes: ``Q`` is ``[..., m, m]`` and ``R`` ``[..., m, n]``, except with ``reduced`` on a tall
    matrix (``m > n``): ``Q`` ``[..., m, n]``, ``R`` ``[..., n, n]``. F16 and BF16 are computed in
    F32 and the results cast back.

    Differentiable in ``tensor`` through both outputs, as Burn's composition of tensor ops is:
    where ``R`` is invertible by the QR's gradient formula, and for the complete form of a tall
    matrix (``reduced=False``, ``m > n``, whose extra columns of ``Q`` depend on the
    reflections) back through Burn's reflections. Raises TypeError for a non-Float tensor or a
    ``reduced`` that is not a bool, ValueError for a tensor of rank < 2.
    """
    if not isinstance(tensor, Tensor):
        raise TypeError(f"qr: expected a Tensor, got {type(tensor).__name__}")
    require_float(tensor, "qr")
    if not isinstance(reduced, bool):
        raise TypeError(f"qr: reduced must be a bool, got {reduced!r}")
    dims = tensor.dims()
    if len(dims) < 2:
        raise ValueError(f"qr needs a tensor of rank >= 2 ([..., rows, cols]), got shape {dims}")
    m, n = dims[-2:]
    packed = apply1(linalg_ops.QR, tensor, (reduced,))
    dim = len(dims) + linalg_ops.qr_packing(m, n, reduced)[1]
    return packed.narrow(dim, 0, m), packed.narrow(dim, m, packed.dims()[dim] - m)


__all__ = ["lp_norm", "cosine_similarity", "qr"]
