"""The porting checker finds every covered PyTorch idiom in the sample scripts, and nothing else.

The samples under tests/data/porting_samples/ are PyTorch programs (never run); each expected
finding is (line, column, catalog id), columns 1-based as the checker prints them.
"""
from __future__ import annotations

import os
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

from burn_torch.compat import catalog
from burn_torch.compat.check import check_source, detector_map, main
from burn_torch.compat.detectors import DETECTORS

ROOT = Path(__file__).resolve().parent.parent
SAMPLES = ROOT / "tests" / "data" / "porting_samples"

EXPECTED = {
    "train_loop.py": [
        (11, 20, "linear_weight_layout"),
        (12, 20, "linear_weight_layout"),
        (13, 22, "parameter_vs_param"),
        (20, 5, "seeding"),
        (21, 19, "to_device_records_op"),
        (22, 11, "load_state_dict"),
        (23, 17, "optimizer_step_returns_module"),
        (23, 40, "parameters_iteration"),
        (25, 15, "train_returns_module"),
        (27, 23, "no_zero_grad"),
        (29, 18, "backward_returns_container"),
        (30, 13, "gradient_clipping_per_parameter"),
        (30, 44, "parameters_iteration"),
        (31, 23, "optimizer_step_returns_module"),
        (32, 15, "eval_is_valid"),
        (34, 14, "no_grad_has_no_effect"),
        (36, 33, "argmax_keeps_dim"),
        (37, 40, "reductions_return_shape_1"),
        (37, 46, "renamed_methods"),
    ],
    "autodiff_tricks.py": [
        (5, 30, "require_grad_needs_autodiff"),
        (7, 3, "set_require_grad_returns_new"),
        (9, 3, "retain_grad"),
        (10, 3, "hooks"),
        (11, 5, "checkpointing"),
        (12, 3, "backward_returns_container"),
        (12, 12, "backward_gradient_argument"),
        (12, 27, "retain_graph"),
        (13, 3, "reductions_return_shape_1"),
        (13, 9, "backward_returns_container"),
        (13, 18, "create_graph"),
        (14, 8, "autograd_grad"),
        (14, 30, "reductions_return_shape_1"),
        (15, 6, "grad_is_a_method"),
        (17, 9, "backward_returns_container"),
        (17, 17, "requires_grad_vs_is_require_grad"),
        (17, 34, "is_leaf"),
        (18, 8, "edit_gradients"),
        (19, 3, "no_zero_grad"),
        (20, 8, "no_zero_grad"),
        (21, 6, "no_grad_has_no_effect"),
        (22, 5, "manual_sgd_update"),
        (23, 3, "tensor_data"),
        (23, 8, "in_place_ops"),
        (24, 7, "detach_keeps_retention"),
        (25, 7, "move_to_plain_device"),
        (26, 3, "requires_grad_attribute"),
        (29, 2, "inference_mode"),
        (31, 20, "in_place_ops"),
        (34, 3, "edit_gradients"),
        (35, 3, "manual_sgd_update"),
    ],
    "tensor_ops.py": [
        (6, 5, "from_data_copies"),
        (7, 11, "reductions_return_shape_1"),
        (8, 10, "sum_dim_keeps_dim"),
        (10, 18, "mean_dim_keeps_dim"),
        (11, 21, "max_dim_keeps_dim"),
        (13, 10, "argmax_keeps_dim"),
        (14, 7, "sum_dim_keeps_dim"),
        (15, 7, "unsqueeze_takes_rank"),
        (16, 7, "transpose_swap_dims"),
        (16, 27, "transpose_swap_dims"),
        (17, 5, "where_argument_order"),
        (18, 7, "shape_is_a_method"),
        (18, 20, "shape_is_a_method"),
        (19, 10, "renamed_methods"),
        (19, 19, "renamed_methods"),
        (20, 10, "clone_is_same_handle"),
        (23, 1, "compare_with_torch"),
        (24, 9, "reductions_return_shape_1"),
    ],
    "clean.py": [],
}


