"""The examples run as a user runs them, and their agreement checks can fail.

Every example script runs in a subprocess with the venv's python (the demo's, through
``./scripts/demo``); every notebook runs on a real Jupyter kernel (the venv's python, declared
as a kernel spec in a temporary Jupyter path) within a time limit, and a cell that raises
(including the final agreement check) fails the test. Each notebook is its script paired by
jupytext (``examples/jupytext.toml``; the percent-format script is the source), stored with
outputs cleared. With every
backward rule of the op table made slightly wrong, each side-by-side example's agreement check
fails. The README's quickstart runs exactly as printed, and the README starts with the demo and
test commands.
"""
from __future__ import annotations

import asyncio
import importlib.util
import json
import os
import re
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import jupytext
import nbformat
import pytest
from nbclient import NotebookClient

ROOT = Path(__file__).resolve().parent.parent
EXAMPLES = ROOT / "examples"
README = ROOT / "README.md"
DEMO = "train_mlp_side_by_side"
PORTS = ["port_mnist_cnn", "port_nanogpt", "port_word_language_model"]  # verified by verify_port
SIDE_BY_SIDE = ["quickstart", "backward_and_gradients", "gradient_accumulation", DEMO,
                "porting_walkthrough", "checkpointing_memory", "train_mnist_learner", "testing_custom_layer",
                *PORTS]
# every example script; the demo's runs through ./scripts/demo, the helpers are not examples
SCRIPTS = [p for p in sorted(EXAMPLES.glob("*.py"))
           if not p.name.startswith("_") and p.stem != DEMO]
NOTEBOOK_TIMEOUT = 120  # seconds for a whole notebook, kernel start included
KERNEL = "burn-torch-venv"
WORKERS = 2  # runs at a time (CI has 2 cores; each run uses one torch thread)


