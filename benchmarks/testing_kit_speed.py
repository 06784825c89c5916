"""Milliseconds per default small check of the testing kit.

A "default small check" is one call with the defaults (both checkpointing strategies, the
float64 directional finite difference) on a [3, 4] float64 input: ``assert_matches_torch(
lambda x: x.exp(), torch.exp, X)`` and ``assert_grads_match_torch(lambda x: x.exp(), X)``; also
the same calls without finite differences and with a single strategy, to show where the time
goes. Prints the median of ``--rounds`` rounds of ``--inner`` calls each, and the machine's load
(timings on a loaded machine are inflated).

Usage: python benchmarks/testing_kit_speed.py [--rounds 7] [--inner 200]
"""
from __future__ import annotations

import argparse
import os
import statistics
import time

import numpy as np
import torch

from burn_torch.autodiff.strategy import GradientCheckpointingStrategy as Strategy
from burn_torch.testing import assert_grads_match_torch, assert_matches_torch

X = np.random.default_rng(0).standard_normal((3, 4))


def _exp(x):
    return x.exp()


CASES = {
    "assert_matches_torch (default: 2 strategies + finite differences)":
        lambda: assert_matches_torch(_exp, torch.exp, X),
    "assert_matches_torch, numeric=False":
        lambda: assert_matches_torch(_exp, torch.exp, X, numeric=False),
    "assert_matches_torch, numeric=False, DISABLED only":
        lambda: assert_matches_torch(_exp, torch.exp, X, numeric=False, strategies=(Strategy.DISABLED,)),
    "assert_grads_match_torch (default: 2 strategies + finite differences)":
        lambda: assert_grads_match_torch(_exp, X),
    "torch alone: exp and its backward (for scale)": lambda: _torch_alone(),
}


def _torch_alone():
    x = torch.tensor(X, requires_grad=True)
    torch.autograd.grad(torch.exp(x).sum(), x)


def median_ms(fn, rounds: int, inner: int) -> float:
    for _ in range(20):
        fn()
    times = []
    for _ in range(rounds):
        t0 = time.perf_counter()
        for _ in range(inner):
            fn()
        times.append((time.perf_counter() - t0) / inner)
    return statistics.median(times) * 1e3


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=7)
    parser.add_argument("--inner", type=int, default=200)
    parser.add_argument("--threads", type=int, default=1)
    args = parser.parse_args()
    torch.set_num_threads(args.threads)
    load = os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan")
    print(f"cpus {os.cpu_count()}, load average {load:.1f}, torch threads {args.threads}")
    for name, fn in CASES.items():
        print(f"{median_ms(fn, args.rounds, args.inner):8.3f} ms  {name}")


if __name__ == "__main__":
    main()
