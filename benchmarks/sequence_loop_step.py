"""A recurrent network written as a Python loop over time steps, burn_torch vs torch autograd.

What a port of hand-written recurrent code looks like (a custom cell, or ``nn.LSTM`` with an
option torch's fused kernels lack): each step slices its input out of the sequence
(``x.narrow(1, t, 1)``; torch: ``x[:, t]``) and runs an Elman cell ``h = tanh(x_t W + h U + b)``;
the loss is the mean square of the last state; backward; the gradients of ``x``, ``W``, ``U``
and ``b`` read out. The slices' gradients are where the two differ: torch's ``slice_backward``
builds a zero tensor of the whole sequence per step (quadratic in the length); burn_torch
collects the steps' parts and concatenates them into one gradient of the sequence
(``ops.region``). Prints per-size times (µs,
min over interleaved rounds), the ratio burn_torch / torch autograd and the same step through
``burn_torch.capture``.

Usage: python benchmarks/sequence_loop_step.py [--quick] [--threads N] [--no-autotune]
"""
from __future__ import annotations

import torch

from burn_torch import Device, Tensor
from burn_torch.capture import capture

from _harness import main, run

# (batch, sequence length, input width, hidden width)
SIZES = [(8, 16, 16, 32), (16, 64, 64, 128), (32, 128, 128, 256)]


def make_params(D: int, H: int, seed: int = 0) -> list[torch.Tensor]:
    """``W [D, H]``, ``U [H, H]``, ``b [H]`` (the ``x @ W`` layout on both sides)."""
    gen = torch.Generator().manual_seed(seed)
    return [torch.randn(D, H, generator=gen) / D ** 0.5,
            torch.randn(H, H, generator=gen) / H ** 0.5, torch.randn(H, generator=gen) * 0.1]


def torch_step(x, W, U, b):
    h = torch.zeros(x.shape[0], U.shape[0])
    for t in range(x.shape[1]):
        h = torch.tanh(x[:, t] @ W + h @ U + b)
    h.square().mean().backward()
    grads = [p.grad for p in (x, W, U, b)]
    for p in (x, W, U, b):
        p.grad = None
    return grads


def burn_step(x, W, U, b):
    batch, seq, width = x.dims()
    h = Tensor.zeros([batch, U.dims()[0]], x.device())
    for t in range(seq):
        h = (x.narrow(1, t, 1).reshape([batch, width]) @ W + h @ U + b).tanh()
    grads = h.square().mean().backward()
    return [p.grad(grads) for p in (x, W, U, b)]


def bench(B: int, T: int, D: int, H: int, rounds: int, inner: int):
    gen = torch.Generator().manual_seed(1)
    xt = torch.randn(B, T, D, generator=gen)
    params = make_params(D, H)
    t_args = [t.clone().requires_grad_(True) for t in [xt, *params]]
    ad = Device.cpu().autodiff()
    b_args = [Tensor.from_data(t, ad).require_grad() for t in [xt, *params]]
    captured = capture(burn_step)
    return run(lambda: torch_step(*t_args), lambda: [g.to_torch() for g in burn_step(*b_args)],
               rounds, inner, tolerance=1e-4,
               captured_step=lambda: [g.to_torch() for g in captured(*b_args)])


if __name__ == "__main__":
    main(__doc__.splitlines()[0], "B,T,D,H", SIZES, bench, lambda B, T, D, H: B * T * H * (D + H))
