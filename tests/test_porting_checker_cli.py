"""The porting checker behaves as a linter: codes, formats, selection, `# noqa`, configuration,
exit statuses, stdin, `--fix`, a pre-commit hook, a flake8 plugin, a start without torch."""
from __future__ import annotations

import io
import json
import os
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest
import yaml

from burn_torch_check.catalog import catalog, entry
from burn_torch_check.check import Selection, check_source
from burn_torch_check.cli import EXIT_CLEAN, EXIT_FINDINGS, EXIT_USAGE, main
from burn_torch_check.codes import CODE, assign_codes
from burn_torch_check.fix import fix_source

ROOT = Path(__file__).resolve().parent.parent
SAMPLES = ROOT / "tests" / "data" / "porting_samples"
ENV = {**os.environ, "PYTHONPATH": str(ROOT / "src")}
TRAIN = "import torch\nloss = model.forward(x)\nloss.backward()\nprint(loss.item())\n"


@pytest.fixture
def project(tmp_path, monkeypatch):
    """An empty project directory as the working directory."""
    monkeypatch.chdir(tmp_path)
    return tmp_path


def write(path: Path, text: str) -> Path:
    path.write_text(text, encoding="utf-8")
    return path


# ==================================================================== codes ====
def test_every_entry_has_a_distinct_well_formed_code():
    codes = [e.code for e in catalog()]
    assert all(CODE.match(c) for c in codes) and len(set(codes)) == len(codes)


def test_codes_are_the_recorded_ones():
    recorded = json.loads((ROOT / "compat" / "_codes.json").read_text())
    assert {e.id: e.code for e in catalog()} == {i: c for i, c in recorded.items() if i in {e.id for e in catalog()}}


def test_the_code_hundreds_are_the_guide_sections():
    assert entry("backward_returns_container").code.startswith("BT2")
    assert entry("renamed_methods").code.startswith("BT1")


def test_assigning_codes_keeps_existing_ones_and_gives_a_new_entry_the_next_of_its_section():
    registry = {"a": "BT101", "b": "BT102", "old": "BT201"}
    codes = assign_codes([("a", "tensors"), ("new", "tensors"), ("x", "autodiff")], registry)
    assert codes == {"a": "BT101", "b": "BT102", "old": "BT201", "new": "BT103", "x": "BT202"}


def test_a_duplicated_code_in_the_registry_is_refused():
    with pytest.raises(ValueError, match="duplicated code 'BT101'"):
        assign_codes([], {"a": "BT101", "b": "BT101"})


# =================================================================== output ====
def test_text_lines_are_path_line_col_code_id_what_and_recipe(project, capsys):
    write(project / "train.py", TRAIN)
    assert main(["train.py"]) == EXIT_FINDINGS
    lines = capsys.readouterr().out.splitlines()
    e = entry("backward_returns_container")
    assert lines[0] == f"train.py:3:6: {e.code} backward_returns_container: {e.what} → {e.recipe}"
    assert lines[2] == "2 findings (1 silent, 1 loud) in 1 file"


def test_json_lists_one_object_per_finding(project, capsys):
    write(project / "train.py", TRAIN)
    main(["--format", "json", "train.py"])
    found = json.loads(capsys.readouterr().out)
    assert [(f["line"], f["col"], f["id"]) for f in found] == [(3, 6, "backward_returns_container"),
                                                               (4, 12, "renamed_methods")]
    assert found[1]["fixable"] is True and found[1]["guide"].endswith("1-tensors.md#renamed_methods")


def test_github_format_annotates_silent_as_errors_and_loud_as_warnings(project, capsys):
    write(project / "train.py", TRAIN)
    main(["--format", "github", "train.py"])
    out = capsys.readouterr().out.splitlines()
    code = entry("backward_returns_container").code
    assert out[0].startswith(f"::error file=train.py,line=3,col=6,title={code} backward_returns_container::")
    assert out[1].startswith("::warning file=train.py,line=4,col=12,")


# ================================================================ selection ====
def test_select_keeps_only_the_named_codes(project, capsys):
    write(project / "train.py", TRAIN)
    main(["--select", entry("renamed_methods").code, "train.py"])
    assert "backward_returns_container" not in capsys.readouterr().out