def _findings(name: str) -> list[tuple[int, int, str]]:
    path = SAMPLES / name
    return [(f.line, f.col, f.entry.id) for f in check_source(path.read_text(), str(path))]


def test_every_sample_has_an_expectation():
    assert sorted(p.name for p in SAMPLES.glob("*.py")) == sorted(EXPECTED)


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_sample_findings_are_exactly_the_expected_ones(name):
    assert _findings(name) == EXPECTED[name]


def test_every_detector_is_exercised_by_the_samples():
    found = {f.detector for p in SAMPLES.glob("*.py") for f in check_source(p.read_text(), str(p))}
    assert found == set(DETECTORS)


def test_each_detector_maps_to_one_entry():
    mapping = detector_map(catalog())
    assert sum(len(e.detectors) for e in catalog()) == len(mapping)


def test_module_functions_are_not_mistaken_for_tensor_methods():
    src = "import numpy as np\nimport torch\nnp.sum(a, 1)\ntorch.max(a, b)\nt.to(torch.float16)\n"
    assert check_source(src, "x.py") == []


def test_aliased_imports_are_resolved():
    src = "from torch import where as w, no_grad\nimport torch.utils.checkpoint as cp\n" \
          "w(m, a, b)\nwith no_grad():\n    pass\ncp.checkpoint(f, x)\n"
    assert [(f.line, f.col, f.entry.id) for f in check_source(src, "x.py")] == [
        (3, 1, "where_argument_order"), (4, 6, "no_grad_has_no_effect"), (6, 1, "checkpointing")]


def test_keepdim_true_reductions_are_not_reported():
    assert check_source("x.sum(1, keepdim=True)\nx.mean(dim=0, keepdim=True)\nx.argmax(1, True)\n", "x.py") == []


def test_renamed_methods_name_their_replacement(capsys):
    assert main([str(SAMPLES / "tensor_ops.py")]) == 1
    out = capsys.readouterr().out
    assert "tensor_ops.py:19:10  renamed_methods  " in out
    assert out.splitlines()[13].endswith("→ `.view(...)` is `.reshape(dims)` in burn_torch")


def test_output_lines_name_position_id_what_and_recipe(capsys):
    path = SAMPLES / "train_loop.py"
    assert main([str(path)]) == 1
    lines = capsys.readouterr().out.splitlines()
    entry = next(e for e in catalog() if e.id == "backward_returns_container")
    assert f"{path}:29:18  backward_returns_container  {entry.what}  → {entry.recipe}" in lines
    assert lines[len(EXPECTED["train_loop.py"])] == "19 findings (13 silent, 6 loud) in 1 file"


def test_directories_are_searched_and_silent_findings_fail(capsys):
    assert main([str(SAMPLES)]) == 1
    out = capsys.readouterr().out
    total = sum(len(v) for v in EXPECTED.values())
    assert f"{total} findings (" in out and "in 4 files" in out


def test_clean_code_passes(capsys):
    assert main([str(SAMPLES / "clean.py")]) == 0
    assert "0 findings (0 silent, 0 loud) in 1 file" in capsys.readouterr().out


def test_loud_findings_pass_unless_strict(tmp_path, capsys):
    path = tmp_path / "loud.py"
    path.write_text("x.retain_grad()\n")
    assert main([str(path)]) == 0
    assert main(["--strict", str(path)]) == 1


def test_unparsable_file_exits_2(tmp_path, capsys):
    path = tmp_path / "broken.py"
    path.write_text("def (:\n")
    assert main([str(path)]) == 2
    assert f"{path}: cannot check:" in capsys.readouterr().err


def test_module_entry_point_runs():
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    proc = subprocess.run([sys.executable, "-m", "burn_torch.compat.check", str(SAMPLES / "clean.py")],
                          cwd=ROOT, env=env, capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip() == "0 findings (0 silent, 0 loud) in 1 file"


def test_console_script_is_declared():
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    assert project["scripts"]["burn-torch-check"] == "burn_torch.compat.check:main"


def test_class_keyword_arguments_are_not_mistaken_for_calls():
    assert check_source("class A(B, metaclass=M):\n    pass\n", "x.py") == []
