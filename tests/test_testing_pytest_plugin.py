"""The testing kit's pytest plugin: the burn_check fixture takes the --burn-torch-* options, and
the hypothesis CI profile is registered."""
from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from pathlib import Path

SRC = str(Path(__file__).resolve().parent.parent / "src")

USER_TESTS = textwrap.dedent('''
    import numpy as np
    import torch
    from burn_torch.autodiff.strategy import GradientCheckpointingStrategy as S

    X = np.linspace(-1.0, 1.0, 6).reshape(2, 3)

    def test_options_reach_the_checker(burn_check, request):
        want = request.config.getoption("--burn-torch-strategies")
        names = {"both": ("DISABLED", "BALANCED"), "disabled": ("DISABLED",), "balanced": ("BALANCED",)}
        assert tuple(s.name for s in burn_check.strategies) == names[want]
        print("SEED", burn_check.seed, "SCALE", burn_check.tolerance_scale)

    def test_the_checker_runs_the_reference(burn_check):
        burn_check.matches_torch(lambda x: x.exp(), torch.exp, X)
        burn_check.grads_match_torch(lambda x: x.sin(), X)

    def test_loose_tolerance_accepts_a_small_error(burn_check):
        burn_check.matches_torch(lambda x: x * (1 + 1e-9), lambda x: x, X, numeric=False)
''')


def _pytest(tmp_path, *args):
    (tmp_path / "test_user.py").write_text(USER_TESTS)
    env = {**os.environ, "PYTHONPATH": SRC}
    return subprocess.run([sys.executable, "-m", "pytest", "-p", "burn_torch.testing.pytest_plugin",
                           "-p", "no:cacheprovider", "-s", "-q", str(tmp_path / "test_user.py"), *args],
                          capture_output=True, text=True, env=env, cwd=tmp_path)


def test_fixture_takes_the_options(tmp_path):
    out = _pytest(tmp_path, "--burn-torch-strategies=balanced", "--burn-torch-seed=7",
                  "--burn-torch-tolerance=loose")
    assert out.returncode == 0, out.stdout + out.stderr
    assert "SEED 7 SCALE 100.0" in out.stdout


def test_default_profile_rejects_the_small_error(tmp_path):
    out = _pytest(tmp_path, "-k", "loose")
    assert out.returncode == 1 and "outside rtol=1e-10" in out.stdout


def test_options_are_listed_in_help(tmp_path):
    out = _pytest(tmp_path, "--help")
    assert "--burn-torch-strategies" in out.stdout and "--burn-torch-tolerance" in out.stdout


def test_hypothesis_ci_profile_is_registered(tmp_path):
    out = _pytest(tmp_path, "--hypothesis-profile=burn_torch-ci", "-k", "reference")
    assert out.returncode == 0, out.stdout + out.stderr


def test_pyproject_declares_the_entry_point():
    text = (Path(SRC).parent / "pyproject.toml").read_text(encoding="utf-8")
    assert 'burn_torch = "burn_torch.testing.pytest_plugin"' in text.split("[project.entry-points.pytest11]")[1]
