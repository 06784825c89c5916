"""What the side-by-side examples share: two-column output, the seed's per-parameter comparison
tables, gradients in PyTorch's names and layouts, the final agreement check, and the folder
examples write their files to.

The example scripts import it from their own folder; their notebooks run with ``examples/`` as
the working directory, so ``import _side_by_side`` finds it there too.
"""
from __future__ import annotations

import math
import os
import sys
from itertools import zip_longest
from pathlib import Path
from typing import Mapping, Sequence

import torch

from burn_torch import Tensor
from burn_torch.compat import to_torch_state_dict
from burn_torch.module import Module, ModuleMapper
from burn_torch.optim import GradientsParams

#: Where examples write their files (plots, generated scripts): ``examples/output/`` unless the
#: ``BURN_TORCH_EXAMPLES_OUTPUT`` environment variable names another folder (the tests do).
OUTPUT = Path(os.environ.get("BURN_TORCH_EXAMPLES_OUTPUT") or Path(__file__).resolve().parent / "output")

#: The message every failed agreement check starts with.
DISAGREE = "burn_torch and PyTorch disagree"


def spirals(per_class: int, classes: int = 3, seed: int = 0) -> tuple[torch.Tensor, torch.Tensor]:
    """Points on `classes` interleaved noisy spiral arms in the plane, and their arm index."""
    gen = torch.Generator().manual_seed(seed)
    radius = torch.linspace(0.0, 1.0, per_class)
    points, labels = [], []
    for c in range(classes):
        angle = c * 2 * math.pi / classes + 4 * radius + 0.2 * torch.randn(per_class, generator=gen)
        points.append(torch.stack([radius * angle.cos(), radius * angle.sin()], 1))
        labels.append(torch.full((per_class,), c))
    return torch.cat(points), torch.cat(labels)


def output_path(name: str) -> Path:
    """``OUTPUT / name``, its folder created."""
    path = OUTPUT / name
    path.parent.mkdir(parents=True, exist_ok=True)
    return path


def show_image(path: Path) -> None:
    """Displays the image at ``path`` in a notebook (under an IPython kernel); a script has
    already printed where it is."""
    if "ipykernel" in sys.modules:
        from IPython.display import Image, display
        display(Image(filename=str(path)))


def heading(title: str) -> None:
    """Prints a section heading."""
    print(f"\n── {title} " + "─" * max(3, 76 - len(title)))


def columns(left: Sequence[str], right: Sequence[str],
            titles: tuple[str, str] = ("PyTorch", "burn_torch")) -> None:
    """Prints ``left`` and ``right`` as two columns under ``titles``, one line per row."""
    width = max(len(s) for s in (titles[0], *left))
    rule = max(len(s) for s in (titles[1], *right))
    print(f"{titles[0]:<{width}} │ {titles[1]}")
    print(f"{'─' * width}─┼─{'─' * rule}")
    for a, b in zip_longest(left, right, fillvalue=""):
        print(f"{a:<{width}} │ {b}".rstrip())


def as_torch(value) -> torch.Tensor | None:
    """``value`` (a burn_torch Tensor, a torch tensor, a number or a list) as a float64 torch
    tensor; None stays None."""
    if value is None:
        return None
    if isinstance(value, Tensor):
        value = value.to_torch()
    if isinstance(value, torch.Tensor):
        return value.detach().to(torch.float64)
    return torch.tensor(value, dtype=torch.float64)


def max_abs_diff(a, b) -> float:
    """The largest ``|a - b|`` of two values of the same shape (see :func:`as_torch`); a value
    holding one number compares with another whatever their ranks (PyTorch's 0-d loss, Burn's
    ``[1]``). 0.0 when both are None, inf when only one is. Raises ValueError for other shape
    mismatches."""
    a, b = as_torch(a), as_torch(b)
    if a is None or b is None:
        return 0.0 if a is None and b is None else math.inf
    if a.shape != b.shape:
        if a.numel() != 1 or b.numel() != 1:
            raise ValueError(f"cannot compare shapes {list(a.shape)} and {list(b.shape)}")
        a, b = a.reshape(()), b.reshape(())
    if a.numel() == 0:
        return 0.0
    return (a - b).abs().max().item()


