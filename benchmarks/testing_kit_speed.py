"""Milliseconds per check of the testing kit, and examples per second of a hypothesis property.

Checks with the defaults (both checkpointing strategies, the float64 directional finite
difference): ``exp`` on a [3, 4] float64 input through ``assert_matches_torch`` and
``assert_grads_match_torch`` (the "default small check"), a layer norm written as a composite on
a [4, 8] float32 input, and Burn's ``Gru`` against ``torch.nn.GRU`` (``assert_module_matches_torch``);
the small check also without finite differences and with a single strategy, to show where the
time goes. Then a hypothesis property (``@given`` over ``strategies.float_arrays`` with distinct
values, 200 examples, derandomized) checking the layer norm: examples per second.

Times are CPU seconds of this process (``time.process_time``), so a machine loaded by other
processes inflates them far less than wall-clock time; torch keeps its default intra-op threads
unless ``--threads N`` is given (the kit runs small checks on one thread itself, see
``burn_torch.testing.threads``). Each figure is the median over ``--rounds`` rounds (the cases
interleaved in each round) of ``--inner`` calls; the minimum is printed beside it.

Usage: python benchmarks/testing_kit_speed.py [--rounds 9] [--inner 100]
"""
from __future__ import annotations

import argparse
import os
import statistics
import time

import numpy as np
import torch
from hypothesis import given, settings

from burn_torch import Device, nn
from burn_torch.autodiff.strategy import GradientCheckpointingStrategy as Strategy
from burn_torch.testing import (assert_grads_match_torch, assert_matches_torch,
                                assert_module_matches_torch, strategies)

X = np.random.default_rng(0).standard_normal((3, 4))
ROWS = np.random.default_rng(1).standard_normal((4, 8)).astype(np.float32)
SEQUENCE = np.random.default_rng(2).standard_normal((2, 3, 4)).astype(np.float32)
GRU = nn.GruConfig(4, 5, True).init(Device.cpu().autodiff())
PROPERTY_EXAMPLES = 200


def _exp(x):
    return x.exp()


def layer_norm(x):
    """Layer norm over the last dim, as a burn_torch composite."""
    centred = x - x.mean_dim(1)
    return centred / (centred.square().mean_dim(1) + 1e-5).sqrt()


def torch_layer_norm(x):
    return torch.nn.functional.layer_norm(x, x.shape[1:], eps=1e-5)


class TorchGru(torch.nn.GRU):
    """torch's GRU returning its output only, as Burn's ``Gru.forward`` does."""

    def forward(self, sequence):
        return super().forward(sequence)[0]


TWIN = TorchGru(4, 5, batch_first=True)

CASES = {
    "assert_matches_torch, exp [3, 4] float64 (the default small check)":
        lambda: assert_matches_torch(_exp, torch.exp, X),
    "  numeric=False": lambda: assert_matches_torch(_exp, torch.exp, X, numeric=False),
    "  numeric=False, DISABLED only":
        lambda: assert_matches_torch(_exp, torch.exp, X, numeric=False, strategies=(Strategy.DISABLED,)),
    "assert_grads_match_torch, exp [3, 4] float64": lambda: assert_grads_match_torch(_exp, X),
    "assert_matches_torch, layer norm [4, 8] float32":
        lambda: assert_matches_torch(layer_norm, torch_layer_norm, ROWS),
    "assert_module_matches_torch, Gru(4, 5) on [2, 3, 4] float32":
        lambda: assert_module_matches_torch(GRU, TWIN, SEQUENCE),
    "torch alone: exp and its backward (for scale)": lambda: _torch_alone(),
}


def _torch_alone():
    x = torch.tensor(X, requires_grad=True)
    torch.autograd.grad(torch.exp(x).sum(), x)


@settings(max_examples=PROPERTY_EXAMPLES, derandomize=True, database=None, deadline=None)
# distinct values: rows of (near-)equal values make a float32 layer norm ill-conditioned, a
# false alarm rather than a timing
@given(x=strategies.float_arrays(strategies.shapes(2, 2, 2, 8), distinct=True, dtype=np.float32))
def layer_norm_property(x):
    assert_matches_torch(layer_norm, torch_layer_norm, x)


def cpu_ms(fn, inner: int) -> float:
    t0 = time.process_time()
    for _ in range(inner):
        fn()
    return (time.process_time() - t0) / inner * 1e3


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=9)
    parser.add_argument("--inner", type=int, default=100)
    parser.add_argument("--threads", type=int, default=0, help="torch intra-op threads (0: torch's default)")
    args = parser.parse_args()
    if args.threads:
        torch.set_num_threads(args.threads)
    load = os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan")
    print(f"cpus {os.cpu_count()}, load average {load:.1f}, torch threads {torch.get_num_threads()}; "
          f"CPU ms per check, median (min) of {args.rounds} rounds of {args.inner}")
    for fn in CASES.values():
        for _ in range(20):
            fn()
    times = {name: [] for name in CASES}
    for _ in range(args.rounds):
        for name, fn in CASES.items():
            times[name].append(cpu_ms(fn, args.inner))
    for name, ts in times.items():
        print(f"{statistics.median(ts):8.3f} ({min(ts):.3f}) ms  {name}")
    rates = []
    for _ in range(max(3, args.rounds // 3)):
        t0 = time.process_time()
        layer_norm_property()
        rates.append(PROPERTY_EXAMPLES / (time.process_time() - t0))
    print(f"{statistics.median(rates):8.0f} ({max(rates):.0f}) examples/s  hypothesis property: "
          f"layer norm via assert_matches_torch on distinct float_arrays([2..8, 2..8], float32)")


if __name__ == "__main__":
    main()
