"""Burn's ``tensor::linalg``: the vector norms (``vector_norm`` and the named ones), similarities
and matrix helpers (``diag``, ``trace``, ``outer``, ``matvec``), composed of burn_torch ops as
Burn composes them, so that gradients follow Burn's rules; ``det`` and ``qr`` (Burn's newest
sources), one op-table entry each. Public as ``burn_torch.linalg``. Dims may be negative
(counted from the end); a wrong kind raises TypeError, a bad shape ValueError, a dim out of
range IndexError, before anything is recorded.
"""
from __future__ import annotations

import math
import numbers
from typing import ClassVar
from dataclasses import dataclass

import torch

from .. import validate
from ..autodiff.recorder import apply1
from ..dtype import Bool
from ..methods.base import require_float, same_kind
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


def _tensor(what: str, name: str, x) -> Tensor:
    if not isinstance(x, Tensor):
        raise TypeError(f"{what}: {name} must be a Tensor, got {type(x).__name__}")
    return x


def _numeric(what: str, x) -> Tensor:
    """``x``, an Int or Float Tensor (Burn's ``Numeric`` kinds); TypeError otherwise."""
    if _tensor(what, "the input", x).kind is Bool:
        raise TypeError(f"{what} needs an Int or Float tensor, got Bool; call .int() first")
    return x


@dataclass(frozen=True)
class Norm:
    """Burn's ``linalg::Norm``: the vector norm
    [`vector_norm`][burn_torch.functional.linalg.vector_norm] computes, by its exponent. ``Norm.L0``
    (count of non-zeros), ``Norm.L1``, ``Norm.L2``, ``Norm.LInf`` (largest ``|x|``),
    ``Norm.LNegInf`` (smallest ``|x|``) and ``Norm.lp(p)``; functions taking a norm also take the
    exponent as a number, as Burn's ``impl Into<Norm>`` does."""

    exponent: float
    # Burn's named norms, set below the class
    L0: ClassVar[Norm]
    L1: ClassVar[Norm]
    L2: ClassVar[Norm]
    LInf: ClassVar[Norm]
    LNegInf: ClassVar[Norm]

    def to_exponent(self) -> float:
        """The exponent ``p`` of this ``L(p)`` norm (±inf for the max/min norms)."""
        return self.exponent

    @classmethod
    def lp(cls, p: float) -> "Norm":
        """Burn's ``Norm::Lp(p)``."""
        return cls(_exponent("Norm.lp", p))


Norm.L0, Norm.L1, Norm.L2 = Norm(0.0), Norm(1.0), Norm(2.0)
Norm.LInf, Norm.LNegInf = Norm(math.inf), Norm(-math.inf)


def _exponent(what: str, norm) -> float:
    if isinstance(norm, Norm):
        return norm.exponent
    if isinstance(norm, bool) or not isinstance(norm, numbers.Real) or math.isnan(norm):
        raise TypeError(f"{what}: the norm must be a burn_torch.linalg.Norm or a real exponent, "
                        f"got {norm!r}")
    return float(norm)


def vector_norm(x: Tensor, norm, dim: int) -> Tensor:
    """Burn's ``vector_norm``: the ``L(p)`` norm of a Float tensor along ``dim``, kept with size
    1 (see [`lp_norm`][burn_torch.functional.linalg.lp_norm]); ``norm`` is a
    [`Norm`][burn_torch.functional.linalg.Norm] or its exponent."""
    require_float(_tensor("vector_norm", "x", x), "vector_norm")
    return lp_norm(x, _exponent("vector_norm", norm), validate.dim("vector_norm", x.rank(), dim))


def vector_normalize(x: Tensor, norm, dim: int, eps: float) -> Tensor:
    """Burn's ``vector_normalize``: ``x / max(vector_norm(x, norm, dim), eps)``, a Float tensor of
    ``x``'s shape."""
    require_float(_tensor("vector_normalize", "x", x), "vector_normalize")
    d = validate.dim("vector_normalize", x.rank(), dim)
    return x / lp_norm(x, _exponent("vector_normalize", norm), d).clamp_min(
        validate.real("vector_normalize", "eps", eps))


def l0_norm(x: Tensor, dim: int) -> Tensor:
    """The number of non-zero entries along ``dim`` (kept with size 1), in ``x``'s Int or Float
    dtype; untracked (Burn counts them with a mask, which has no gradient)."""
    return lp_norm(_numeric("l0_norm", x), 0, validate.dim("l0_norm", x.rank(), dim))


def l1_norm(x: Tensor, dim: int) -> Tensor:
    """``sum(|x|)`` along ``dim`` (kept with size 1) of an Int or Float tensor."""
    return lp_norm(_numeric("l1_norm", x), 1, validate.dim("l1_norm", x.rank(), dim))


def l2_norm(x: Tensor, dim: int) -> Tensor:
    """``sqrt(sum(x^2))`` along ``dim`` (kept with size 1) of a Float tensor."""
    require_float(_tensor("l2_norm", "x", x), "l2_norm")
    return lp_norm(x, 2, validate.dim("l2_norm", x.rank(), dim))


def max_abs_norm(x: Tensor, dim: int) -> Tensor:
    """The largest ``|x|`` along ``dim`` (kept with size 1) of an Int or Float tensor."""
    d = validate.dim("max_abs_norm", _numeric("max_abs_norm", x).rank(), dim)
    return lp_norm(x, math.inf, d)


