"""Live progress of a training run (Burn's ``MetricsRenderer``; its ``tui`` dashboard).

[`default_renderer`][burn_torch.train.renderer.default_renderer] picks
[`RichDashboard`][burn_torch.train.renderer.RichDashboard] when standard output is a terminal that
can redraw (a ``rich`` live display: epoch and iteration progress with ETAs, the current metrics, a
sparkline of the training loss), [`NotebookRenderer`][burn_torch.train.renderer.NotebookRenderer]
under a Jupyter kernel (an HTML progress display updated in place), and
[`PlainRenderer`][burn_torch.train.renderer.PlainRenderer] otherwise (log lines: on a ``TERM=dumb``
terminal, in CI, into a file).

Renderers keep per-iteration work to storing numbers; drawing happens at most
``refresh_s`` apart, so the display costs a small share of a training step (about 1 % on the
MNIST example; ``benchmarks/dashboard_cost.py``).
"""
from __future__ import annotations

import html
import math
import os
import sys
import time
from typing import TYPE_CHECKING, NamedTuple, TextIO

from ..optional import available, require
from .metric import MetricEntry

if TYPE_CHECKING:
    from rich.progress import TaskID

BLOCKS = "▁▂▃▄▅▆▇█"


class TrainingProgress(NamedTuple):
    """Where a run is, as renderers receive it (Burn's ``TrainingProgress``)."""

    split: str             # "train" or "valid"
    epoch: int             # 1-based
    epoch_total: int
    iteration: int         # 1-based within the epoch
    iteration_total: int


def sparkline(values: list[float], width: int = 60) -> str:
    """``values`` (the last ones, bucket-averaged to ``width`` at most) as block characters,
    lowest ``▁`` to highest ``█``; NaNs are skipped."""
    values = [v for v in values if not math.isnan(v)]
    if not values:
        return ""
    if len(values) > width:
        step = len(values) / width
        values = [sum(chunk) / len(chunk) for chunk in
                  (values[int(i * step):max(int((i + 1) * step), int(i * step) + 1)] for i in range(width))]
    low, high = min(values), max(values)
    span = (high - low) or 1.0
    return "".join(BLOCKS[min(len(BLOCKS) - 1, int((v - low) / span * len(BLOCKS)))] for v in values)


def format_duration(seconds: float) -> str:
    if math.isnan(seconds) or math.isinf(seconds):
        return "--:--"
    seconds = int(seconds)
    return f"{seconds // 3600}:{seconds // 60 % 60:02d}:{seconds % 60:02d}" if seconds >= 3600 else \
        f"{seconds // 60:02d}:{seconds % 60:02d}"


class MetricsRenderer:
    """Receives the run's events; the base class keeps the state every renderer shows."""

    refresh_s = 0.1

    def __init__(self) -> None:
        self.title = ""
        self.progress: TrainingProgress | None = None
        self.entries: dict[str, dict[str, MetricEntry]] = {"train": {}, "valid": {}}
        self.summaries: dict[int, dict[str, dict[str, float]]] = {}
        self.losses: list[float] = []
        self._started = time.monotonic()
        self._last_draw = -math.inf
        self._done_iterations = 0
        self._total_iterations = 0
        self.epochs_done = 0

    # ---- events -----------------------------------------------------------------------
    def start(self, title: str, first_epoch: int, num_epochs: int, train_iterations: int,
              valid_iterations: int) -> None:
        self.title = title
        self.epochs_done = first_epoch - 1
        self._total_iterations = (num_epochs - first_epoch + 1) * (train_iterations + valid_iterations)
        self._started = time.monotonic()

    def update(self, progress: TrainingProgress, entries: list[MetricEntry], loss: float | None) -> None:
        self.progress = progress
        bucket = self.entries[progress.split]
        for entry in entries:
            bucket[entry.name] = entry
        if loss is not None and progress.split == "train":
            self.losses.append(loss)
        self._done_iterations += 1
        now = time.monotonic()
        if now - self._last_draw >= self.refresh_s:
            self._last_draw = now
            self.draw()

    def end_epoch(self, split: str, epoch: int, means: dict[str, float]) -> None:
        self.summaries.setdefault(epoch, {})[split] = means
        self.entries[split] = {}
        if split == "valid":  # an epoch ends with its validation
            self.epochs_done = epoch
        self.draw()

    def close(self) -> None:
        """Ends the display (also after an exception); idempotent."""

    def draw(self) -> None:
        """Shows the current state."""

    # ---- derived ----------------------------------------------------------------------
    def eta(self) -> float:
        """Seconds left for the whole run, from the pace so far (NaN before the first step)."""
        if not self._done_iterations:
            return math.nan
        elapsed = time.monotonic() - self._started
        return elapsed / self._done_iterations * max(0, self._total_iterations - self._done_iterations)

    def metric_rows(self) -> list[tuple[str, ...]]:
        """``(metric, train text, valid text)`` for the current and last epoch's metrics."""
        names = list(dict.fromkeys([*self.entries["train"], *self.entries["valid"]]))
        last = self.summaries.get(max(self.summaries), {}) if self.summaries else {}
        for split_means in last.values():
            names.extend(n for n in split_means if n not in names)
        rows = []
        for name in names:
            cells: list[str] = []
            for split in ("train", "valid"):
                entry = self.entries[split].get(name)
                if entry is not None:
                    cells.append(entry.formatted)
                elif name in last.get(split, {}):
                    cells.append(f"last epoch {last[split][name]:.4g}")
                else:
                    cells.append("")
            rows.append((name, *cells))
        return rows


