"""Spec rows: real FFTs (``ops/signal.py``), against DFTs written as explicit cos/sin sums
(unnormalised ``rfft`` with ``n // 2 + 1`` bins; ``irfft`` scaled by ``1/n``, taking the
spectrum as Hermitian, so the imaginary parts of the DC and Nyquist bins do not count)."""
import math

import torch

from burn_torch import signal
from spec import F, K, Row


def _resized(x, length):
    """``x`` cut or zero-padded along its last dim to ``length``."""
    size = x.shape[-1]
    if size >= length:
        return x[..., :length]
    return torch.cat([x, torch.zeros(x.shape[:-1] + (length - size,)).double()], -1)


def _angles(n):
    """``2 pi j k / n`` for samples ``j`` (rows) and one-sided bins ``k`` (columns)."""
    j = torch.arange(n).double().unsqueeze(1)
    k = torch.arange(n // 2 + 1).double()
    return 2 * math.pi * j * k / n


def dft(x, dim, n=None):
    """``(re, im)`` of ``sum_j x_j exp(-2 pi i j k / n)`` along ``dim``."""
    x = x.movedim(dim, -1)
    n = x.shape[-1] if n is None else n
    a = _angles(n)
    x = _resized(x, n)
    return (x @ a.cos()).movedim(-1, dim), (-(x @ a.sin())).movedim(-1, dim)


def idft(re, im, dim, n=None):
    """``(1/n) sum_k c_k (re_k cos - im_k sin)(2 pi j k / n)`` over the one-sided bins, ``c_k`` 2
    for the bins standing for a conjugate pair, 1 for DC and (even ``n``) Nyquist."""
    re, im = re.movedim(dim, -1), im.movedim(dim, -1)
    n = 2 * (re.shape[-1] - 1) if n is None else n
    bins = n // 2 + 1
    re, im = _resized(re, bins), _resized(im, bins)
    c = torch.full((bins,), 2.0).double()
    c[0] = 1.0
    if n % 2 == 0:
        c[-1] = 1.0
    a = _angles(n)
    out = ((re * c) @ a.cos().T - (im * c) @ a.sin().T) / n
    return out.movedim(-1, dim)


ROWS = [
    Row("rfft", lambda x: signal.rfft(x, -1), lambda x: dft(x, -1), (F(2, 3, 8),)),
    Row("rfft", lambda x: signal.rfft(x, 1), lambda x: dft(x, 1), (F(2, 4, 3),), variant="dim 1"),
    Row("rfft", lambda x: signal.rfft(x, -1, 4), lambda x: dft(x, -1, 4), (F(2, 3, 6),),
        variant="n truncates"),
    Row("rfft", lambda x: signal.rfft(x, 0, 16), lambda x: dft(x, 0, 16), (F(5, 3),),
        variant="n pads"),
    Row("rfft", lambda x: signal.rfft(x, 0, 1), lambda x: dft(x, 0, 1), (F(2, 3),),
        variant="n = 1"),
    # one part only: the other part's gradient is zero
    Row("spectrum_part", lambda x: signal.rfft(x, -1)[0], lambda x: dft(x, -1)[0], (F(2, 8),),
        variant="re"),
    Row("spectrum_part", lambda x: signal.rfft(x, -1)[1], lambda x: dft(x, -1)[1], (F(2, 8),),
        variant="im"),
    Row("irfft", lambda re, im: signal.irfft(re, im, -1), lambda re, im: idft(re, im, -1),
        (F(2, 3, 5), F(2, 3, 5))),
    Row("irfft", lambda re, im: signal.irfft(re, im, 0), lambda re, im: idft(re, im, 0),
        (F(3, 2), F(3, 2)), variant="dim 0"),
    Row("irfft", lambda re, im: signal.irfft(re, im, 1, 4), lambda re, im: idft(re, im, 1, 4),
        (F(2, 5, 3), F(2, 5, 3)), variant="n truncates the bins"),
    Row("irfft", lambda re, im: signal.irfft(re, im, -1, 16), lambda re, im: idft(re, im, -1, 16),
        (F(2, 5), F(2, 5)), variant="n pads the bins"),
    Row("irfft", lambda re, im: signal.irfft(re, im, -1, 2), lambda re, im: idft(re, im, -1, 2),
        (F(2, 2), F(2, 2)), variant="n = 2"),
    Row("irfft", lambda re, im: signal.irfft(re, im, -1, 1), lambda re, im: idft(re, im, -1, 1),
        (F(2, 3), F(2, 3)), variant="n = 1"),
    # the round trip
    Row("irfft", lambda x: signal.irfft(*signal.rfft(x, 1), 1), lambda x: x * 1.0, (F(2, 8, 3),),
        variant="irfft(rfft(x))"),
    Row("irfft", lambda re, im: signal.irfft(re, im, -1), lambda re, im: idft(re, im, -1),
        (F(2, 5), K(2, 5)), variant="constant im"),
    Row("irfft", lambda re, im: signal.irfft(re, im, -1, 4), lambda re, im: idft(re, im, -1, 4),
        (K(2, 5), F(2, 5)), variant="constant re, n truncates"),
]