def min_abs_norm(x: Tensor, dim: int) -> Tensor:
    """The smallest ``|x|`` along ``dim`` (kept with size 1) of an Int or Float tensor."""
    d = validate.dim("min_abs_norm", _numeric("min_abs_norm", x).rank(), dim)
    return lp_norm(x, -math.inf, d)


def diag(tensor: Tensor) -> Tensor:
    """Burn's ``diag``: the main diagonal of the matrices in the last two dims of a tensor of any
    kind, ``[..., rows, cols]`` to ``[..., min(rows, cols)]``; differentiable (the gradient
    lands on the diagonal). ValueError for a tensor of rank < 2."""
    dims = _tensor("diag", "tensor", tensor).dims()
    if len(dims) < 2:
        raise ValueError(f"diag needs a tensor of rank >= 2 ([..., rows, cols]), got shape {dims}")
    rows, cols = dims[-2:]
    flat = tensor.reshape(dims[:-2] + [rows * cols, 1])
    index = Tensor.arange(0, min(rows, cols) * (cols + 1), tensor.device(), cols + 1)
    return flat.take(len(dims) - 2, index).squeeze_dim(len(dims) - 1)


def trace(tensor: Tensor) -> Tensor:
    """Burn's ``trace``: the sum of [`diag`][burn_torch.functional.linalg.diag] of a Float tensor,
    ``[..., rows, cols]`` to ``[..., 1]`` (the summed dim kept, as Burn's)."""
    require_float(_tensor("trace", "tensor", tensor), "trace")
    return diag(tensor).sum_dim(-1)


def outer_dim(lhs: Tensor, rhs: Tensor, dim: int) -> Tensor:
    """Burn's ``outer_dim``: the outer product along ``dim`` of two Int or Float tensors of one
    rank and kind, ``lhs[.., i, ..]`` and ``rhs[.., j, ..]`` to ``[.., i, j, ..]`` (the other dims
    broadcast); differentiable. ValueError for ranks that differ."""
    _numeric("outer_dim", lhs)
    _numeric("outer_dim", _tensor("outer_dim", "rhs", rhs))
    if lhs.rank() != rhs.rank():
        raise ValueError(f"outer_dim needs tensors of one rank, got {lhs.dims()} and {rhs.dims()}")
    same_kind("outer_dim", lhs, rhs)
    d = validate.dim("outer_dim", lhs.rank(), dim)
    return lhs.unsqueeze_dim(d + 1) * rhs.unsqueeze_dim(d)


def outer(lhs: Tensor, rhs: Tensor) -> Tensor:
    """Burn's ``outer``: [`outer_dim`][burn_torch.functional.linalg.outer_dim] along the last dim,
    ``[..., i]`` and ``[..., j]`` to ``[..., i, j]``."""
    return outer_dim(lhs, rhs, -1)


def matvec(matrix: Tensor, vector: Tensor) -> Tensor:
    """Burn's ``matvec``: ``matrix [..., m, n]`` times ``vector [..., n]`` is ``[..., m]`` (Int or
    Float, one kind; batch dims broadcast); differentiable. ValueError for a matrix of rank < 2,
    a vector whose rank is not the matrix's minus one, batch dims that do not broadcast or
    inner sizes that differ."""
    _numeric("matvec", _tensor("matvec", "matrix", matrix))
    _numeric("matvec", _tensor("matvec", "vector", vector))
    md, vd = matrix.dims(), vector.dims()
    if len(md) < 2 or len(vd) != len(md) - 1:
        raise ValueError(f"matvec needs a matrix of rank >= 2 and a vector of rank one less, got "
                         f"{md} and {vd}")
    try:
        torch.broadcast_shapes(tuple(md[:-2]), tuple(vd[:-1]))
    except RuntimeError:
        raise ValueError(f"matvec: batch dims {md[:-2]} and {vd[:-1]} do not broadcast") from None
    if md[-1] != vd[-1]:
        raise ValueError(f"matvec: the matrix has {md[-1]} columns, the vector {vd[-1]} entries")
    same_kind("matvec", matrix, vector)
    return matrix.matmul(vector.unsqueeze_dim(len(vd))).squeeze_dim(len(md) - 1)


def det(tensor: Tensor) -> Tensor:
    """Burn's ``det``: the determinants of the square matrices in the last two dims of a Float
    tensor ``[..., n, n]``, shape ``[...]`` (at least one batch dim: Burn has no rank-0 tensors;
    ``unsqueeze_dim(0)`` a single matrix). Differentiable everywhere as Burn's closed forms and
    LU steps are: the gradient is the transposed adjugate, non-zero at singular matrices of rank
    ``n - 1`` too (torch autograd's is zero there). F16 and BF16 are computed in F32 and cast
    back. ValueError for rank < 3, non-square or empty matrices."""
    require_float(_tensor("det", "tensor", tensor), "det")
    dims = tensor.dims()
    if len(dims) < 3 or dims[-1] != dims[-2] or dims[-1] == 0:
        raise ValueError(f"det needs non-empty square matrices with at least one batch dim "
                         f"([..., n, n], rank >= 3), got shape {dims}; unsqueeze_dim(0) a single "
                         f"matrix")
    return apply1(linalg_ops.DET, tensor)


__all__ = ["Norm", "vector_norm", "vector_normalize", "lp_norm", "l0_norm", "l1_norm", "l2_norm",
           "max_abs_norm", "min_abs_norm", "cosine_similarity", "diag", "trace", "outer",
           "outer_dim", "matvec", "det", "qr"]
