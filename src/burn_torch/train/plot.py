"""A PNG of every numeric metric's curves, from the metric logs of an artifact directory.

``SupervisedTraining.launch`` draws ``metrics.png`` off the training thread once training has
ended (:func:`plot_in_background`): matplotlib's start-up (about a second or more) then overlaps
whatever the program does next instead of delaying ``launch``'s return. :func:`wait_for_plots`
waits for those drawings; the process waits for them before it forks (a ``DataLoader``'s worker
processes) and before it exits, so a plot is never cut short or duplicated into a child.
"""
from __future__ import annotations

import io
import os
import threading
from pathlib import Path
from typing import Mapping

from ..atomic_file import atomic_write_bytes
from .logger import epoch_mean, metric_history

COLORS = {"train": "tab:blue", "valid": "tab:orange"}


def plot_metrics(artifact_dir: "str | os.PathLike", filename: str = "metrics.png",
                 names: "Mapping[str, str] | None" = None) -> Path | None:
    """Writes ``artifact_dir/filename`` (atomically): one panel per metric, each split's
    per-iteration values (thin) and epoch means (dots) against the epoch. Panels are titled
    ``names[key]`` when given (``key``: the metric's log file stem), else the stem. Returns the
    path, or None when no metric was logged. Raises ImportError when matplotlib is missing."""
    from matplotlib.figure import Figure  # no pyplot: the Agg canvas, no display needed
    directory = Path(artifact_dir)
    history = metric_history(directory)
    if not history:
        return None
    names = names or {}
    cols = min(3, len(history))
    rows = -(-len(history) // cols)
    fig = Figure(figsize=(4.2 * cols, 3.2 * rows), layout="constrained")
    axes = fig.subplots(rows, cols, squeeze=False).ravel()
    for ax, (key, splits) in zip(axes, sorted(history.items())):
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
        ax.set(title=names.get(key, key), xlabel="epoch")
        ax.legend(fontsize="small")
    for ax in axes[len(history):]:
        ax.set_visible(False)
    buffer = io.BytesIO()
    fig.savefig(buffer, format="png", dpi=90)
    path = directory / filename
    atomic_write_bytes(path, buffer.getvalue(), durable=False)
    return path


_pending: list[threading.Thread] = []
_pending_lock = threading.Lock()


def plot_in_background(directory: Path, names: Mapping[str, str], log) -> threading.Thread:
    """Starts drawing ``directory/metrics.png`` on a thread; returns it. What happened (the
    file written, or matplotlib missing, or the error) goes to ``log.info``."""
    def draw() -> None:
        try:
            written = plot_metrics(directory, names=names)
            message = None if written is None else f"metrics plotted in {written.name}"
        except ImportError:
            message = "matplotlib is not installed: no metrics plot"
        except Exception as e:  # a plot never fails a finished training; the log says why
            message = f"the metrics plot failed: {type(e).__name__}: {e}"
        if message is not None:
            try:
                log.info(message)
            except OSError:
                pass  # the artifact directory was removed meanwhile: nobody to tell

    thread = threading.Thread(target=draw, name="burn_torch metrics plot")
    with _pending_lock:
        _pending[:] = [t for t in _pending if t.is_alive()]
        _pending.append(thread)
    thread.start()
    return thread


def wait_for_plots(timeout: float | None = None) -> bool:
    """Waits until every plot started by :func:`plot_in_background` is written; returns
    whether all are done (False when ``timeout`` seconds passed first)."""
    with _pending_lock:
        threads = [t for t in _pending if t is not threading.current_thread()]
    for thread in threads:
        thread.join(timeout)
    return not any(t.is_alive() for t in threads)


if hasattr(os, "register_at_fork"):
    os.register_at_fork(before=wait_for_plots)
