"""A PNG of every numeric metric's curves, from the metric logs of an artifact directory.

[`plot_metrics`][burn_torch.train.plot.plot_metrics] draws it in this process.
``SupervisedTraining.launch`` instead draws ``metrics.png`` once training has ended in a separate
Python process ([`plot_in_background`][burn_torch.train.plot.plot_in_background], running
``.plot_figure``), so matplotlib's start-up (a second or more of imports holding the interpreter
lock) delays neither ``launch`` nor what the program does next.
[`wait_for_plots`][burn_torch.train.plot.wait_for_plots] waits for those drawings; the process waits
for them before it exits, so a plot is never cut short.
"""
from __future__ import annotations

import json
import os
import subprocess
import sys
import threading
from pathlib import Path
from typing import Mapping

from ..atomic_file import atomic_write_bytes
from ..optional import available
from . import plot_figure
from .logger import epoch_mean, metric_history


def drawable_history(directory: Path) -> dict:
    """The metric logs under ``directory`` as ``.plot_figure`` draws them: ``{key: {split:
    {epoch: {"entries": [[value, count], ...], "mean": epoch mean}}}}``."""
    return {key: {split: {epoch: {"entries": entries, "mean": epoch_mean(entries)}
                          for epoch, entries in epochs.items()}
                  for split, epochs in splits.items()}
            for key, splits in metric_history(directory).items()}


def plot_metrics(artifact_dir: "str | os.PathLike", filename: str = "metrics.png",
                 names: "Mapping[str, str] | None" = None) -> Path | None:
    """Writes ``artifact_dir/filename`` (atomically), drawn in this process: one panel per
    metric, each split's per-iteration values (thin) and epoch means (dots) against the epoch.
    Panels are titled ``names[key]`` when given (``key``: the metric's log file stem), else the
    stem. Returns the path, or None when no metric was logged. Raises ImportError when
    matplotlib is missing."""
    directory = Path(artifact_dir)
    history = drawable_history(directory)
    if not history:
        return None
    path = directory / filename
    atomic_write_bytes(path, plot_figure.figure_png(history, dict(names or {})), durable=False)
    return path


# runs plot_figure.py as __main__ with neither the working folder nor the script's folder on
# sys.path (a module there named like one matplotlib imports would be picked up instead)
_RUN_FIGURE = "import runpy, sys; sys.path.pop(0); runpy.run_path(sys.argv[1], run_name='__main__')"


def _draw_in_subprocess(directory: Path, names: Mapping[str, str], filename: str) -> Path | None:
    """What [`plot_metrics`][burn_torch.train.plot.plot_metrics] does, with the drawing in a child
    Python process. Raises RuntimeError with the child's last error line when it fails."""
    history = drawable_history(directory)
    if not history:
        return None
    request = json.dumps({"history": history, "names": dict(names)}).encode("utf-8")
    child = subprocess.run([sys.executable, "-c", _RUN_FIGURE, plot_figure.__file__], input=request,
                           capture_output=True, timeout=600)
    if child.returncode != 0:
        lines = child.stderr.decode("utf-8", "replace").strip().splitlines()
        raise RuntimeError(lines[-1] if lines else f"the drawing process exited with {child.returncode}")
    path = directory / filename
    atomic_write_bytes(path, child.stdout, durable=False)
    return path


_pending: list[threading.Thread] = []
_pending_lock = threading.Lock()


def plot_in_background(directory: Path, names: Mapping[str, str], log,
                       filename: str = "metrics.png") -> threading.Thread:
    """Starts drawing ``directory/filename`` in a child process, watched by a thread of this
    one (which waits without holding the interpreter lock); returns the thread. What happened
    (the file written, matplotlib missing, or the error) goes to ``log.info``."""
    def draw() -> None:
        if not available("matplotlib"):
            message: str | None = "matplotlib is not installed: no metrics plot"
        else:
            try:
                written = _draw_in_subprocess(directory, names, filename)
                message = None if written is None else f"metrics plotted in {written.name}"
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
    """Waits until every plot started by
    [`plot_in_background`][burn_torch.train.plot.plot_in_background] is written; returns whether all
    are done (False when ``timeout`` seconds passed first)."""
    with _pending_lock:
        threads = [t for t in _pending if t is not threading.current_thread()]
    for thread in threads:
        thread.join(timeout)
    return not any(t.is_alive() for t in threads)