def _load(name: str):
    """``examples/<name>.py`` imported as a module."""
    spec = importlib.util.spec_from_file_location(name, EXAMPLES / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


DISAGREE = _load("_side_by_side").DISAGREE
KIT_DISAGREES = "burn_torch disagrees with the torch reference"


def _python() -> str:
    venv = ROOT / ".venv" / "bin" / "python"
    return str(venv) if venv.exists() else sys.executable


def _env(output: Path) -> dict[str, str]:
    """The environment examples run in: the installed package (no PYTHONPATH), files written
    to ``output``, one torch thread (tiny tensors, and runs share the cores)."""
    env = dict(os.environ)
    env.pop("PYTHONPATH", None)
    env["BURN_TORCH_EXAMPLES_OUTPUT"] = str(output)
    env["OMP_NUM_THREADS"] = "1"
    return env


def _run(args, env: dict[str, str], timeout: float) -> subprocess.CompletedProcess:
    """Runs ``args`` from the repository root; a timeout is a failed run, not an exception."""
    try:
        return subprocess.run(args, cwd=ROOT, env=env, capture_output=True, text=True, timeout=timeout)
    except subprocess.TimeoutExpired as e:
        return subprocess.CompletedProcess(args, -1, e.stdout or "", f"timed out after {timeout} s")


# ============================================================================== scripts ====
MUTATED_RUN = """
import contextlib, io, json, runpy, sys
sys.path.insert(0, sys.argv[1])
from burn_torch.ops.table import OPS

def bump(grad):
    if grad is None:
        return None
    if hasattr(grad, "dense"):  # a slicing op's region gradient (burn_torch.ops.region)
        grad = grad.dense()
    return grad + 1e-3

def off_by_a_little(rule):
    def wrong(*args):
        grad = rule(*args)
        return tuple(bump(g) for g in grad) if isinstance(grad, tuple) else bump(grad)
    return wrong

for op in OPS.values():
    if op.fused is not None:
        op.fused = off_by_a_little(op.fused)
    elif op.rules is not None:
        op.rules = tuple(None if r is None else off_by_a_little(r) for r in op.rules)
outcomes = {}
for path in sys.argv[2:]:
    try:
        with contextlib.redirect_stdout(io.StringIO()):
            runpy.run_path(path, run_name="__main__")
        outcomes[path] = "passed"
    except Exception as e:
        outcomes[path] = f"{type(e).__name__}: {e}"
print(json.dumps(outcomes))
"""
WRONG_GRADIENTS = "wrong gradients"


@pytest.fixture(scope="module")
def runs(tmp_path_factory) -> dict[str, subprocess.CompletedProcess]:
    """Every example script (by file name), ``./scripts/demo`` ("demo") and the side-by-side
    scripts with every backward rule adding 1e-3 to its gradients, in one process
    (:data:`WRONG_GRADIENTS`), :data:`WORKERS` at a time, each writing to its own folder."""
    tmp = tmp_path_factory.mktemp("runs")
    jobs = {p.name: ([_python(), str(p)], 120) for p in SCRIPTS}
    jobs["demo"] = ([str(ROOT / "scripts" / "demo")], 120)
    jobs[WRONG_GRADIENTS] = ([_python(), "-c", MUTATED_RUN, str(EXAMPLES),
                              *(str(EXAMPLES / f"{name}.py") for name in SIDE_BY_SIDE)], 300)

    def run(job):
        name, (args, timeout) = job
        return name, _run(args, _env(tmp / name), timeout)

    with ThreadPoolExecutor(WORKERS) as pool:
        return dict(pool.map(run, jobs.items()))


def test_there_are_examples():
    assert any(p.name == "quickstart.py" for p in SCRIPTS)
    for name in SIDE_BY_SIDE:
        assert (EXAMPLES / f"{name}.py").exists(), name


@pytest.mark.parametrize("script", SCRIPTS, ids=[p.name for p in SCRIPTS])
def test_example_runs(runs, script):
    proc = runs[script.name]
    assert proc.returncode == 0, f"{script.name} failed:\n{proc.stdout}\n{proc.stderr}"
    if script.stem in SIDE_BY_SIDE:
        assert proc.stdout.rstrip().splitlines()[-1].startswith("OK: ")
    if script.name == "quickstart.py":
        _check_quickstart_output(proc.stdout)


def _check_quickstart_output(out: str) -> None:
    assert "[[2.0, 2.0], [2.0, 2.0]]" in out
    for name in ("tensor (leaf)", "squared (powf_scalar)", "output (sum)", "tensor.grad(gradients)",
                 "tensor.detach()", "tensor.without_autodiff()"):
        assert name in out
    assert out.rstrip().endswith("OK: the gradient equals 2 * tensor")


def test_demo_trains_both_sides_and_writes_the_plot(runs):
    proc = runs["demo"]
    assert proc.returncode == 0, f"./scripts/demo failed:\n{proc.stdout}\n{proc.stderr}"
    out = proc.stdout
    progress = re.findall(r"^\s*(\d+) │\s+([\d.]+) │\s+([\d.]+) │", out, re.M)
    assert [int(step) for step, _, _ in progress] == [0, 50, 100, 150, 200, 250, 299]
    assert float(progress[-1][1]) < 0.5 * float(progress[0][1])  # it learned
    assert "== PyTorch vs burn_torch" in out and "fc3.bias" in out
    written = re.search(r"^plot written to (.+)$", out, re.M)
    assert written, "the demo does not say where the plot is"
    plot = Path(written.group(1))
    assert plot.name == f"{DEMO}.png" and plot.parent.name == "demo"  # the demo run's output folder
    assert plot.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n" and plot.stat().st_size > 10_000
    assert out.rstrip().splitlines()[-1].startswith("OK: both sides trained the same model")


@pytest.mark.parametrize("name", SIDE_BY_SIDE)
def test_agreement_check_fails_when_gradients_are_wrong(runs, name):
    proc = runs[WRONG_GRADIENTS]
    assert proc.returncode == 0, proc.stderr
    outcomes = {Path(p).stem: o for p, o in json.loads(proc.stdout.splitlines()[-1]).items()}
    # the testing kit's own example reports through the kit, the others through _side_by_side
    expected = KIT_DISAGREES if name == "testing_custom_layer" else DISAGREE
    assert outcomes[name].startswith(f"AssertionError: {expected}"), outcomes[name]


# ============================================================================ notebooks ====
SYNC = "run jupytext --sync examples/*.py"


@pytest.mark.parametrize("name", SIDE_BY_SIDE)
def test_notebook_is_its_script_paired_by_jupytext(name):
    path = EXAMPLES / f"{name}.ipynb"
    assert path.exists(), f"{path.name} is missing: {SYNC}"
    stored = nbformat.read(path, as_version=4)
    paired = jupytext.read(EXAMPLES / f"{name}.py")
    assert [(c.cell_type, c.source) for c in stored.cells] == \
        [(c.cell_type, c.source) for c in paired.cells], f"{path.name} is out of date: {SYNC}"


def test_examples_are_paired_with_their_notebooks_in_percent_format():
    config = jupytext.config.load_jupytext_configuration_file(str(EXAMPLES / "jupytext.toml"))
    assert config.formats in ("ipynb,py:percent", ["ipynb,py:percent"])
    first = {name: (EXAMPLES / f"{name}.py").read_text(encoding="utf-8").splitlines()[:2]
             for name in SIDE_BY_SIDE}
    # a title cell first: what a reader of the notebook (and of the docs site) sees on top
    assert {n: f for n, f in first.items()
            if f[0] != "# %% [markdown]" or not f[1].startswith("# # ")} == {}


@pytest.mark.parametrize("name", SIDE_BY_SIDE)
def test_notebook_is_stored_with_outputs_cleared(name):
    nb = nbformat.read(EXAMPLES / f"{name}.ipynb", as_version=4)
    nbformat.validate(nb)
    code = [c for c in nb.cells if c.cell_type == "code"]
    assert len(code) >= 3
    assert all(c.outputs == [] and c.execution_count is None for c in code)


@pytest.fixture(scope="module")
def executed(tmp_path_factory) -> dict[str, "nbformat.NotebookNode | BaseException"]:
    """Every side-by-side notebook executed on a fresh kernel running the venv's python (a
    kernel spec found through JUPYTER_PATH), :data:`WORKERS` at a time, each within
    :data:`NOTEBOOK_TIMEOUT`: the executed notebook, or what its execution raised."""
    tmp = tmp_path_factory.mktemp("notebooks")
    spec = tmp / "jupyter" / "kernels" / KERNEL
    spec.mkdir(parents=True)
    (spec / "kernel.json").write_text(json.dumps({
        "argv": [_python(), "-m", "ipykernel_launcher", "-f", "{connection_file}"],
        "display_name": "burn_torch (.venv)", "language": "python"}), encoding="utf-8")

    async def execute(name: str, slots: asyncio.Semaphore):
        async with slots:
            nb = nbformat.read(EXAMPLES / f"{name}.ipynb", as_version=4)
            client = NotebookClient(nb, kernel_name=KERNEL, timeout=NOTEBOOK_TIMEOUT,
                                    resources={"metadata": {"path": str(EXAMPLES)}})
            await asyncio.wait_for(client.async_execute(env=_env(tmp / name)), NOTEBOOK_TIMEOUT)
            return nb

    async def execute_all():
        slots = asyncio.Semaphore(WORKERS)
        results = await asyncio.gather(*(execute(n, slots) for n in SIDE_BY_SIDE), return_exceptions=True)
        return dict(zip(SIDE_BY_SIDE, results))

    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("JUPYTER_PATH", str(tmp / "jupyter"))
        return asyncio.run(execute_all())


@pytest.mark.parametrize("name", SIDE_BY_SIDE)
def test_notebook_executes_and_agrees(executed, name):
    nb = executed[name]
    if isinstance(nb, BaseException):
        raise nb  # a cell that raised (CellExecutionError, with its traceback) or a timeout
    code = [c for c in nb.cells if c.cell_type == "code"]
    assert all(c.execution_count is not None for c in code)
    last = "".join(o.get("text", "") for o in code[-1].outputs if o.output_type == "stream")
    assert last.rstrip().splitlines()[-1].startswith("OK: "), last


# =============================================================================== README ====
def _readme_python_block() -> str:
    m = re.search(r"^```python\n(.*?)^```", README.read_text(encoding="utf-8"), re.S | re.M)
    assert m, "README.md has no ```python block"
    return m.group(1)


def test_readme_quickstart_runs_as_printed(tmp_path):
    proc = _run([_python(), "-c", _readme_python_block()], _env(tmp_path), 120)
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
    assert first[0].startswith("./scripts/demo") and f"{DEMO}.py" in first[0]
    assert first[1].startswith("./scripts/test")
    for script in ("demo", "test", "setup-venv"):
        path = ROOT / "scripts" / script
        assert path.exists() and os.access(path, os.X_OK), f"scripts/{script} is not executable"
    assert f"examples/{DEMO}.py" in (ROOT / "scripts" / "demo").read_text(encoding="utf-8")


def test_readme_layout_paths_exist():
    text = README.read_text(encoding="utf-8")
    for rel in ("src/burn_torch/tensor.py", "src/burn_torch/autodiff/graph.py",
                "src/burn_torch/autodiff/recorder.py", "src/burn_torch/autodiff/engine.py",
                "src/burn_torch/autodiff/gradients.py", "src/burn_torch/ops/table.py",
                "benchmarks/mlp_step.py", "examples/quickstart.py"):
        assert (ROOT / rel).exists(), rel
    for mentioned in ("tensor.py", "graph.py", "recorder.py", "engine.py", "gradients.py",
                      "benchmarks/", "tests/", "examples/"):
        assert mentioned in text
