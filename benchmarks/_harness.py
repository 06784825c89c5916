"""Shared timing harness for the training-step benchmarks: burn_torch vs torch autograd.

A benchmark gives two step functions that each run one training step (forward, loss, backward)
and return the gradients they produced. :func:`run` first guards correctness (the two sides'
gradients must agree), then times the sides interleaved in one process (round after round, each
round running ``inner`` steps of torch then ``inner`` of burn_torch, after warm-up steps) and
reports, per side, the fastest round's time per step (the minimum over rounds: on a loaded
machine the noise only ever adds time), with, when given, the same step through
``burn_torch.capture`` and a hand-written floor (the step's backward written out by hand on plain
torch tensors and torch's kernels, no tape: what any autodiff layer over those kernels can at
best reach). :func:`main` parses the common flags and prints one table row per size;
:func:`time_sides` times any number of sides the same way.
"""
from __future__ import annotations

import argparse
import time
from typing import Callable, Iterable, Sequence

import torch


def max_abs_diff(torch_grads: Sequence[torch.Tensor], burn_grads: Sequence[torch.Tensor]) -> float:
    """The largest absolute difference over matching gradient pairs (torch tensors)."""
    return max((a - b).abs().max().item() for a, b in zip(torch_grads, burn_grads, strict=True))


def cross_entropy_backward(logits: torch.Tensor, labels: torch.Tensor) -> torch.Tensor:
    """The gradient of ``F.cross_entropy(logits, labels)`` (mean over rows) with respect to the
    ``[N, C]`` logits, through the kernels torch autograd runs for it (log-softmax and NLL loss,
    forward and backward): what a hand-written floor step computes for its loss."""
    logp = torch.log_softmax(logits, 1)
    _, total = torch.ops.aten.nll_loss_forward(logp, labels, None, 1, -100)
    g = torch.ops.aten.nll_loss_backward(torch.ones((), dtype=logp.dtype), logp, labels, None, 1,
                                         -100, total)
    return torch._log_softmax_backward_data(g, logp, 1, logp.dtype)


def time_sides(steps: Sequence[Callable[[], object]], rounds: int, inner: int,
               warmup: int = 2) -> list[float]:
    """Seconds per step of each side: the minimum over ``rounds`` rounds, each round running
    ``inner`` steps of every side in turn (so load changes hit all sides alike)."""
    for _ in range(warmup):
        for step in steps:
            step()
    best = [float("inf")] * len(steps)
    clock = time.perf_counter
    for _ in range(rounds):
        for i, step in enumerate(steps):
            t0 = clock()
            for _ in range(inner):
                step()
            best[i] = min(best[i], (clock() - t0) / inner)
    return best


def time_interleaved(torch_step: Callable[[], object], burn_step: Callable[[], object],
                     rounds: int, inner: int, warmup: int = 2) -> tuple[float, float]:
    """Seconds per step of each side (see :func:`time_sides`)."""
    tt, tb = time_sides((torch_step, burn_step), rounds, inner, warmup)
    return tt, tb


Step = Callable[[], Sequence[torch.Tensor]]


def run(torch_step: Step, burn_step: Step, rounds: int, inner: int, tolerance: float,
        captured_step: Step | None = None,
        in_torch_layout: Callable[[Sequence[torch.Tensor]], Sequence[torch.Tensor]] | None = None,
        floor_step: Step | None = None) -> tuple:
    """Guards then times one configuration; returns ``(torch s, burn s, max diff, captured s,
    floor s)`` per step, the last two None when ``captured_step`` / ``floor_step`` is not given.

    Each step returns its gradients as torch tensors, in the same order and layout on the torch
    and floor sides and burn_torch's, or, with ``in_torch_layout``, burn_torch's in its own layout
    and order, which that function maps to torch's for the check only (a conversion that copies
    is then not timed). Raises AssertionError when burn_torch's or the floor's gradients differ
    from torch's by ``tolerance`` or more, or when the captured step's gradients (checked on its
    replay, after the recording call) are not bit-equal to eager's.
    """
    reference = torch_step()
    burn_grads = burn_step()
    worst = max_abs_diff(reference, burn_grads if in_torch_layout is None
                         else in_torch_layout(burn_grads))
    assert worst < tolerance, f"gradients disagree by {worst} (tolerance {tolerance})"
    steps = [torch_step, burn_step]
    if captured_step is not None:
        captured_step()  # the recording call
        eager = burn_step()
        assert all(torch.equal(a, b) for a, b in zip(eager, captured_step(), strict=True)), \
            "captured replay is not bit-equal to eager"
        steps.append(captured_step)
    if floor_step is not None:
        floor = max_abs_diff(reference, floor_step())
        assert floor < tolerance, f"hand-written floor disagrees by {floor} (tolerance {tolerance})"
        steps.append(floor_step)
    times = time_sides(steps, rounds, inner)
    return (times[0], times[1], worst, times[2] if captured_step is not None else None,
            times[-1] if floor_step is not None else None)


def main(description: str, label: str, sizes: Iterable, bench: Callable[..., tuple],
         work: Callable[..., float]) -> None:
    """Parses ``--quick``/``--threads``/``--no-autotune``, then prints one row per size.

    ``bench(*size, rounds=, inner=)`` returns what :func:`run` returns; ``work(*size)`` is a
    rough cost of one step, used to pick ``inner`` so each timed block lasts a similar time.
    """
    ap = argparse.ArgumentParser(description=description)
    ap.add_argument("--quick", action="store_true", help="fewer rounds (a smoke run)")
    ap.add_argument("--threads", type=int, default=None, help="torch intra-op threads")
    ap.add_argument("--no-autotune", action="store_true",
                    help="burn_torch runs torch's default kernels (the same kernels as torch)")
    args = ap.parse_args()
    if args.threads:
        torch.set_num_threads(args.threads)
    if args.no_autotune:
        from burn_torch import autotune
        autotune.set_enabled(False)
    print(f"torch {torch.__version__}, {torch.get_num_threads()} threads, autotune "
          f"{'off' if args.no_autotune else 'on'}")
    rows = []
    rounds = 5 if args.quick else 21
    for size in sizes:
        inner = max(1, min(200, int(2e8 // max(work(*size), 1))))
        rows.append((size, bench(*size, rounds=rounds, inner=inner)))
        tt, tb, worst, tc, tf = rows[-1][1]
        if len(rows) == 1:
            print(f"{label:>18} | {'torch autograd':>14} | {'burn_torch':>11} | {'ratio':>6} | "
                  + (f"{'captured':>11} | {'ratio':>6} | " if tc is not None else "")
                  + (f"{'floor':>11} | {'ratio':>6} | " if tf is not None else "")
                  + "max|grad diff|")
        name = ",".join(str(s) for s in size)
        extra = "".join(f"{t * 1e6:8.1f} µs | {t / tt:6.3f} | " for t in (tc, tf) if t is not None)
        print(f"{name:>18} | {tt * 1e6:11.1f} µs | {tb * 1e6:8.1f} µs | {tb / tt:6.3f} | "
              f"{extra}{worst:.1e}", flush=True)
