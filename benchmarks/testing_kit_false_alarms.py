"""False alarms of the testing kit on correct composites: hypothesis runs per dtype.

Each example draws a composite (attention, layer norm, RMS norm + GELU, GRU cell, SwiGLU,
logsumexp, masked mean, softmax cross-entropy, MLP, clamp-relu block) and its inputs, each value
drawn by hypothesis around the edges (``edge_arrays``: zeros and exact ties; the composites are
correct at them under Burn's rules), and runs ``assert_matches_torch`` (the burn_torch code
against its torch twin, both strategies, float64 truth, float64 finite differences) and
``assert_grads_match_torch``; any AssertionError is a false alarm, counted and printed with its
example. float64 and float32 inputs come as numpy arrays, float16 and bfloat16 as torch tensors.

Usage: python benchmarks/testing_kit_false_alarms.py [--examples 1000] [--dtypes float64,...]
"""
from __future__ import annotations

import argparse
import math
import sys
import time

import numpy as np
import torch
import torch.nn.functional as F
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from burn_torch import activation
from burn_torch.testing import assert_grads_match_torch, assert_matches_torch
from burn_torch.testing.strategies import edge_arrays

DTYPES = {"float64": torch.float64, "float32": torch.float32, "float16": torch.float16,
          "bfloat16": torch.bfloat16}


def _attention(q, k):
    return activation.softmax(q @ k.transpose() / math.sqrt(k.dims()[1]), 1) @ k


def _t_attention(q, k):
    return torch.softmax(q @ k.T / math.sqrt(k.shape[1]), 1) @ k


def _layer_norm(x):
    return (x - x.mean_dim(1)) / (x.var_bias(1) + 1e-5).sqrt()


def _t_layer_norm(x):
    return (x - x.mean(1, keepdim=True)) / (x.var(1, keepdim=True, correction=0) + 1e-5).sqrt()


def _rms_gelu(x, w):
    return activation.gelu(x / (x.square().mean_dim(1) + 1e-5).sqrt() * w)


def _t_rms_gelu(x, w):
    return F.gelu(x / (x.square().mean(1, keepdim=True) + 1e-5).sqrt() * w)


def _gru(h, x):
    z, n = activation.sigmoid(x + h), (x * h).tanh()
    return (1.0 - z) * n + z * h


def _t_gru(h, x):
    z, n = torch.sigmoid(x + h), torch.tanh(x * h)
    return (1 - z) * n + z * h


def _logsumexp(x):
    m = x.max_dim(1)
    return (x - m).exp().sum_dim(1).log() + m


def _t_logsumexp(x):
    m = x.max(1, keepdim=True).values
    return (x - m).exp().sum(1, keepdim=True).log() + m


def _masked_mean(x, y):
    mask = y.greater_elem(0.0)
    return x.mask_fill(mask.bool_not(), 0.0).sum_dim(1) / (mask.float().cast(x.dtype()).sum_dim(1) + 1.0)


def _t_masked_mean(x, y):
    mask = y > 0
    return (x * mask).sum(1, keepdim=True) / (mask.to(x.dtype).sum(1, keepdim=True) + 1)


def _xent(x, y):
    return -(activation.log_softmax(x, 1) * activation.softmax(y, 1)).sum_dim(1)


def _t_xent(x, y):
    return -(torch.log_softmax(x, 1) * torch.softmax(y, 1)).sum(1, keepdim=True)


COMPOSITES = {
    "attention": (_attention, _t_attention, 2),
    "layer_norm": (_layer_norm, _t_layer_norm, 1),
    "rms_norm_gelu": (_rms_gelu, _t_rms_gelu, 2),
    "gru_cell": (_gru, _t_gru, 2),
    "swiglu": (lambda a, b: a * activation.silu(b), lambda a, b: a * F.silu(b), 2),
    "logsumexp": (_logsumexp, _t_logsumexp, 1),
    "masked_mean": (_masked_mean, _t_masked_mean, 2),
    "softmax_xent": (_xent, _t_xent, 2),
    "mlp": (lambda x, w: activation.relu(x @ w.transpose()).tanh(), lambda x, w: torch.relu(x @ w.T).tanh(), 2),
    "clamp_relu": (lambda x, y: activation.relu(x.clamp(-1.0, 1.0) * y), lambda x, y: torch.relu(x.clamp(-1, 1) * y), 2),
}


def _as_input(a: np.ndarray, dtype: torch.dtype):
    if dtype in (torch.float64, torch.float32):
        return a.astype(np.float64 if dtype is torch.float64 else np.float32)
    return torch.from_numpy(a).to(dtype)


def run(dtype_name: str, examples: int) -> tuple[int, int, list[str]]:
    """(examples run, false alarms, the first few reports) for one dtype."""
    dtype = DTYPES[dtype_name]
    counts = {"run": 0, "alarms": 0}
    reports: list[str] = []

    @settings(max_examples=examples, deadline=None, database=None, derandomize=True,
              suppress_health_check=list(HealthCheck))
    @given(name=st.sampled_from(sorted(COMPOSITES)), rows=st.integers(1, 3), cols=st.integers(2, 4),
           data=st.data())
    def check(name, rows, cols, data):
        burn, twin, arity = COMPOSITES[name]
        arrays = [data.draw(edge_arrays((rows, cols), -2.0, 2.0)) for _ in range(arity)]
        inputs = [_as_input(a, dtype) for a in arrays]
        counts["run"] += 1
        try:
            assert_matches_torch(burn, twin, *inputs)
            assert_grads_match_torch(burn, *inputs)
        except AssertionError as err:
            counts["alarms"] += 1
            if len(reports) < 5:
                reports.append(f"{name} {[a.tolist() for a in arrays]}:\n{err}")

    check()
    return counts["run"], counts["alarms"], reports


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--examples", type=int, default=1000)
    parser.add_argument("--dtypes", default=",".join(DTYPES))
    args = parser.parse_args()
    failed = 0
    for name in args.dtypes.split(","):
        t0 = time.perf_counter()
        n, alarms, reports = run(name, args.examples)
        failed += alarms
        print(f"{name:9s} {n:5d} examples  {alarms:3d} false alarms  ({time.perf_counter() - t0:.0f} s)")
        for r in reports:
            print("   ", r.replace("\n", "\n    "))
    return int(failed > 0)


if __name__ == "__main__":
    sys.exit(main())