def test_ignore_drops_entries_by_id_and_severity(project, capsys):
    write(project / "train.py", TRAIN)
    assert main(["--ignore", "renamed_methods,silent", "train.py"]) == EXIT_CLEAN
    assert "0 findings" in capsys.readouterr().out


def test_a_code_prefix_selects_a_section():
    assert Selection(["BT2"]).keeps(entry("retain_graph"))
    assert not Selection(["BT2"]).keeps(entry("renamed_methods"))


def test_an_unknown_code_is_a_usage_error(project, capsys):
    write(project / "train.py", TRAIN)
    assert main(["--select", "BT999", "train.py"]) == EXIT_USAGE
    assert "'BT999' matches no catalog entry" in capsys.readouterr().err


# ===================================================================== noqa ====
@pytest.mark.parametrize("comment", ["# noqa: {code}", "# noqa: backward_returns_container",
                                     "# noqa", "# noqa: E501, {code}"])
def test_noqa_suppresses_the_finding_of_its_line(comment):
    code = entry("backward_returns_container").code
    src = f"loss.backward()  {comment.format(code=code)}\n"
    assert check_source(src, "x.py") == []


def test_noqa_for_another_code_suppresses_nothing():
    assert len(check_source("loss.backward()  # noqa: BT101\n", "x.py")) == 1


def test_noqa_inside_a_string_is_no_comment():
    assert len(check_source("loss.backward(); s = '# noqa'\n", "x.py")) == 1


# =========================================================== configuration ====
def test_pyproject_settings_apply(project, capsys):
    write(project / "pyproject.toml", '[tool.burn-torch-check]\nignore = ["renamed_methods"]\n'
                                      'exclude = ["vendor/*"]\nformat = "json"\n')
    (project / "vendor").mkdir()
    write(project / "vendor" / "lib.py", TRAIN)
    write(project / "train.py", TRAIN)
    assert main(["."]) == EXIT_FINDINGS
    found = json.loads(capsys.readouterr().out)
    assert [(f["path"], f["id"]) for f in found] == [("train.py", "backward_returns_container")]


def test_pyproject_exit_zero_applies(project):
    write(project / "pyproject.toml", "[tool.burn-torch-check]\nexit-zero = true\n")
    write(project / "train.py", TRAIN)
    assert main(["train.py"]) == EXIT_CLEAN


def test_an_unknown_pyproject_key_is_a_usage_error(project, capsys):
    write(project / "pyproject.toml", "[tool.burn-torch-check]\nselekt = []\n")
    write(project / "train.py", TRAIN)
    assert main(["train.py"]) == EXIT_USAGE
    assert "unknown [tool.burn-torch-check] keys: selekt" in capsys.readouterr().err


# ============================================================ exit statuses ====
def test_clean_code_exits_0(capsys):
    assert main([str(SAMPLES / "clean.py")]) == EXIT_CLEAN
    assert "0 findings (0 silent, 0 loud) in 1 file" in capsys.readouterr().out


def test_findings_exit_1_unless_exit_zero(project):
    write(project / "loud.py", "x.retain_grad()\n")
    assert main(["loud.py"]) == EXIT_FINDINGS
    assert main(["--exit-zero", "loud.py"]) == EXIT_CLEAN


def test_a_bad_option_exits_2(capsys):
    assert main(["--format", "xml", "x.py"]) == EXIT_USAGE


def test_an_unparsable_file_exits_2(project, capsys):
    write(project / "broken.py", "def (:\n")
    assert main(["broken.py"]) == EXIT_USAGE
    assert "broken.py: cannot check:" in capsys.readouterr().err


def test_directories_are_searched(capsys):
    main([str(SAMPLES)])
    assert f"in {len(list(SAMPLES.glob('*.py')))} files" in capsys.readouterr().out


def test_stdin_is_read_for_a_dash(monkeypatch, capsys):
    monkeypatch.setattr(sys, "stdin", io.StringIO(TRAIN))
    assert main(["--stdin-filename", "train.py", "-"]) == EXIT_FINDINGS
    assert capsys.readouterr().out.startswith("train.py:3:6: ")


def test_the_projects_examples_pass():
    assert main([str(ROOT / "examples")]) == EXIT_CLEAN


