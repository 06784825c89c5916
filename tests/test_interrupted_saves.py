"""An interrupted module save (an exception, Ctrl-C, a full disk) at any point leaves the previous
file byte-identical and loadable, and no temporary file behind."""
from __future__ import annotations

import errno
import io
import os

import pytest
import safetensors.torch

import burn_torch.atomic_file as atomic_file
from burn_torch import Device, nn

CPU = Device.cpu()

ERRORS = [RuntimeError("boom"), KeyboardInterrupt(), OSError(errno.ENOSPC, "No space left on device")]


class _HalfWriter(io.FileIO):
    """A file that writes half of what it is given, then raises ``error``."""

    error: BaseException

    def write(self, data) -> int:
        super().write(bytes(data)[: len(data) // 2])
        raise self.error


def _interrupt_serialising(monkeypatch, error):
    def fail(*args, **kwargs):
        raise error
    monkeypatch.setattr(safetensors.torch, "save", fail)


def _interrupt_writing(monkeypatch, error):
    real = os.fdopen

    def half_open(fd, mode="r", *args, **kwargs):
        if "w" not in mode:
            return real(fd, mode, *args, **kwargs)
        f = _HalfWriter(fd, "wb")
        f.error = error
        return f
    monkeypatch.setattr(atomic_file.os, "fdopen", half_open)


def _interrupt_syncing(monkeypatch, error):
    def fail(fd):
        raise error
    monkeypatch.setattr(atomic_file.os, "fsync", fail)


def _interrupt_renaming(monkeypatch, error):
    def fail(src, dst):
        raise error
    monkeypatch.setattr(atomic_file.os, "replace", fail)


POINTS = {"serialising": _interrupt_serialising, "writing": _interrupt_writing,
          "syncing": _interrupt_syncing, "renaming": _interrupt_renaming}


@pytest.mark.parametrize("error", ERRORS, ids=lambda e: type(e).__name__)
@pytest.mark.parametrize("point", sorted(POINTS))
def test_an_interrupted_save_leaves_the_old_file_byte_identical(tmp_path, monkeypatch, point, error):
    old_model = nn.LinearConfig(3, 2).init(CPU)
    path = old_model.save_file(tmp_path / "model")
    old_bytes = path.read_bytes()
    new_model = nn.LinearConfig(3, 2).init(CPU)
    POINTS[point](monkeypatch, error)
    with pytest.raises(type(error)):
        new_model.save_file(path)
    monkeypatch.undo()
    assert path.read_bytes() == old_bytes
    assert os.listdir(tmp_path) == [path.name]
    loaded = nn.LinearConfig(3, 2).init(CPU).load_file(path)
    assert loaded.weight.id == old_model.weight.id


def test_a_save_that_succeeds_replaces_the_file(tmp_path):
    path = nn.LinearConfig(3, 2).init(CPU).save_file(tmp_path / "model")
    newer = nn.LinearConfig(3, 2).init(CPU)
    newer.save_file(path)
    assert nn.LinearConfig(3, 2).init(CPU).load_file(path).weight.id == newer.weight.id
    assert os.listdir(tmp_path) == [path.name]


def test_every_interruption_point_and_error_is_covered():
    assert len(POINTS) * len(ERRORS) == 12