class PlainRenderer(MetricsRenderer):
    """Log lines: one at each epoch's end per split, and progress lines ``interval_s`` apart."""

    def __init__(self, stream: TextIO | None = None, interval_s: float = 10.0) -> None:
        super().__init__()
        self.stream = stream or sys.stdout
        self.refresh_s = interval_s

    def start(self, title, first_epoch, num_epochs, train_iterations, valid_iterations):
        super().start(title, first_epoch, num_epochs, train_iterations, valid_iterations)
        self._last_draw = time.monotonic()
        print(f"training {title}: epochs {first_epoch}..{num_epochs}, {train_iterations} train and "
              f"{valid_iterations} valid iterations per epoch", file=self.stream, flush=True)

    def draw(self) -> None:
        p = self.progress
        if p is None:
            return
        metrics = " | ".join(f"{e.name} {e.formatted}" for e in self.entries[p.split].values())
        print(f"[{p.split}] epoch {p.epoch}/{p.epoch_total} iteration {p.iteration}/{p.iteration_total}"
              f" | {metrics} | ETA {format_duration(self.eta())}", file=self.stream, flush=True)

    def end_epoch(self, split, epoch, means):
        self.summaries.setdefault(epoch, {})[split] = means
        self.entries[split] = {}
        text = " | ".join(f"{name} {value:.4f}" for name, value in means.items())
        print(f"[{split}] epoch {epoch} done | {text}", file=self.stream, flush=True)


