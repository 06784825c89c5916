"""Burn's ``tensor::signal`` real FFTs, differentiable (Burn itself has no autodiff for them yet).

As in Burn, FFT lengths must be powers of two: the signal length along ``dim`` (or ``n``) for
``rfft``, and ``n`` (by default ``2 * (bins - 1)``) for ``irfft``.
"""
from __future__ import annotations

from ..autodiff.recorder import apply1, apply2
from ..methods.base import require_float, require_float_pair
from ..ops import signal as signal_ops
from ..tensor import Tensor


def rfft(x: Tensor, dim: int, n: int | None = None) -> tuple[Tensor, Tensor]:
    """The one-sided, unnormalised DFT of real ``x`` along ``dim``: ``(re, im)``, each with
    ``n // 2 + 1`` bins along ``dim``. ``n`` (default: the signal length) truncates or
    zero-pads the signal first.

    Raises TypeError unless ``x`` is a Float tensor, IndexError for a bad ``dim``, ValueError
    naming the shape when the length is not a power of two.
    """
    if not isinstance(x, Tensor):
        raise TypeError(f"rfft: expected a Tensor, got {type(x).__name__}")
    require_float(x, "rfft")
    d = x._dim(dim)
    if n is None:
        length = x.dims()[d]
        if not _is_power_of_two(length):
            raise ValueError(f"rfft: the signal length along dim {dim} must be a power of two "
                             f"(or pass n), got shape {x.dims()}")
    else:
        length = _check_n("rfft", n)
    spectrum = apply1(signal_ops.RFFT, x, (d, length))
    return apply1(signal_ops.SPECTRUM_PART, spectrum, (0,)), apply1(signal_ops.SPECTRUM_PART, spectrum, (1,))


def irfft(re: Tensor, im: Tensor, dim: int, n: int | None = None) -> Tensor:
    """The real signal whose one-sided spectrum along ``dim`` is ``re + i im``, scaled by ``1/n``
    (inverts [`rfft`][burn_torch.functional.signal.rfft]). ``n`` (default ``2 * (bins - 1)``) is the
    output length; the spectrum is truncated or zero-padded to ``n // 2 + 1`` bins first.

    Raises TypeError unless both are Float tensors, IndexError for a bad ``dim``, ValueError
    naming the shapes when they differ or ``n`` is not a power of two.
    """
    require_float_pair("irfft", re, im)
    if re.dims() != im.dims():
        raise ValueError(f"irfft: re and im must have the same shape, got {re.dims()} and "
                         f"{im.dims()}")
    d = re._dim(dim)
    if n is None:
        length = 2 * (re.dims()[d] - 1)
        if not _is_power_of_two(length):
            raise ValueError(f"irfft: the output length 2 * (bins - 1) = {length} along dim {dim} "
                             f"must be a power of two (or pass n), got shape {re.dims()}")
    else:
        length = _check_n("irfft", n)
    return apply2(signal_ops.IRFFT, re, im, (d, length))


def _is_power_of_two(k: int) -> bool:
    return k >= 1 and k & (k - 1) == 0


def _check_n(what: str, n) -> int:
    if not isinstance(n, int) or isinstance(n, bool):
        raise TypeError(f"{what}: n must be an int or None, got {type(n).__name__}")
    if not _is_power_of_two(n):
        raise ValueError(f"{what}: n must be a power of two >= 1, got {n}")
    return n


__all__ = ["rfft", "irfft"]
