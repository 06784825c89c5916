"""Data-parallel training step on 1 and 2 processes: gradient sync in backward (bucketed, per
parameter) vs sync after backward.

Each step: forward through L linear+relu layers of width H on this rank's share of a global
batch of B rows (the same B for every world size), mean-squared loss, backward, SGD step.

* *bucketed*: the model is marked distributed (``model.distributed()``); backward launches
  one all-reduce per bucket of gradients (``dist.bucket_cap_mb()``, 25 MiB: the small layers
  here share one or a few buckets) as soon as the bucket's gradients are complete.
* *per parameter*: the same with ``set_bucket_cap_mb(0)``: one all-reduce per gradient,
  launched as soon as that gradient is complete.
* *after backward*: a plain backward, then every gradient all-reduced (all launched, then all
  waited for) and averaged before the step: what one writes without distributed backward.

Ranks are local processes on gloo over loopback, one torch thread each; a world of 1 still runs
the collectives (a one-process group). Modes alternate round by round in the same processes;
before timing, both modes' gradients are checked equal. Prints per-step times (ms, the
fastest round) and the
ratios bucketed / after backward and per parameter / after backward (target: <= 1.0; the gain
grows with the all-reduce's cost relative to the backward it overlaps), and bucketed / per
parameter.

Usage: python benchmarks/distributed_step.py [--quick] [--sizes B,H,L ...]
"""
from __future__ import annotations

import argparse
import json
import os
import socket
import subprocess
import sys
import time

import torch

from burn_torch import Device, Tensor, distributed as dist, nn
from burn_torch.module import Module
from burn_torch.optim import GradientsParams, SgdConfig

SIZES = [(64, 64, 8), (256, 256, 6), (256, 1024, 4)]
WORLDS = (1, 2)
TIMEOUT = 600  # seconds for one world size's run


class Mlp(Module):
    def __init__(self, device: Device, H: int, L: int) -> None:
        super().__init__()
        device.seed(0)
        self.layers = [nn.LinearConfig(H, H).init(device) for _ in range(L)]

    def forward(self, x: Tensor) -> Tensor:
        for layer in self.layers:
            x = nn.relu(layer.forward(x))
        return x


class Stepper:
    """One mode's training state: ``step()`` runs one step and returns the gradients used."""

    def __init__(self, overlapped: bool, device: Device, H: int, L: int, x, y,
                 bucket_mb: float = 25) -> None:
        self.overlapped = overlapped
        self.bucket_mb = bucket_mb
        self.device = device
        model = dist.broadcast_module(Mlp(device, H, L).train())
        self.model = model.distributed() if overlapped else model
        self.optim = SgdConfig().init()
        self.x, self.y = x, y

    def step(self) -> list[torch.Tensor]:
        dist.set_bucket_cap_mb(self.bucket_mb)
        model = self.model
        loss = (model.forward(self.x) - self.y).powf_scalar(2.0).mean()
        grads = GradientsParams.from_grads(loss.backward(), model)
        if not self.overlapped:
            averaged = [grads.get(i).to_torch() for i in grads.ids()]  # the container's buffers
            works = [torch.distributed.all_reduce(g, async_op=True) for g in averaged]
            for g, work in zip(averaged, works):
                work.wait()
                g.div_(dist.world_size())
        used = [grads.get(p.id).to_torch().clone() for p in model.params()]
        model = self.optim.step(1e-3, model, grads)
        self.model = model.distributed() if self.overlapped else model
        return used


def worker(B: int, H: int, L: int, rounds: int, inner: int) -> None:
    """One rank: checks both modes agree, times them interleaved; rank 0 prints a JSON line."""
    torch.set_num_threads(1)
    device = dist.init().autodiff()
    gen = torch.Generator().manual_seed(1)
    x, y = torch.randn(B, H, generator=gen), torch.randn(B, H, generator=gen)
    x, y = (Tensor.from_data(dist.shard(t), device) for t in (x, y))
    modes = {"after backward": Stepper(False, device, H, L, x, y),
             "per parameter": Stepper(True, device, H, L, x, y, bucket_mb=0),
             "bucketed": Stepper(True, device, H, L, x, y)}
    ref = modes["after backward"].step()
    worst = max((a - b).abs().max().item() for name in ("per parameter", "bucketed")
                for a, b in zip(ref, modes[name].step()))
    assert worst < 1e-5, f"the modes' gradients disagree by {worst}"
    times = {name: [] for name in modes}
    for _ in range(rounds):
        for name, stepper in modes.items():
            dist.barrier()
            start = time.perf_counter()
            for _ in range(inner):
                stepper.step()
            times[name].append((time.perf_counter() - start) / inner)
    if dist.rank() == 0:
        print(json.dumps({name: min(t) for name, t in times.items()} | {"diff": worst}))
    dist.shutdown()


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def launch(world: int, args: list[str]) -> dict:
    """Runs ``world`` ranks of this script's worker with ``args``; returns rank 0's timings."""
    env = dict(os.environ, OMP_NUM_THREADS="1", MASTER_ADDR="127.0.0.1", MASTER_PORT=str(_free_port()),
               WORLD_SIZE=str(world))
    procs = [subprocess.Popen([sys.executable, __file__, "--worker", *args], stdout=subprocess.PIPE,
                              text=True, env=dict(env, RANK=str(r), LOCAL_RANK=str(r)))
             for r in range(world)]
    try:
        outs = [p.communicate(timeout=TIMEOUT)[0] for p in procs]
    finally:
        for p in procs:
            if p.poll() is None:
                p.kill()
    if any(p.returncode for p in procs):
        raise SystemExit(f"a rank failed (exit codes {[p.returncode for p in procs]})")
    return json.loads(outs[0].strip().splitlines()[-1])


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true", help="fewer rounds (a smoke run)")
    ap.add_argument("--sizes", nargs="*", help="B,H,L triples (default: %(default)s)")
    ap.add_argument("--worker", nargs=5, type=int, help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.worker:
        worker(*args.worker)
        return
    sizes = [tuple(int(v) for v in s.split(",")) for s in args.sizes] if args.sizes else SIZES
    rounds = 3 if args.quick else 11
    print(f"torch {torch.__version__}, gloo over loopback, 1 torch thread per process")
    print(f"{'B,H,L':>14} | {'processes':>9} | {'after backward':>14} | {'per param':>10} | "
          f"{'bucketed':>10} | {'per/after':>9} | {'bkt/after':>9} | {'bkt/per':>7} | max|grad diff|")
    for B, H, L in sizes:
        inner = max(1, min(20, int(2e8 // (B * H * H * L))))
        for world in WORLDS:
            r = launch(world, [str(v) for v in (B, H, L, rounds, inner)])
            after, per, bkt = r["after backward"], r["per parameter"], r["bucketed"]
            print(f"{f'{B},{H},{L}':>14} | {world:>9} | {after * 1e3:11.2f} ms | "
                  f"{per * 1e3:7.2f} ms | {bkt * 1e3:7.2f} ms | {per / after:9.3f} | "
                  f"{bkt / after:9.3f} | {bkt / per:7.3f} | {r['diff']:.1e}", flush=True)


if __name__ == "__main__":
    main()
