"""Checkpoints (Burn's ``FileCheckpointer``): ``checkpoint/{model,optim,scheduler}-N.<ext>``
under the artifact directory, written with the training's recorder.

The three files of epoch N are written (each atomically) model, optimizer, scheduler, in that
order; a checkpoint is complete when all three exist. Pruning runs after a complete save and
removes the epochs the strategy does not keep (scheduler file first, so a half-removed
checkpoint is never complete). Restoring a corrupt file raises
:class:`~burn_torch.record.RecordError` naming it.
"""
from __future__ import annotations

import os
from pathlib import Path

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
    """The model, optimizer and scheduler checkpointers of a run, and its pruning strategy."""

    def __init__(self, recorder: FileRecorder, artifact_dir: Path, strategy: CheckpointingStrategy) -> None:
        directory = artifact_dir / "checkpoint"
        self.artifact_dir = artifact_dir
        self.parts = {name: FileCheckpointer(recorder, directory, name) for name in PARTS}
        self.strategy = strategy

    def save(self, epoch: int, model_record, optim_record, scheduler_record) -> None:
        for name, record in zip(PARTS, (model_record, optim_record, scheduler_record)):
            self.parts[name].save(epoch, record)
        self.prune(epoch)

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

    def restore(self, epoch: int, device: Device):
        """``(model record, optimizer record, scheduler record)`` of epoch ``epoch``."""
        return tuple(self.parts[name].restore(epoch, device) for name in PARTS)


def latest_checkpoint(artifact_dir: "str | os.PathLike", recorder: FileRecorder) -> int | None:
    """The last epoch with a complete checkpoint under ``artifact_dir`` (None if there is none):
    the epoch to pass to ``SupervisedTraining.checkpoint`` to resume a killed run."""
    from .strategy import KeepLastNCheckpoints
    epochs = LearningCheckpointer(recorder, Path(artifact_dir), KeepLastNCheckpoints(1)).complete_epochs()
    return epochs[-1] if epochs else None