class RichDashboard(MetricsRenderer):
    """A live terminal dashboard drawn with ``rich``, redrawn twice a second (a redraw takes
    a few milliseconds; ``benchmarks/dashboard_cost.py`` measures its share of a step)."""

    refresh_s = 0.5

    def __init__(self, console=None) -> None:
        super().__init__()
        require("rich", "the terminal dashboard (RichDashboard)")
        from rich.console import Console
        from rich.live import Live
        from rich.progress import (BarColumn, MofNCompleteColumn, Progress, TextColumn,
                                   TimeElapsedColumn, TimeRemainingColumn)
        self.console = console or Console()
        self.bars = Progress(TextColumn("{task.description:>10}"), BarColumn(bar_width=None),
                             MofNCompleteColumn(), TextColumn("elapsed"), TimeElapsedColumn(),
                             TextColumn("ETA"), TimeRemainingColumn(), console=self.console,
                             expand=True)
        self._tasks: dict[str, TaskID] = {}
        self._live = Live(console=self.console, auto_refresh=False, transient=False)
        self._open = False

    def start(self, title, first_epoch, num_epochs, train_iterations, valid_iterations):
        super().start(title, first_epoch, num_epochs, train_iterations, valid_iterations)
        self._tasks = {
            "epochs": self.bars.add_task("epochs", total=num_epochs, completed=first_epoch - 1),
            "train": self.bars.add_task("train", total=train_iterations),
            "valid": self.bars.add_task("valid", total=valid_iterations),
        }
        self._live.start()
        self._open = True
        self.draw()

    def update(self, progress, entries, loss):
        task = self._tasks[progress.split]
        if progress.iteration == 1:
            self.bars.reset(task, total=progress.iteration_total)
        self.bars.update(task, completed=progress.iteration)
        super().update(progress, entries, loss)

    def end_epoch(self, split, epoch, means):
        super().end_epoch(split, epoch, means)
        self.bars.update(self._tasks["epochs"], completed=self.epochs_done)

    def renderable(self):
        from rich.console import Group
        from rich.panel import Panel
        from rich.table import Table
        table = Table(expand=True, show_edge=False)
        table.add_column("metric", style="bold")
        table.add_column("train")
        table.add_column("valid")
        for row in self.metric_rows():
            table.add_row(*row)
        p = self.progress
        where = f"epoch {p.epoch}/{p.epoch_total} · {p.split} {p.iteration}/{p.iteration_total}" if p else "starting"
        spark = sparkline(self.losses, max(10, self.console.width - 30))
        loss_line = (f"loss {self.losses[-1]:.4f} {spark}" if self.losses else "loss (no steps yet)")
        return Panel(Group(f"{where} · total ETA {format_duration(self.eta())}", self.bars, table,
                           loss_line),
                     title=f"burn_torch training · {self.title}", border_style="cyan")

    def draw(self) -> None:
        if self._open:
            self._live.update(self.renderable(), refresh=True)

    def close(self) -> None:
        if self._open:
            self._open = False
            self._live.update(self.renderable(), refresh=True)
            self._live.stop()


class NotebookRenderer(MetricsRenderer):
    """An HTML progress display under a Jupyter kernel, updated in place."""

    refresh_s = 0.5

    def __init__(self) -> None:
        super().__init__()
        self._handle = None

    def start(self, title, first_epoch, num_epochs, train_iterations, valid_iterations):
        super().start(title, first_epoch, num_epochs, train_iterations, valid_iterations)
        from IPython.display import HTML, display
        self._html = HTML
        self._handle = display(HTML(self.render_html()), display_id=True)

    def render_html(self) -> str:
        p = self.progress
        bar = "" if p is None else (
            f"<div>epoch {p.epoch}/{p.epoch_total} <progress value='{self.epochs_done}' max='{p.epoch_total}'></progress>"
            f" · {p.split} {p.iteration}/{p.iteration_total} <progress value='{p.iteration}' "
            f"max='{p.iteration_total}'></progress> · ETA {format_duration(self.eta())}</div>")
        rows = "".join(f"<tr><td><b>{html.escape(m)}</b></td><td>{html.escape(t)}</td><td>{html.escape(v)}</td></tr>"
                       for m, t, v in self.metric_rows())
        spark = html.escape(sparkline(self.losses))
        return (f"<div><b>burn_torch training · {html.escape(self.title)}</b>{bar}"
                f"<table><tr><th>metric</th><th>train</th><th>valid</th></tr>{rows}</table>"
                f"<div style='font-family:monospace'>loss {spark}</div></div>")

    def draw(self) -> None:
        if self._handle is not None:
            self._handle.update(self._html(self.render_html()))

    def close(self) -> None:
        self.draw()


#: Terminals that cannot move the cursor (a live display would show nothing until the end).
DUMB_TERMINALS = frozenset({"dumb", "unknown"})


def default_renderer() -> MetricsRenderer:
    """Notebook display under a Jupyter kernel; the rich dashboard on a terminal that can
    redraw (log lines there too without ``rich``, the ``train`` extra); on a terminal that
    cannot (``TERM=dumb``) plain lines every 2 seconds; otherwise (a file, a pipe, CI) plain
    lines every 10 seconds."""
    if "ipykernel" in sys.modules:
        return NotebookRenderer()
    if sys.stdout.isatty():
        if os.environ.get("TERM", "").lower() in DUMB_TERMINALS:
            return PlainRenderer(interval_s=2.0)
        if available("rich"):
            return RichDashboard()
    return PlainRenderer()
