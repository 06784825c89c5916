"""One MLP training step, burn_torch vs torch autograd, interleaved in one process.

Each step: forward through L linear+relu layers of width H on a batch of B, mean-squared loss,
backward, and the gradient of every weight and bias read out. Prints per-size times (µs, min
over interleaved rounds) and the ratio burn_torch / torch autograd (target: <= 0.95 at every
size), then the same step through ``burn_torch.capture`` (replayed after one recording call;
target <= 0.6 at B8 H16 L4) and a tape-free hand-written backward on the same torch kernels
(the floor for any layer over torch's kernels).

Usage: python benchmarks/mlp_step.py [--quick] [--threads N] [--no-autotune]
"""
from __future__ import annotations

import torch

from burn_torch import Device, Tensor
from burn_torch.activation import relu
from burn_torch.capture import capture

from _harness import main, run

SIZES = [(8, 16, 4), (64, 128, 8), (256, 512, 8), (1024, 1024, 4)]


def make_params(H: int, L: int, seed: int = 0):
    gen = torch.Generator().manual_seed(seed)
    ws = [torch.randn(H, H, generator=gen) / H ** 0.5 for _ in range(L)]
    bs = [torch.randn(H, generator=gen) * 0.1 for _ in range(L)]
    return ws, bs


def torch_step(x, y, ws, bs):
    h = x
    for w, b in zip(ws, bs):
        h = torch.relu(h @ w + b)
    loss = (h - y).square().mean()
    loss.backward()
    grads = [p.grad for p in ws + bs]
    for p in ws + bs:
        p.grad = None
    return grads


def burn_step(x, y, ws, bs):
    h = x
    for w, b in zip(ws, bs):
        h = relu(h @ w + b)
    loss = (h - y).square().mean()
    grads = loss.backward()
    return [p.grad(grads) for p in ws + bs]


def floor_step(x, y, ws, bs):
    """The hand-written backward of :func:`torch_step` on plain tensors (no tape), each layer's
    output freed once its backward has used it (as torch autograd frees what it saved)."""
    hs = [x]
    for w, b in zip(ws, bs):
        hs.append(torch.relu(torch.addmm(b, hs[-1], w)))
    d = hs[-1] - y
    g = d * (2.0 / d.numel())
    gws, gbs = [], []
    for i in range(len(ws) - 1, -1, -1):
        g = torch.ops.aten.threshold_backward(g, hs.pop(), 0)  # relu's output: > 0 where its input is
        gws.append(hs[-1].t() @ g)
        gbs.append(g.sum(0))
        if i:
            g = g @ ws[i].t()
    return gws[::-1] + gbs[::-1]


def bench(B: int, H: int, L: int, rounds: int, inner: int):
    gen = torch.Generator().manual_seed(1)
    xt = torch.randn(B, H, generator=gen)
    yt = torch.randn(B, H, generator=gen)
    ws, bs = make_params(H, L)
    t_ws = [w.clone().requires_grad_(True) for w in ws]
    t_bs = [b.clone().requires_grad_(True) for b in bs]
    ad = Device.cpu().autodiff()
    b_ws = [Tensor.from_data(w, ad).require_grad() for w in ws]
    b_bs = [Tensor.from_data(b, ad).require_grad() for b in bs]
    bx = Tensor.from_data(xt, Device.cpu())
    by = Tensor.from_data(yt, Device.cpu())
    captured = capture(burn_step)
    return run(lambda: torch_step(xt, yt, t_ws, t_bs),
               lambda: [g.to_torch() for g in burn_step(bx, by, b_ws, b_bs)],
               rounds, inner, tolerance=1e-4,
               captured_step=lambda: [g.to_torch() for g in captured(bx, by, b_ws, b_bs)],
               floor_step=lambda: floor_step(xt, yt, ws, bs))


if __name__ == "__main__":
    main(__doc__.splitlines()[0], "B,H,L", SIZES, bench, lambda B, H, L: B * H * H * L)
