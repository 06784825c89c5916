"""A PNG of every numeric metric's curves, from the metric logs of an artifact directory."""
from __future__ import annotations

import io
import os
from pathlib import Path

from ..atomic_file import atomic_write_bytes
from .logger import epoch_mean, metric_history

COLORS = {"train": "tab:blue", "valid": "tab:orange"}


def plot_metrics(artifact_dir: "str | os.PathLike", filename: str = "metrics.png") -> Path | None:
    """Writes ``artifact_dir/filename`` (atomically): one panel per metric, each split's
    per-iteration values (thin) and epoch means (dots) against the epoch. Returns the path,
    or None when no metric was logged. Raises ImportError when matplotlib is missing."""
    from matplotlib.figure import Figure  # no pyplot: the Agg canvas, no display needed
    directory = Path(artifact_dir)
    history = metric_history(directory)
    if not history:
        return None
    cols = min(3, len(history))
    rows = -(-len(history) // cols)
    fig = Figure(figsize=(4.2 * cols, 3.2 * rows), layout="constrained")
    axes = fig.subplots(rows, cols, squeeze=False).ravel()
    for ax, (name, splits) in zip(axes, sorted(history.items())):
        for split, epochs in sorted(splits.items()):
            xs, ys, mx, my = [], [], [], []
            for epoch, entries in sorted(epochs.items()):
                n = len(entries)
                xs += [epoch - 1 + (i + 1) / n for i in range(n)]
                ys += [v for v, _ in entries]
                mx.append(epoch)
                my.append(epoch_mean(entries))
            ax.plot(xs, ys, color=COLORS.get(split), alpha=0.35, linewidth=0.8)
            ax.plot(mx, my, "o-", color=COLORS.get(split), label=f"{split} (epoch mean)")
        ax.set(title=name, xlabel="epoch")
        ax.legend(fontsize="small")
    for ax in axes[len(history):]:
        ax.set_visible(False)
    buffer = io.BytesIO()
    fig.savefig(buffer, format="png", dpi=90)
    path = directory / filename
    atomic_write_bytes(path, buffer.getvalue())
    return path
