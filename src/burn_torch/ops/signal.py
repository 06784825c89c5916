"""Real FFTs along one dim (Burn's ``signal::rfft`` / ``irfft``): kernels and backward rules.

Conventions are torch's default ("backward" norm), as Burn's: ``rfft`` is unnormalised and
``irfft`` scales by ``1/n``. The spectrum of ``rfft`` has ``n // 2 + 1`` bins.

``rfft`` yields two tensors, so it is two steps: ``rfft`` stacks the real and imaginary parts of
the spectrum into one ``[2, ...]`` tensor, and ``spectrum_part`` takes part 0 or 1 of it (a view).
The parts' gradients meet again on the stacked tensor before the ``rfft`` rule runs once.
``irfft`` has one fused rule: a single real FFT of the output's gradient gives both parts'.

Attributes: ``rfft`` and ``irfft`` ``(dim, n)``, ``spectrum_part`` ``(part,)``.
"""
import torch

from .table import COMPUTE, MEMORY, defop, vjp

_rfft = torch.fft.rfft
_irfft = torch.fft.irfft


def _resize(t, dim, length):
    """``t`` truncated or zero-padded along ``dim`` to ``length``."""
    size = t.shape[dim]
    if size == length:
        return t
    if size > length:
        return t.narrow(dim, 0, length)
    pad = list(t.shape)
    pad[dim] = length - size
    return torch.cat((t, t.new_zeros(pad)), dim)


def _paired_bins(spectrum, dim, n):
    """Bins ``1 .. n - bins`` of a one-sided spectrum: the ones whose conjugate twin the
    one-sided form leaves out (all but the DC bin and, for even ``n``, the Nyquist bin)."""
    return spectrum.narrow(dim, 1, n - spectrum.shape[dim])


def _rfft_forward(x, dim, n):
    spectrum = _rfft(x, n, dim)
    return torch.stack((spectrum.real, spectrum.imag))


def _rfft_rule(g, s):
    """``x_j = Re sum_k G_k exp(2 pi i j k / n)`` over the one-sided bins: an unnormalised
    inverse real FFT once the paired bins are halved (it counts each of them twice)."""
    dim, n = s.dim, s.n
    spectrum = torch.complex(g[0], g[1])
    _paired_bins(spectrum, dim, n).mul_(0.5)
    gx = _irfft(spectrum, n, dim, norm="forward")
    return _resize(gx, dim, s.x_shape[dim])


def _part_rule(g, s):
    full = g.new_zeros((2,) + tuple(g.shape))
    full[s.part] = g
    return full


def _irfft_forward(re, im, dim, n):
    return _irfft(torch.complex(re, im), n, dim)


def _irfft_rule(g, s, parents):
    """The adjoint of the ``1/n``-scaled inverse: a ``1/n``-scaled real FFT of ``g`` with the
    paired bins doubled (each stands for itself and its twin), cut or padded to the input's bins."""
    dim, n = s.dim, s.n
    pr, pi = parents
    spectrum = _rfft(g, dim=dim, norm="forward")
    _paired_bins(spectrum, dim, n).mul_(2.0)
    spectrum = _resize(spectrum, dim, (s.re_shape if pr is not None else s.im_shape)[dim])
    return (spectrum.real if pr is not None else None, spectrum.imag if pi is not None else None)


_DIM_N = ("dim", "n")
RFFT = defop("rfft", _rfft_forward, COMPUTE, attrs=_DIM_N, vjp=(vjp(_rfft_rule, "x_shape"),))
SPECTRUM_PART = defop("spectrum_part", lambda stacked, i: stacked[i], MEMORY, inputs=("stacked",),
                      attrs=("part",), vjp=(vjp(_part_rule),))
IRFFT = defop("irfft", _irfft_forward, COMPUTE, inputs=("re", "im"), attrs=_DIM_N,
              fused=_irfft_rule, needs=(("re_shape",), ("im_shape",)))
