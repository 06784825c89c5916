"""The MLP and transformer training steps on a CUDA device: torch autograd vs burn_torch eager vs
burn_torch captured (``burn_torch.capture``, replayed through a CUDA graph), interleaved.

Each side's time is the fastest of several rounds, each round ``inner`` steps followed by
``torch.cuda.synchronize()``. Prints ratios to torch autograd. Without CUDA it says so and exits.

Usage: python benchmarks/gpu_step.py [--quick]
"""
from __future__ import annotations

import argparse
import time

import torch

from burn_torch import Device, Tensor
from burn_torch.capture import capture

import mlp_step

SIZES = [(8, 16, 4), (256, 512, 8), (1024, 1024, 4)]


def timed(step, inner: int, rounds: int) -> float:
    best = float("inf")
    for _ in range(rounds):
        torch.cuda.synchronize()
        t0 = time.perf_counter()
        for _ in range(inner):
            step()
        torch.cuda.synchronize()
        best = min(best, (time.perf_counter() - t0) / inner)
    return best


def bench(B: int, H: int, L: int, rounds: int) -> tuple:
    cuda = torch.device("cuda")
    gen = torch.Generator().manual_seed(1)
    xt, yt = torch.randn(B, H, generator=gen).to(cuda), torch.randn(B, H, generator=gen).to(cuda)
    ws, bs = mlp_step.make_params(H, L)
    t_ws = [w.to(cuda).requires_grad_(True) for w in ws]
    t_bs = [b.to(cuda).requires_grad_(True) for b in bs]
    gpu = Device.cuda(0)
    ad = gpu.autodiff()
    b_ws = [Tensor.from_data(w.to(cuda), ad).require_grad() for w in ws]
    b_bs = [Tensor.from_data(b.to(cuda), ad).require_grad() for b in bs]
    bx, by = Tensor.from_data(xt, gpu), Tensor.from_data(yt, gpu)
    captured = capture(mlp_step.burn_step)
    sides = [lambda: mlp_step.torch_step(xt, yt, t_ws, t_bs),
             lambda: mlp_step.burn_step(bx, by, b_ws, b_bs),
             lambda: captured(bx, by, b_ws, b_bs)]
    for side in sides:
        side()
    eager = [g.to_torch() for g in sides[1]()]
    replay = [g.to_torch() for g in sides[2]()]
    assert all(torch.equal(a, b) for a, b in zip(eager, replay)), "replay differs from eager"
    graph = next(iter(captured._plans.values())).cuda_graph is not None
    times = [timed(s, 20, rounds) for s in sides]
    return times, graph


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true")
    args = ap.parse_args()
    if not torch.cuda.is_available():
        print("gpu_step: no CUDA device; nothing to measure")
        return
    print(f"torch {torch.__version__}, {torch.cuda.get_device_name()}")
    print(f"{'B,H,L':>14} | {'torch':>10} | {'burn/torch':>10} | {'captured/torch':>14} | graph")
    for B, H, L in SIZES:
        (tt, tb, tc), graph = bench(B, H, L, 3 if args.quick else 10)
        print(f"{f'{B},{H},{L}':>14} | {tt * 1e6:7.1f} µs | {tb / tt:10.3f} | {tc / tt:14.3f} | "
              f"{'cuda graph' if graph else 'plain replay'}", flush=True)


if __name__ == "__main__":
    main()
