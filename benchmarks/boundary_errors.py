"""What the errors at the torch boundary cost a training step: nothing, and why not ``__getattr__``.

``burn_torch.torch_spellings`` gives ``Tensor`` a ``__torch_function__`` (torch functions given a
burn_torch Tensor name the burn_torch call) and a raising descriptor under each torch-only
attribute name (``x.view`` names ``x.reshape``). This times one small MLP training step
(forward, loss, backward, two gradient reads) interleaved in one process with the Tensor class
in three states: as shipped, stripped of both (the baseline), and with a ``__getattr__``
fallback instead of the descriptors, the obvious alternative. Prints µs per step and each
state's ratio to the baseline. On Python 3.11 a type with ``__getattr__`` loses the
interpreter's attribute specialisations for every attribute, hence the third row.

Usage: python benchmarks/boundary_errors.py [--quick]
"""
from __future__ import annotations

import argparse
import contextlib

import torch

from burn_torch import Device, Tensor, activation, torch_spellings

from _harness import time_sides


def _step_fn():
    device = Device.cpu().autodiff()
    x = Tensor.ones([4, 8], device)
    w = Tensor.ones([8, 8], device).require_grad()
    b = Tensor.ones([8], device).require_grad()

    def step():
        h = activation.relu(x.matmul(w) + b)
        grads = (h * h).mean().backward()
        return w.grad(grads), b.grad(grads)
    return step


def _fallback(self, name):
    raise AttributeError(f"'Tensor' object has no attribute {name!r}", name=name)


@contextlib.contextmanager
def _state(name: str):
    """The Tensor class as ``name`` says for the duration of the block, then as shipped."""
    saved = {k: v for k, v in vars(Tensor).items()
             if k == "__torch_function__" or isinstance(v, torch_spellings.TorchOnly)}
    if name != "shipped":
        for k in saved:
            delattr(Tensor, k)
    if name == "getattr fallback":
        Tensor.__getattr__ = _fallback
    try:
        yield
    finally:
        if name == "getattr fallback":
            del Tensor.__getattr__
        if name != "shipped":
            for k, v in saved.items():
                setattr(Tensor, k, v)


STATES = ("stripped", "shipped", "getattr fallback")


def _timed(name: str, step):
    def run():
        with _state(name):
            for _ in range(50):
                step()
    return run


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="a few rounds only")
    args = parser.parse_args()
    torch.set_num_threads(1)
    step = _step_fn()
    seconds = time_sides([_timed(s, step) for s in STATES], rounds=3 if args.quick else 30, inner=1)
    base = seconds[0]
    print(f"{'Tensor class':<18} {'µs/step':>9} {'vs stripped':>12}")
    for name, s in zip(STATES, seconds):
        print(f"{name:<18} {s / 50 * 1e6:9.1f} {s / base:12.3f}")


if __name__ == "__main__":
    main()