# ====================================================================== fix ====
FIXABLE = """\
import torch
x = torch.ones(2, 3)
total = x.sum(1)  # per row
v = x.view(3, 2).item()
u = x.unsqueeze(0).transpose(0, 1)
model.train()
loss.backward()
"""
FIXED = """\
import torch
x = torch.ones(2, 3)
total = x.sum_dim(1).squeeze_dim(1)  # per row
v = x.reshape([3, 2]).into_scalar()
u = x.unsqueeze_dim(0).swap_dims(0, 1)
model = model.train()
loss.backward()
"""


def test_fix_rewrites_what_is_certain_and_keeps_comments():
    text, applied = fix_source(FIXABLE, check_source(FIXABLE, "x.py"))
    assert text == FIXED and applied == 6


def test_fix_rewrites_files_and_reports_what_remains(project, capsys):
    path = write(project / "train.py", FIXABLE)
    assert main(["--fix", "train.py"]) == EXIT_FINDINGS
    assert path.read_text() == FIXED
    out = capsys.readouterr().out
    assert "backward_returns_container" in out and "renamed_methods" not in out


def test_fix_on_stdin_writes_the_fixed_source(monkeypatch, capsys):
    monkeypatch.setattr(sys, "stdin", io.StringIO(FIXABLE))
    main(["--fix", "-"])
    assert capsys.readouterr().out == FIXED


def test_a_view_with_one_argument_is_not_rewritten():
    src = "import torch\nx = torch.ones(2)\ny = x.view(shape)\n"
    assert fix_source(src, check_source(src, "x.py")) == (src, 0)


# ============================================================ integrations ====
def test_the_console_script_and_flake8_plugin_are_declared():
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    assert project["scripts"]["burn-torch-check"] == "burn_torch_check.cli:main"
    assert project["entry-points"]["flake8.extension"]["BT"] == "burn_torch_check.flake8_plugin:Plugin"


def test_the_pre_commit_hook_installs_nothing_and_runs_without_site_packages(project):
    (hook,) = yaml.safe_load((ROOT / ".pre-commit-hooks.yaml").read_text())
    assert hook["id"] == "burn-torch-check" and hook["language"] == "script"
    assert hook["types_or"] == ["python", "jupyter"]
    write(project / "train.py", TRAIN)
    # -S: no site-packages at all, so neither torch nor any installed package is importable
    proc = subprocess.run([sys.executable, "-S", str(ROOT / hook["entry"]), "train.py"], cwd=project,
                          capture_output=True, text=True, timeout=120)
    assert proc.returncode == EXIT_FINDINGS, proc.stderr
    assert proc.stdout.startswith("train.py:3:6: ")


def test_the_checker_distribution_ships_the_package_without_torch():
    dist = tomllib.loads((ROOT / "checker" / "pyproject.toml").read_text())
    main_project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    assert dist["project"]["dynamic"] == main_project["dynamic"] == ["version"]
    assert (ROOT / "checker" / dist["tool"]["hatch"]["version"]["path"]).resolve() == ROOT / "src" / "burn_torch" / "__init__.py"
    assert not any(d.split(";")[0].strip().startswith("torch") for d in dist["project"]["dependencies"])
    assert dist["project"]["scripts"] == main_project["scripts"]
    shipped = dist["tool"]["hatch"]["build"]["targets"]["wheel"]["force-include"]
    assert {(ROOT / "checker" / src).resolve() for src in shipped} == {ROOT / "src" / "burn_torch_check"}
    assert (ROOT / "src" / "burn_torch_check" / "catalog.json").is_file()


def test_flake8_reports_the_findings_with_their_codes(project):
    write(project / ".flake8", "[flake8:local-plugins]\nextension =\n    BT = burn_torch_check.flake8_plugin:Plugin\n")
    write(project / "train.py", TRAIN)
    proc = subprocess.run([sys.executable, "-m", "flake8", "--select", "BT", "train.py"],
                          cwd=project, env=ENV, capture_output=True, text=True, timeout=120)
    code = entry("backward_returns_container").code
    assert proc.stdout.splitlines()[0].startswith(f"train.py:3:6: {code} backward_returns_container: ")