def largest_diff(left: Mapping[str, torch.Tensor], right: Mapping[str, torch.Tensor]) -> float:
    """The largest max |diff| over the entries of two ``{name: tensor}`` maps. Raises ValueError
    when they name different entries."""
    if left.keys() != right.keys():
        raise ValueError(f"the maps name different entries: {sorted(left)} vs {sorted(right)}")
    return max((max_abs_diff(left[k], right[k]) for k in left), default=0.0)


class _GradientsAsValues(ModuleMapper):
    """Replaces every float parameter's value with its gradient (zeros where it has none)."""

    def __init__(self, grads: GradientsParams) -> None:
        self.grads = grads

    def map_float(self, param):
        grad = self.grads.get(param.id)
        return param.map(lambda value: value.zeros_like() if grad is None else grad)


def torch_layout_grads(model: Module, grads: GradientsParams) -> dict[str, torch.Tensor]:
    """A burn_torch model's gradients under PyTorch's state-dict names and layouts (a Linear
    weight's gradient turned to ``[out, in]``), as ``{name: p.grad}`` is on the PyTorch side."""
    return dict(to_torch_state_dict(model.map(_GradientsAsValues(grads))))


def torch_grads(model: torch.nn.Module) -> dict[str, torch.Tensor]:
    """``{name: p.grad}`` of a torch model, copied."""
    return {name: p.grad.detach().clone() for name, p in model.named_parameters()
            if p.grad is not None}


def compare_table(left_name: str, left: Mapping[str, torch.Tensor], right_name: str,
                  right: Mapping[str, torch.Tensor], tol: float) -> float:
    """Prints seed 003's comparison of two ``{parameter: tensor}`` maps (one line per parameter:
    element count and max |diff|, then the worst and the verdict); returns the worst difference.
    Raises ValueError when the maps name different parameters."""
    if left.keys() != right.keys():
        raise ValueError(f"{left_name} and {right_name} name different parameters: "
                         f"{sorted(left)} vs {sorted(right)}")
    print(f"== {left_name} vs {right_name}")
    worst = 0.0
    for name in left:
        diff = max_abs_diff(left[name], right[name])
        worst = max(worst, diff)
        print(f"{name:<24} n={left[name].numel():>3}  max|diff|={diff:.2e}")
    print(f"worst={worst:.2e} tol={tol:.0e} {'OK' if worst <= tol else 'MISMATCH'}")
    return worst


class Agreement:
    """The check an example ends with: each row compares a PyTorch value with its burn_torch
    counterpart; :meth:`report` prints them and fails when one differs by more than ``tol``."""

    def __init__(self, tol: float) -> None:
        self.tol = tol
        self.rows: list[tuple[str, float]] = []

    def check(self, label: str, torch_value, burn_value) -> float:
        """Records one comparison (see :func:`max_abs_diff`); returns its max |diff|."""
        return self.add(label, max_abs_diff(torch_value, burn_value))

    def add(self, label: str, diff: float) -> float:
        """Records a difference measured elsewhere (a :func:`compare_table`); returns it."""
        self.rows.append((label, diff))
        return diff

    def report(self, conclusion: str | None = None) -> None:
        """Prints every comparison, then ``OK: <conclusion>``; raises AssertionError (message
        starting with :data:`DISAGREE`) naming the comparisons over the tolerance."""
        heading(f"agreement (tolerance {self.tol:.0e})")
        width = max(len(label) for label, _ in self.rows)
        for label, diff in self.rows:
            verdict = "OK" if diff <= self.tol else "MISMATCH"
            print(f"{label:<{width}}  max|diff| = {diff:.2e}  {verdict}")
        bad = [f"{label} ({diff:.2e})" for label, diff in self.rows if not diff <= self.tol]
        if bad:
            raise AssertionError(f"{DISAGREE} beyond {self.tol:.0e}: " + ", ".join(bad))
        print(f"OK: {conclusion or f'all {len(self.rows)} comparisons agree within {self.tol:.0e}'}")
