"""Checkpoints (Burn's ``FileCheckpointer`` behind its ``AsyncCheckpointer``):
``checkpoint/{model,optim,scheduler}-N.<ext>`` under the artifact directory, written with the
training's recorder.

[`LearningCheckpointer.save`][burn_torch.train.checkpoint.LearningCheckpointer.save] encodes the
three records on the training thread (a snapshot: later in-place updates cannot reach it) and hands
the bytes to a writer thread, so the disk's latency overlaps the next epochs. Files are written
durably (fsynced before they are renamed into place, the folder fsynced after: a checkpoint survives
a crash or a power cut), then the epochs the strategy does not keep are pruned (scheduler file
first, so a half-removed checkpoint is never complete). A checkpoint is complete when its three
files exist. [`LearningCheckpointer.close`][burn_torch.train.checkpoint.LearningCheckpointer.close]
waits for the writes and raises the first that failed; a failure also surfaces at the next ``save``.
Restoring a corrupt file raises [`RecordError`][burn_torch.record.recorder.RecordError] naming it.
"""
from __future__ import annotations

import os
import queue
import threading
from pathlib import Path
from typing import Callable

from ..atomic_file import atomic_write_group
from ..device import Device
from ..module import ModuleRecord
from ..optim import OptimizerRecord
from ..record import FileRecorder
from .strategy import CheckpointingStrategy

PARTS = ("model", "optim", "scheduler")
RECORD_TYPES = {"model": ModuleRecord, "optim": OptimizerRecord, "scheduler": None}


class FileCheckpointer:
    """``directory/<name>-<epoch>.<ext>`` files of one record kind."""

    def __init__(self, recorder: FileRecorder, directory: "str | os.PathLike", name: str) -> None:
        self.recorder, self.directory, self.name = recorder, Path(directory), name

    def path_for_epoch(self, epoch: int) -> Path:
        return self.recorder.file_path(self.directory / f"{self.name}-{epoch}")

    def save(self, epoch: int, record) -> Path:
        self.directory.mkdir(parents=True, exist_ok=True)
        return self.recorder.record(record, self.directory / f"{self.name}-{epoch}")

    def restore(self, epoch: int, device: Device | None = None):
        return self.recorder.load(self.directory / f"{self.name}-{epoch}", device, RECORD_TYPES.get(self.name))

    def delete(self, epoch: int) -> None:
        self.path_for_epoch(epoch).unlink(missing_ok=True)

    def exists(self, epoch: int) -> bool:
        return self.path_for_epoch(epoch).exists()

    def epochs(self) -> list[int]:
        """The epochs with a file of this kind."""
        prefix, suffix = f"{self.name}-", f".{self.recorder.extension}"
        if not self.directory.is_dir():
            return []
        found = []
        for p in self.directory.iterdir():
            middle = p.name[len(prefix):-len(suffix)] if p.name.startswith(prefix) and p.name.endswith(suffix) else ""
            if middle.isdigit():
                found.append(int(middle))
        return sorted(found)


class LearningCheckpointer:
    """The model, optimizer and scheduler checkpointers of a run, its pruning strategy, and the
    thread writing its checkpoints.

    The writer takes every checkpoint waiting when it gets to work and writes them as one group
    ([`atomic_write_group`][burn_torch.atomic_file.atomic_write_group]: one round of fsyncs for
    all), so a disk slower than the epochs delays the files, never the training; it then prunes once
    for the newest epoch (the same checkpoints survive as when pruning after each). The first
    failure is kept: later saves are skipped, and
    [`save`][burn_torch.train.checkpoint.LearningCheckpointer.save] and
    [`close`][burn_torch.train.checkpoint.LearningCheckpointer.close] raise it."""

    def __init__(self, recorder: FileRecorder, artifact_dir: Path, strategy: CheckpointingStrategy,
                 on_saved: Callable[[int], None] | None = None) -> None:
        directory = artifact_dir / "checkpoint"
        self.artifact_dir, self.directory = artifact_dir, directory
        self.parts = {name: FileCheckpointer(recorder, directory, name) for name in PARTS}
        self.strategy = strategy
        self.on_saved = on_saved
        self._pending: "queue.Queue[tuple[int, list[tuple[Path, bytes]]] | None]" = queue.Queue()
        self._error: BaseException | None = None
        self._thread: threading.Thread | None = None

    def save(self, epoch: int, model_record, optim_record, scheduler_record) -> None:
        """Encodes the three records now; the writer thread writes them (then prunes). Raises
        the failure of an earlier checkpoint's write, if one failed."""
        self._raise()
        files = [(self.parts[name].path_for_epoch(epoch), self.parts[name].recorder.to_bytes(record))
                 for name, record in zip(PARTS, (model_record, optim_record, scheduler_record))]
        if self._thread is None:
            self._thread = threading.Thread(target=self._write_all, name="burn_torch checkpoint writer")
            self._thread.start()
        self._pending.put((epoch, files))

    def _write_all(self) -> None:
        done = False
        while not done:
            batch = [self._pending.get()]
            while not self._pending.empty():
                batch.append(self._pending.get())
            done = batch[-1] is None
            checkpoints = [job for job in batch if job is not None]
            if checkpoints and self._error is None:
                try:
                    self._write(checkpoints)
                except BaseException as e:  # raised on the training thread by save / close
                    self._error = e

    def _write(self, checkpoints: list[tuple[int, list[tuple[Path, bytes]]]]) -> None:
        self.directory.mkdir(parents=True, exist_ok=True)
        atomic_write_group([file for _, files in checkpoints for file in files])
        for epoch, _ in checkpoints:
            if self.on_saved is not None:
                self.on_saved(epoch)
        self.prune(checkpoints[-1][0])

    def _raise(self) -> None:
        if self._error is not None:
            error, self._error = self._error, None
            raise error

    def close(self, raise_error: bool = True) -> None:
        """Waits until every saved checkpoint is written and pruned; raises the first write
        that failed (unless ``raise_error`` is False, when another error is on its way)."""
        if self._thread is not None:
            self._pending.put(None)
            self._thread.join()
            self._thread = None
        if raise_error:
            self._raise()

    def complete_epochs(self) -> list[int]:
        sets = [set(c.epochs()) for c in self.parts.values()]
        return sorted(set.intersection(*sets))

    def prune(self, epoch: int) -> list[int]:
        """Deletes the checkpoints the strategy does not keep; returns their epochs."""
        saved = self.complete_epochs()
        keep = self.strategy.keep(self.artifact_dir, epoch, saved) | {epoch}
        gone = [e for e in saved if e not in keep]
        for e in gone:
            for name in reversed(PARTS):
                self.parts[name].delete(e)
        return gone

    def restore(self, epoch: int, device: Device | None):
        """``(model record, optimizer record, scheduler record)`` of epoch ``epoch``."""
        return tuple(self.parts[name].restore(epoch, device) for name in PARTS)


def latest_checkpoint(artifact_dir: "str | os.PathLike", recorder: FileRecorder) -> int | None:
    """The last epoch with a complete checkpoint under ``artifact_dir`` (None if there is none):
    the epoch to pass to ``SupervisedTraining.checkpoint`` to resume a killed run."""
    from .strategy import KeepLastNCheckpoints
    epochs = LearningCheckpointer(recorder, Path(artifact_dir), KeepLastNCheckpoints(1)).complete_epochs()
    return epochs[-1] if epochs else None
