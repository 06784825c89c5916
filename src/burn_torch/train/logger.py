"""Files a training run writes under its artifact directory (Burn's layout):

* ``experiment.log``: what happened (start, resume, checkpoints, early stop, end), one line each;
* ``train/epoch-N/<Metric>.log`` and ``valid/epoch-N/<Metric>.log``: one line per iteration,
  ``<value>,<count>`` (the metric's name with spaces as ``_``).

Every file is written atomically. A metric log is written whole when its epoch ends (a run
killed mid-epoch leaves no partial log; the resumed run writes that epoch's logs again).
"""
from __future__ import annotations

import math
import os
import time
from pathlib import Path

from ..atomic_file import atomic_write_bytes

SPLITS = ("train", "valid")


def metric_file_name(name: str) -> str:
    return name.replace(" ", "_") + ".log"


class ExperimentLog:
    """``experiment.log``: timestamped lines; kept across resumes (new lines are added)."""

    def __init__(self, directory: Path) -> None:
        self.path = directory / "experiment.log"
        self._lines = self.path.read_text(encoding="utf-8").splitlines() if self.path.exists() else []

    def info(self, message: str) -> None:
        stamp = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())
        self._lines.append(f"{stamp} INFO burn_torch::train: {message}")
        atomic_write_bytes(self.path, ("\n".join(self._lines) + "\n").encode("utf-8"))


class FileMetricLogger:
    """Collects an epoch's metric entries and writes them when the epoch ends."""

    def __init__(self, directory: Path) -> None:
        self.directory = directory
        self._pending: dict[tuple[str, str], list[str]] = {}

    def log(self, split: str, name: str, serialized: str) -> None:
        self._pending.setdefault((split, name), []).append(serialized)

    def end_epoch(self, split: str, epoch: int) -> None:
        """Writes ``split``'s pending logs as epoch ``epoch``'s."""
        folder = self.directory / split / f"epoch-{epoch}"
        for (s, name), lines in list(self._pending.items()):
            if s != split:
                continue
            folder.mkdir(parents=True, exist_ok=True)
            atomic_write_bytes(folder / metric_file_name(name), ("\n".join(lines) + "\n").encode("utf-8"))
            del self._pending[(s, name)]


def read_metric_log(path: "str | os.PathLike") -> list[tuple[float, int]]:
    """The ``(value, count)`` entries of a metric log (``value`` alone counts 1)."""
    entries = []
    for line in Path(path).read_text(encoding="utf-8").splitlines():
        if line.strip():
            value, _, count = line.partition(",")
            entries.append((float(value), int(count) if count else 1))
    return entries


def epoch_mean(entries: list[tuple[float, int]]) -> float:
    """The count-weighted mean of an epoch's entries (Burn's ``Aggregate::Mean``)."""
    total = sum(c for _, c in entries)
    return sum(v * c for v, c in entries) / total if total else math.nan


def logged_epochs(directory: Path, split: str) -> list[int]:
    folder = directory / split
    if not folder.is_dir():
        return []
    return sorted(int(p.name[6:]) for p in folder.iterdir() if p.name.startswith("epoch-") and p.name[6:].isdigit())


def metric_history(directory: Path) -> dict[str, dict[str, dict[int, list[tuple[float, int]]]]]:
    """``{metric name: {split: {epoch: entries}}}`` from the logs under ``directory``."""
    history: dict = {}
    for split in SPLITS:
        for epoch in logged_epochs(directory, split):
            for log in sorted((directory / split / f"epoch-{epoch}").glob("*.log")):
                name = log.name[:-4].replace("_", " ")
                try:
                    entries = read_metric_log(log)
                except ValueError:
                    continue  # not numeric
                history.setdefault(name, {}).setdefault(split, {})[epoch] = entries
    return history
