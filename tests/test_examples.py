"""Every example script runs, and the README's quickstart runs exactly as printed."""
from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
EXAMPLES = sorted((ROOT / "examples").glob("*.py"))
README = ROOT / "README.md"


def _python() -> str:
    venv = ROOT / ".venv" / "bin" / "python"
    return str(venv) if venv.exists() else sys.executable


def _run(args, **kw) -> subprocess.CompletedProcess:
    env = dict(os.environ)
    env.pop("PYTHONPATH", None)  # the installed package, as a user would run it
    return subprocess.run([_python(), *args], cwd=ROOT, env=env, capture_output=True, text=True,
                          timeout=120, **kw)


def test_there_are_examples():
    assert any(p.name == "quickstart.py" for p in EXAMPLES)


@pytest.mark.parametrize("script", EXAMPLES, ids=[p.name for p in EXAMPLES])
def test_example_runs(script):
    proc = _run([str(script)])
    assert proc.returncode == 0, f"{script.name} failed:\n{proc.stdout}\n{proc.stderr}"
    if script.name == "quickstart.py":
        _check_quickstart_output(proc.stdout)


def _check_quickstart_output(out: str) -> None:
    assert "[[2.0, 2.0], [2.0, 2.0]]" in out
    for name in ("tensor (leaf)", "squared (powf_scalar)", "output (sum)", "tensor.grad(gradients)",
                 "tensor.detach()", "tensor.without_autodiff()"):
        assert name in out
    assert out.rstrip().endswith("OK: the gradient equals 2 * tensor")


def _readme_python_block() -> str:
    m = re.search(r"^```python\n(.*?)^```", README.read_text(encoding="utf-8"), re.S | re.M)
    assert m, "README.md has no ```python block"
    return m.group(1)


def test_readme_quickstart_runs_as_printed():
    proc = _run(["-c", _readme_python_block()])
    assert proc.returncode == 0, f"README quickstart failed:\n{proc.stdout}\n{proc.stderr}"
    lines = proc.stdout.splitlines()
    assert lines[:6] == [
        "[[2.0, 2.0], [2.0, 2.0]]",
        "[[2.0, 2.0], [2.0, 2.0]]",
        "None",
        "[4.0, 8.0]",
        "[2.0, 4.0]",
        "second backward: GraphConsumedError",
    ]


def test_readme_starts_with_the_two_commands():
    first = README.read_text(encoding="utf-8").splitlines()[:2]
    assert first[0].startswith("./scripts/demo")
    assert first[1].startswith("./scripts/test")
    for script in ("demo", "test", "setup-venv"):
        path = ROOT / "scripts" / script
        assert path.exists() and os.access(path, os.X_OK), f"scripts/{script} is not executable"


def test_readme_layout_paths_exist():
    text = README.read_text(encoding="utf-8")
    for rel in ("src/burn_torch/tensor.py", "src/burn_torch/autodiff/graph.py",
                "src/burn_torch/autodiff/record.py", "src/burn_torch/autodiff/engine.py",
                "src/burn_torch/autodiff/gradients.py", "src/burn_torch/ops/table.py",
                "benchmarks/mlp_step.py", "examples/quickstart.py"):
        assert (ROOT / rel).exists(), rel
    for mentioned in ("tensor.py", "graph.py", "record.py", "engine.py", "gradients.py",
                      "benchmarks/", "tests/", "examples/"):
        assert mentioned in text
