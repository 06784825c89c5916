"""The live dashboard in a real terminal: a training run in a tmux pane (a pseudo-terminal
through pexpect where tmux is missing) draws the rich dashboard (epoch and iteration
progress, ETA, metrics, loss sparkline), leaves the terminal usable when it ends, and falls
back to plain lines when its output is not a terminal."""
from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import time
import uuid
from pathlib import Path

import pytest

from burn_torch.train import sparkline
from burn_torch.train.renderer import BLOCKS

ROOT = Path(__file__).resolve().parent.parent
JOB = Path(__file__).parent / "training_job.py"
ANSI = re.compile(r"\x1b\[[0-9;?]*[A-Za-z]|\x1b[()][A-Z0-9]|\r")


def _command(artifacts: Path) -> list[str]:
    return [sys.executable, str(JOB), str(artifacts), "3", "--slow"]


def _env() -> dict[str, str]:
    return {**os.environ, "PYTHONPATH": str(ROOT / "src"), "OMP_NUM_THREADS": "1", "TERM": "xterm-256color"}


def _wait_for(read, ready, timeout: float = 90.0) -> str:
    deadline = time.monotonic() + timeout
    screen = ""
    while time.monotonic() < deadline:
        screen = read()
        if ready(screen):
            return screen
        time.sleep(0.2)
    raise AssertionError(f"the screen never got there; last screen:\n{screen}")


def _mid_run(screen: str) -> bool:
    spark = re.search(r"loss \d+\.\d+ ([" + BLOCKS + "]+)", screen)
    return bool(spark and len(spark.group(1)) >= 3 and re.search(r"epoch [12]/3", screen))


def _check_dashboard(screen: str) -> None:
    assert "burn_torch training" in screen
    for row in ("epochs", "train", "valid"):
        assert re.search(rf"^\W*{row} .*\d+/\d+ elapsed \d+:\d\d:\d\d ETA", screen, re.M), row
    assert re.search(r"total ETA \d\d:\d\d", screen)
    assert re.search(r"Accuracy\s+│ epoch \d+\.\d\d % - batch \d+\.\d\d %", screen)
    assert re.search(r"Loss\s+│ epoch \d\.\d{4} - batch \d\.\d{4}", screen)


def _draws_whole(screen: str) -> bool:
    try:
        _check_dashboard(screen)
    except AssertionError:
        return False
    return True


@pytest.mark.skipif(shutil.which("tmux") is None, reason="tmux is not installed (the pexpect test covers this)")
def test_dashboard_draws_in_a_tmux_terminal(tmp_path):
    session = f"burn-torch-{uuid.uuid4().hex[:8]}"
    env_args = [arg for k, v in _env().items() if k in ("PYTHONPATH", "OMP_NUM_THREADS", "TERM")
                for arg in ("-e", f"{k}={v}")]
    command = " ".join(_command(tmp_path / "run")) + "; sleep 60"
    subprocess.run(["tmux", "new-session", "-d", "-s", session, "-x", "110", "-y", "30", *env_args, command],
                   check=True)
    try:
        def read():
            return subprocess.run(["tmux", "capture-pane", "-p", "-t", session], capture_output=True,
                                  text=True).stdout
        # a capture can land mid-redraw (a panel half drawn, a line not yet repainted): wait
        # for a screen with the whole dashboard mid-run; one never drawn whole fails here
        _wait_for(read, lambda s: _mid_run(s) and _draws_whole(s))
        final = _wait_for(read, lambda s: "finished after epoch 3" in s)
        assert re.search(r"epochs .*3/3", final)
        assert final.index("╰") < final.index("finished after epoch 3")  # printed below the panel
    finally:
        subprocess.run(["tmux", "kill-session", "-t", session], capture_output=True)


def test_dashboard_draws_in_a_pseudo_terminal(tmp_path):
    pexpect = pytest.importorskip("pexpect")
    cmd = _command(tmp_path / "run")
    child = pexpect.spawn(cmd[0], cmd[1:], env=_env(), dimensions=(30, 110), encoding="utf-8", timeout=90)
    try:
        child.expect("finished after epoch 3")
        text = ANSI.sub("", child.before)
    finally:
        child.close(force=True)
    _check_dashboard(text)
    assert re.search(r"loss \d+\.\d+ [" + BLOCKS + "]{3,}", text)


def test_without_a_terminal_the_run_prints_plain_lines(tmp_path):
    cmd = [c for c in _command(tmp_path / "run") if c != "--slow"]
    proc = subprocess.run(cmd, env=_env(), capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    assert "\x1b[" not in proc.stdout and "╭" not in proc.stdout
    assert re.search(r"^\[valid\] epoch 3 done \| Accuracy \d+\.\d{4} \| Loss \d\.\d{4}$", proc.stdout, re.M)


def test_sparkline_maps_the_range_onto_eight_levels():
    assert sparkline([0.0, 1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0]) == BLOCKS
    assert sparkline([1.0, float("nan"), 1.0]) == "▁▁"
    assert len(sparkline(list(range(1000)), width=40)) == 40 and sparkline([]) == ""


def test_a_dumb_terminal_gets_plain_progress_lines_as_the_run_goes(tmp_path):
    pexpect = pytest.importorskip("pexpect")
    cmd = _command(tmp_path / "run")
    child = pexpect.spawn(cmd[0], cmd[1:], env={**_env(), "TERM": "dumb"}, dimensions=(30, 110),
                          encoding="utf-8", timeout=90)
    try:
        child.expect(r"\[valid\] epoch 1 done")
        before_end = child.before
        child.expect("finished after epoch 3")
        text = before_end + child.before
    finally:
        child.close(force=True)
    assert "\x1b[" not in text and "╭" not in text
    assert re.search(r"^training .*: epochs 1\.\.3", text, re.M)
    assert re.search(r"^\[train\] epoch 2 done \| Accuracy \d+\.\d{4} \| Loss \d\.\d{4}", text, re.M)
