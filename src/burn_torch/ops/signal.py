"""Real FFTs along one dim (Burn's ``signal::rfft`` / ``irfft``): kernels and backward rules.

Conventions are torch's default ("backward" norm), as Burn's: ``rfft`` is unnormalised and
``irfft`` scales by ``1/n``. The spectrum of ``rfft`` has ``n // 2 + 1`` bins.

``rfft`` yields two tensors, so it is two steps: ``rfft`` stacks the real and imaginary parts of
the spectrum into one ``[2, ...]`` tensor, and ``spectrum_part`` takes part 0 or 1 of it (a view).
The parts' gradients meet again on the stacked tensor before the ``rfft`` rule runs once.
"""
import torch

from .table import COMPUTE, MEMORY, defop

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


def _rfft_rule(g, node):
    """``x_j = Re sum_k G_k exp(2 pi i j k / n)`` over the one-sided bins: an unnormalised
    inverse real FFT once the paired bins are halved (it counts each of them twice)."""
    dim, n = node.attrs
    spectrum = torch.complex(g[0], g[1])
    _paired_bins(spectrum, dim, n).mul_(0.5)
    gx = _irfft(spectrum, n, dim, norm="forward")
    return (_resize(gx, dim, node.parents[0].shape[dim]),)


def _part_rule(g, node):
    full = g.new_zeros((2,) + tuple(g.shape))
    full[node.attrs[0]] = g
    return (full,)


def _irfft_forward(re, im, dim, n):
    return _irfft(torch.complex(re, im), n, dim)


def _irfft_rule(g, node):
    """The adjoint of the ``1/n``-scaled inverse: a ``1/n``-scaled real FFT of ``g`` with the
    paired bins doubled (each stands for itself and its twin), cut or padded to the input's bins."""
    dim, n = node.attrs
    pr, pi = node.parents
    spectrum = _rfft(g, dim=dim, norm="forward")
    _paired_bins(spectrum, dim, n).mul_(2.0)
    spectrum = _resize(spectrum, dim, (pr if pr is not None else pi).shape[dim])
    return (spectrum.real if pr is not None else None, spectrum.imag if pi is not None else None)


RFFT = defop("rfft", _rfft_forward, _rfft_rule, COMPUTE)
SPECTRUM_PART = defop("spectrum_part", lambda stacked, i: stacked[i], _part_rule, MEMORY)
IRFFT = defop("irfft", _irfft_forward, _irfft_rule, COMPUTE)
