"""Every file burn_torch writes gets the mode an ordinary ``open(path, "w")`` gives it (0o666
less the umask) and keeps a mode the user set when it is written again: training artifacts
(experiment log, metric logs, checkpoints, metrics plot), records, stores, module files,
configs and autotune caches."""
from __future__ import annotations

import io
import os
import stat
import sys
from pathlib import Path

import pytest

from burn_torch import Device, autotune, nn
from burn_torch.atomic_file import atomic_write_bytes
from burn_torch.record import BurnpackStore, DefaultRecorder, SafetensorsStore
from burn_torch.train import PlainRenderer, wait_for_plots

sys.path.insert(0, str(Path(__file__).parent))
import training_job as job  # noqa: E402

UMASK = 0o027


@pytest.fixture
def umask():
    old = os.umask(UMASK)
    try:
        yield 0o666 & ~UMASK
    finally:
        os.umask(old)


def mode(path: Path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


def test_a_new_file_gets_the_umasks_mode(tmp_path, umask):
    atomic_write_bytes(tmp_path / "f", b"x")
    assert mode(tmp_path / "f") == umask == 0o640


@pytest.mark.parametrize("durable", [True, False])
def test_a_rewritten_file_keeps_the_mode_the_user_set(tmp_path, umask, durable):
    path = tmp_path / "f"
    atomic_write_bytes(path, b"x")
    os.chmod(path, 0o604)
    atomic_write_bytes(path, b"y", durable=durable)
    assert path.read_bytes() == b"y" and mode(path) == 0o604


def test_every_training_artifact_gets_the_umasks_mode(tmp_path, umask):
    job.training(tmp_path, 2).renderer(PlainRenderer(io.StringIO())).launch(job.learner())
    assert wait_for_plots(timeout=120)
    files = [p for p in tmp_path.rglob("*") if p.is_file()]
    kinds = {p.name for p in files if p.suffix in (".log", ".png")} | {p.parent.name for p in files}
    assert {"experiment.log", "metrics.png", "Loss.log", "checkpoint"} <= kinds
    assert {str(p.relative_to(tmp_path)): mode(p) for p in files} == \
        {str(p.relative_to(tmp_path)): umask for p in files}


def test_a_resumed_run_keeps_the_modes_the_user_set_on_the_artifacts_it_rewrites(tmp_path, umask):
    quiet = PlainRenderer(io.StringIO())
    job.training(tmp_path, 2).renderer(quiet).plot(False).launch(job.learner())
    chosen = [tmp_path / "experiment.log", tmp_path / "checkpoint" / "model-2.mpk",
              tmp_path / "train" / "epoch-2" / "Loss.log"]
    for path in chosen:
        os.chmod(path, 0o600)
    before = (tmp_path / "checkpoint" / "model-2.mpk").stat().st_ino
    job.training(tmp_path, 2).checkpoint(1).renderer(quiet).plot(False).launch(job.learner())
    assert (tmp_path / "checkpoint" / "model-2.mpk").stat().st_ino != before      # written anew
    assert [mode(p) for p in chosen] == [0o600, 0o600, 0o600]


def _module():
    return nn.LinearConfig(3, 2).init(Device.cpu())


WRITERS = {
    "record": lambda d: DefaultRecorder().record(_module(), d / "rec"),
    "module file": lambda d: _module().save_file(d / "m"),
    "burnpack store": lambda d: BurnpackStore(d / "s.bpk").save_into(_module()),
    "safetensors store": lambda d: SafetensorsStore(d / "s.safetensors").save_into(_module()),
    "config": lambda d: nn.LinearConfig(3, 2).save(d / "c.json") or d / "c.json",
    "autotune cache": lambda d: autotune.save(d / "t.json") or d / "t.json",
}


@pytest.mark.parametrize("kind", list(WRITERS))
def test_each_saved_file_kind_gets_the_umasks_mode_and_keeps_a_users_mode(tmp_path, umask, kind):
    path = Path(WRITERS[kind](tmp_path))
    assert mode(path) == umask
    os.chmod(path, 0o644)
    WRITERS[kind](tmp_path)
    assert mode(path) == 0o644