def test_the_module_entry_point_runs_without_importing_torch(project):
    write(project / "train.py", TRAIN)
    probe = ("import runpy, sys\nsys.argv = ['burn-torch-check', 'train.py']\n"
             "try:\n    runpy.run_module('burn_torch_check', run_name='__main__')\n"
             "except SystemExit as e:\n    print('exit', e.code, 'torch' in sys.modules, 'burn_torch' in sys.modules)\n")
    proc = subprocess.run([sys.executable, "-c", probe], cwd=project, env=ENV,
                          capture_output=True, text=True, timeout=120)
    assert proc.stdout.splitlines()[-1] == "exit 1 False False", proc.stderr


def test_the_historical_module_path_still_runs():
    proc = subprocess.run([sys.executable, "-m", "burn_torch.compat.check", str(SAMPLES / "clean.py")],
                          cwd=ROOT, env=ENV, capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip() == "0 findings (0 silent, 0 loud) in 1 file"


def test_the_torch_only_method_list_is_what_torch_and_burn_torch_say():
    from burn_torch_check.methods import METHODS_JSON, generate
    assert json.loads(METHODS_JSON.read_text()) == generate()


# ========================================================== linter behaviour ====
def test_virtual_environments_build_output_and_gitignored_paths_are_not_walked(project, capsys):
    for skipped in (".venv/lib/site.py", "venv/x.py", "build/lib/y.py", "dist/z.py", ".tox/t.py",
                    "pkg/__pycache__/c.py", "generated/g.py", "notes/draft.py"):
        (project / skipped).parent.mkdir(parents=True, exist_ok=True)
        write(project / skipped, "x.retain_grad()\n")
    write(project / ".gitignore", "generated/\n*draft.py\n")
    write(project / "train.py", "x.retain_grad()\n")
    assert main(["."]) == EXIT_FINDINGS
    out = capsys.readouterr().out
    assert out.splitlines()[0].startswith("train.py:1:3: ") and "in 1 file" in out


def test_a_file_named_explicitly_is_checked_even_if_gitignored(project, capsys):
    write(project / ".gitignore", "*.py\n")
    write(project / "train.py", "x.retain_grad()\n")
    assert main(["train.py"]) == EXIT_FINDINGS


NOTEBOOK = {"cells": [
    {"cell_type": "markdown", "source": ["# Training\n"]},
    {"cell_type": "code",
     "source": ["%matplotlib inline\n", "import torch\n", "w = torch.zeros(2, requires_grad=True)\n"]},
    {"cell_type": "code", "source": ["loss = (w * 2).sum()\n", "!nvidia-smi\n", "loss.backward()\n", "print(w.grad)"]},
], "metadata": {}, "nbformat": 4, "nbformat_minor": 5}


def test_notebook_code_cells_are_checked_and_findings_name_their_cell(project, capsys):
    write(project / "train.ipynb", json.dumps(NOTEBOOK))
    assert main(["--format", "json", "."]) == EXIT_FINDINGS
    found = [(f["path"], f["line"], f["col"], f["id"]) for f in json.loads(capsys.readouterr().out)]
    assert found == [("train.ipynb:cell_2", 3, 20, "require_grad_needs_autodiff"),
                     ("train.ipynb:cell_3", 3, 6, "backward_returns_container"),
                     ("train.ipynb:cell_3", 4, 9, "backward_returns_container")]


def test_a_file_that_is_not_a_notebook_is_a_usage_error(project, capsys):
    write(project / "broken.ipynb", "{not json")
    assert main(["broken.ipynb"]) == EXIT_USAGE
    assert "broken.ipynb: cannot check: not a notebook" in capsys.readouterr().err


def test_a_closed_pipe_ends_the_run_without_a_traceback():
    proc = subprocess.Popen([sys.executable, "-m", "burn_torch_check", str(SAMPLES)], cwd=ROOT, env=ENV,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, bufsize=0)
    proc.stdout.read(10)
    proc.stdout.close()  # what `| head -c 10` does
    err = proc.stderr.read().decode()
    proc.wait(timeout=120)
    assert "Traceback" not in err and "BrokenPipeError" not in err, err


def test_version_list_and_explain(capsys):
    assert main(["--version"]) == EXIT_CLEAN
    assert capsys.readouterr().out.startswith("burn-torch-check 0.1.0")
    assert main(["--list-rules"]) == EXIT_CLEAN
    rules = capsys.readouterr().out.splitlines()
    assert len(rules) == len(catalog()) and rules[0].split()[:3] == ["BT101", "loud", "tensor_constructor"]
    assert main(["--explain", "bt205"]) == EXIT_CLEAN
    text = capsys.readouterr().out
    assert text.startswith("BT205 backward_returns_container (silent)")
    assert "How to port: grads = loss.backward()" in text
    assert main(["--explain", "BT999"]) == EXIT_USAGE


def test_the_guide_is_named_by_a_path_that_works_from_anywhere(project, capsys):
    write(project / "train.py", TRAIN)
    main(["train.py"])
    guide = capsys.readouterr().out.splitlines()[-1].rpartition("(")[2].rstrip(").")
    assert Path(guide).is_absolute() and Path(guide).is_file()


def test_an_unknown_noqa_code_or_entry_is_reported(project, capsys):
    write(project / "loud.py", "x.retain_grad()  # noqa: BT999, retain_grap, E501\ny = 1  # noqa: BT212\n")
    main(["loud.py"])
    err = capsys.readouterr().err.splitlines()
    assert err == ["loud.py:1: warning: # noqa names no burn-torch-check code or entry: bt999",
                   "loud.py:1: warning: # noqa names no burn-torch-check code or entry: retain_grap"]


def test_diff_prints_the_rewrites_and_writes_nothing(project, capsys):
    path = write(project / "train.py", FIXABLE)
    assert main(["--diff", "train.py"]) == EXIT_FINDINGS
    out = capsys.readouterr().out
    assert path.read_text() == FIXABLE
    assert out.startswith("--- a/train.py\n+++ b/train.py\n")
    assert "-total = x.sum(1)  # per row\n" in out and "+total = x.sum_dim(1).squeeze_dim(1)  # per row\n" in out
    write(project / "clean.py", "import torch\n")
    assert main(["--diff", "clean.py"]) == EXIT_CLEAN


def test_plain_flake8_does_not_report_bt_findings(project):
    write(project / ".flake8", "[flake8:local-plugins]\nextension =\n    BT = burn_torch_check.flake8_plugin:Plugin\n")
    write(project / "train.py", TRAIN)
    plain = subprocess.run([sys.executable, "-m", "flake8", "train.py"], cwd=project, env=ENV,
                           capture_output=True, text=True, timeout=120)
    assert " BT" not in plain.stdout and "F821" in plain.stdout
    enabled = subprocess.run([sys.executable, "-m", "flake8", "--enable-extensions", "BT", "train.py"],
                             cwd=project, env=ENV, capture_output=True, text=True, timeout=120)
    assert " BT205 " in enabled.stdout


# ===================================================== --fix never breaks code ====
PORT_TO_FIX = """\
from burn_torch import Device, Tensor, nn

device = Device.cpu()
model = nn.LinearConfig(3, 2).init(device)


def train():
    model.train()  # a global read in a function: rebinding it here would make it local
    return model


y = model(Tensor.ones([2, 3], device))
z = y.reshape(4, 1).pow(2).squeeze(1)
value = z.sum().item()
train()
"""


def test_fixed_code_runs_where_the_original_was_meant_to():
    findings = check_source(PORT_TO_FIX, "port.py")
    fixed, applied = fix_source(PORT_TO_FIX, findings)
    assert applied == 5 and "model = model.train()" not in fixed
    with pytest.raises(TypeError):
        exec(compile(PORT_TO_FIX, "port.py", "exec"), {})
    scope: dict = {}
    exec(compile(fixed, "port.py", "exec"), scope)
    assert scope["z"].dims() == [4] and isinstance(scope["value"], float)


def test_a_discarded_train_of_a_local_or_an_attribute_is_rebound():
    src = "def f(model):\n    model.train()\n    self.net.train()\n    return model\n"
    fixed, _ = fix_source(src, check_source(src, "x.py"))
    assert fixed == "def f(model):\n    model = model.train()\n    self.net = self.net.train()\n    return model\n"


@pytest.mark.parametrize("source", sorted((ROOT / "tests" / "data" / "porting_corpus").glob("*.py"))
                         + sorted(SAMPLES.glob("*.py")), ids=lambda p: p.name)
def test_fixing_twice_changes_nothing_more_and_the_result_parses(source):
    text = source.read_text(encoding="utf-8")
    once, _ = fix_source(text, check_source(text, source.name))
    compile(once, source.name, "exec")
    twice, applied = fix_source(once, check_source(once, source.name))
    assert (twice, applied) == (once, 0)
