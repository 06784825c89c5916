"""One MLP training step, burn_torch vs torch autograd, interleaved in one process.

Each step: forward through L linear+relu layers of width H on a batch of B, mean-squared loss,
backward, and the gradient of every weight and bias read out. Prints per-size medians (µs) and
the ratio burn_torch / torch autograd (target: <= 1.0 at every size).

Usage: python benchmarks/mlp_step.py [--quick] [--threads N]
"""
from __future__ import annotations

import argparse
import statistics
import time

import torch

from burn_torch import Device, Tensor
from burn_torch.activation import relu

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

    # correctness guard: the two sides must agree before timing means anything
    g_t = torch_step(xt, yt, t_ws, t_bs)
    g_b = burn_step(bx, by, b_ws, b_bs)
    worst = max((a - b.to_torch()).abs().max().item() for a, b in zip(g_t, g_b))
    assert worst < 1e-4, f"gradients disagree by {worst}"

    times_t, times_b = [], []
    for _ in range(2):  # warm-up
        torch_step(xt, yt, t_ws, t_bs)
        burn_step(bx, by, b_ws, b_bs)
    for _ in range(rounds):
        t0 = time.perf_counter()
        for _ in range(inner):
            torch_step(xt, yt, t_ws, t_bs)
        t1 = time.perf_counter()
        for _ in range(inner):
            burn_step(bx, by, b_ws, b_bs)
        t2 = time.perf_counter()
        times_t.append((t1 - t0) / inner)
        times_b.append((t2 - t1) / inner)
    return statistics.median(times_t), statistics.median(times_b), worst


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true", help="fewer rounds (a smoke run)")
    ap.add_argument("--threads", type=int, default=None, help="torch intra-op threads")
    args = ap.parse_args()
    if args.threads:
        torch.set_num_threads(args.threads)
    print(f"torch {torch.__version__}, {torch.get_num_threads()} threads")
    print(f"{'B,H,L':>16} | {'torch autograd':>14} | {'burn_torch':>11} | {'ratio':>6} | max|grad diff|")
    for B, H, L in SIZES:
        work = B * H * H * L
        inner = max(1, min(200, int(2e8 // max(work, 1))))
        rounds = 5 if args.quick else 21
        tt, tb, worst = bench(B, H, L, rounds, inner)
        print(f"{f'{B},{H},{L}':>16} | {tt * 1e6:11.1f} µs | {tb * 1e6:8.1f} µs | {tb / tt:6.3f} | {worst:.1e}")


if __name__ == "__main__":
    main()
