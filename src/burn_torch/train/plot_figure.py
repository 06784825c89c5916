"""The metrics figure: a PNG of each metric's curves, drawn with matplotlib's Agg canvas.

Imports nothing from burn_torch, so a separate Python process can draw it: run as a script it
reads ``{"history": ..., "names": ...}`` as JSON on standard input and writes the PNG to
standard output. The Learner draws ``metrics.png`` that way once training has ended, so
matplotlib's start-up (a second or more of imports) runs beside the training process instead
of in it.

``history`` is ``{key: {split: {epoch: [[value, count], ...], ...}}}`` with each epoch's mean
given too, as ``{"entries": [...], "mean": m}`` per epoch (see ``plot.drawable_history``);
``names`` maps a key to the title its panel gets.
"""
from __future__ import annotations

import io
import json
import sys

COLORS = {"train": "tab:blue", "valid": "tab:orange"}


def figure_png(history: dict, names: dict) -> bytes:
    """The PNG: one panel per metric, each split's per-iteration values (thin) and epoch means
    (dots) against the epoch. Raises ImportError when matplotlib is missing."""
    from matplotlib.figure import Figure  # no pyplot: the Agg canvas, no display needed
    cols = min(3, len(history))
    rows = -(-len(history) // cols)
    fig = Figure(figsize=(4.2 * cols, 3.2 * rows), layout="constrained")
    axes = fig.subplots(rows, cols, squeeze=False).ravel()
    for ax, (key, splits) in zip(axes, sorted(history.items())):
        for split, epochs in sorted(splits.items()):
            xs, ys, mx, my = [], [], [], []
            for epoch, logged in sorted(epochs.items(), key=lambda item: int(item[0])):
                entries, n = logged["entries"], len(logged["entries"])
                xs += [int(epoch) - 1 + (i + 1) / n for i in range(n)]
                ys += [v for v, _ in entries]
                mx.append(int(epoch))
                my.append(logged["mean"])
            ax.plot(xs, ys, color=COLORS.get(split), alpha=0.35, linewidth=0.8)
            ax.plot(mx, my, "o-", color=COLORS.get(split), label=f"{split} (epoch mean)")
        ax.set(title=names.get(key, key), xlabel="epoch")
        ax.legend(fontsize="small")
    for ax in axes[len(history):]:
        ax.set_visible(False)
    buffer = io.BytesIO()
    fig.savefig(buffer, format="png", dpi=90)
    return buffer.getvalue()


if __name__ == "__main__":
    request = json.load(sys.stdin)
    sys.stdout.buffer.write(figure_png(request["history"], request["names"]))
