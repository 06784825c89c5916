"""Burn's ``tensor::linalg`` functions that its newest sources add after 0.21: ``qr``.
Public as ``burn_torch.linalg``."""
from __future__ import annotations

from ..autodiff.recorder import apply1
from ..methods.base import require_float
from ..ops import linalg as linalg_ops
from ..tensor import Tensor


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


__all__ = ["qr"]
