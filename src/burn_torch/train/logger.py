"""Files a training run writes under its artifact directory (Burn's layout):

* ``experiment.log``: what happened (start, resume, checkpoints, early stop, end), one line
  each, appended;
* ``train/epoch-N/<key>.log`` and ``valid/epoch-N/<key>.log``: one line per iteration,
  ``<value>,<count>``, in iteration order; lines are kept in memory and written when the split's
  epoch ends, or every ``FLUSH_LINES`` lines of a long epoch (as Burn's logger writes through a
  buffer). ``<key>`` is the metric's name with
  spaces as ``_`` (Burn's file name, [`metric_key`][burn_torch.train.logger.metric_key]); a metric
  is looked up by its name, turned into its key, never by turning a file name back into a name
  (``val_score`` and ``val score`` share a file, as in Burn).

As Burn's file logger does, an epoch's log is truncated when its first lines are written, so a
resumed run rewrites the epochs it trains again; the epoch an ``Interrupter``
stops is removed. These files are not fsynced: a crash loses at most the lines of the epoch
being trained, which a resume trains again.
"""
from __future__ import annotations

import math
import os
import shutil
import time
from pathlib import Path
from typing import TextIO

from .metric import MetricEntry

SPLITS = ("train", "valid")


def metric_key(name: str) -> str:
    """The key of metric ``name`` in the artifact directory: its log file's stem (Burn's
    ``name.replace(' ', '_')``)."""
    return name.replace(" ", "_")


def metric_file_name(name: str) -> str:
    return metric_key(name) + ".log"


def epoch_folder(directory: Path, split: str, epoch: int) -> Path:
    return directory / split / f"epoch-{epoch}"


class ExperimentLog:
    """``experiment.log``: timestamped lines, appended (kept across resumes)."""

    def __init__(self, directory: Path) -> None:
        self.path = directory / "experiment.log"

    def info(self, message: str) -> None:
        stamp = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())
        with open(self.path, "a", encoding="utf-8") as f:
            f.write(f"{stamp} INFO burn_torch::train: {message}\n")


class FileMetricLogger:
    """Collects each split's metric entries as they come and writes them to their epoch's logs
    in one write per file: at [`end_epoch`][burn_torch.train.logger.FileMetricLogger.end_epoch]
    (the split's logs are then complete on disk for the strategies to read), or when a file has
    ``FLUSH_LINES`` lines waiting. An entry's ``serialized`` text is read when it is written, so
    a numeric entry formats its value in that batch, not in the training iteration."""

    FLUSH_LINES = 1024

    def __init__(self, directory: Path) -> None:
        self.directory = directory
        self._files: dict[tuple[str, str], TextIO] = {}
        self._pending: dict[tuple[str, str], tuple[int, list[MetricEntry]]] = {}
        self._folders: set[tuple[str, int]] = set()   # epoch folders made by this logger

    def log(self, split: str, epoch: int, entry: MetricEntry) -> None:
        """Queues ``entry`` for its metric's log of ``split``'s epoch ``epoch``."""
        key = (split, entry.name)
        pending = self._pending.get(key)
        if pending is None:
            pending = self._pending[key] = (epoch, [])
        lines = pending[1]
        lines.append(entry)
        if len(lines) >= self.FLUSH_LINES:
            self._write(key)

    def _write(self, key: tuple[str, str]) -> None:
        epoch, entries = self._pending.pop(key)
        f = self._files.get(key)
        if f is None:
            f = self._open(key[0], epoch, key[1])
        f.write("".join([entry.serialized + "\n" for entry in entries]))
        f.flush()   # on disk (not fsynced) for whoever reads the log while training goes on

    def _open(self, split: str, epoch: int, name: str) -> TextIO:
        folder = epoch_folder(self.directory, split, epoch)
        if (split, epoch) not in self._folders:
            folder.mkdir(parents=True, exist_ok=True)
            self._folders.add((split, epoch))
        f = self._files[(split, name)] = open(folder / metric_file_name(name), "w", encoding="utf-8")
        return f

    def end_epoch(self, split: str) -> None:
        """Writes ``split``'s waiting lines and closes its logs (the next entry opens the next
        epoch's)."""
        for key in [k for k in self._pending if k[0] == split]:
            self._write(key)
        for key in [k for k in self._files if k[0] == split]:
            self._files.pop(key).close()

    def discard_epoch(self, split: str, epoch: int) -> None:
        """Drops ``split``'s waiting lines, closes its logs and removes epoch ``epoch``'s folder
        (an interrupted epoch)."""
        for key in [k for k in self._pending if k[0] == split]:
            del self._pending[key]
        self.end_epoch(split)
        shutil.rmtree(epoch_folder(self.directory, split, epoch), ignore_errors=True)
        self._folders.discard((split, epoch))

    def close(self) -> None:
        for split in SPLITS:
            self.end_epoch(split)


def read_metric_log(path: "str | os.PathLike") -> list[tuple[float, int]]:
    """The ``(value, count)`` entries of a metric log (``value`` alone counts 1). Raises
    ValueError for a line that is not numeric."""
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


def metric_epochs(directory: Path, name: str, split: str, up_to: int | None = None) -> dict[int, list[tuple[float, int]]]:
    """``{epoch: entries}`` of metric ``name`` (looked up by its key) in ``split``, for the
    epochs up to ``up_to`` (all by default); epochs without its log, or with a non-numeric one,
    are left out."""
    out = {}
    file_name = metric_file_name(name)
    for epoch in logged_epochs(directory, split):
        if up_to is not None and epoch > up_to:
            break
        try:
            out[epoch] = read_metric_log(epoch_folder(directory, split, epoch) / file_name)
        except (FileNotFoundError, ValueError):
            continue
    return out


def metric_history(directory: Path) -> dict[str, dict[str, dict[int, list[tuple[float, int]]]]]:
    """``{metric key: {split: {epoch: entries}}}`` of every numeric log under ``directory``."""
    history: dict = {}
    for split in SPLITS:
        for epoch in logged_epochs(directory, split):
            for log in sorted(epoch_folder(directory, split, epoch).glob("*.log")):
                try:
                    entries = read_metric_log(log)
                except ValueError:
                    continue  # not numeric
                history.setdefault(log.name[:-4], {}).setdefault(split, {})[epoch] = entries
    return history
