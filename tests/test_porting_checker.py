"""The porting checker reports each PyTorch idiom where it behaves differently, under the right
catalog entry, and nothing else.

The samples under tests/data/porting_samples/ are PyTorch programs (never run); each expected
finding is (line, column, catalog id), columns 1-based as the checker prints them. The other
tests check one rule each on a few lines of code.
"""
from __future__ import annotations

from pathlib import Path

import pytest

from burn_torch.compat import catalog
from burn_torch.compat.check import check_source, detector_map
from burn_torch.compat.detectors import DETECTORS

ROOT = Path(__file__).resolve().parent.parent
SAMPLES = ROOT / "tests" / "data" / "porting_samples"

EXPECTED = {
    "resampling.py": [
        (7, 1, "rotary_pair_layout"),
        (13, 5, "interpolate_align_corners_default"),
        (16, 6, "interpolate_align_corners_default"),
    ],
    "train_loop.py": [
        (13, 22, "parameter_vs_param"),
        (20, 5, "seeding"),
        (21, 19, "module_to_device_fork"),
        (22, 11, "load_state_dict"),
        (23, 17, "optimizer_defaults"),
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
        (37, 29, "comparison_operators"),
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
        (13, 9, "backward_returns_container"),
        (13, 18, "create_graph"),
        (14, 8, "autograd_grad"),
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
        (25, 7, "move_to_plain_device"),
        (26, 3, "requires_grad_attribute"),
        (29, 2, "inference_mode"),
        (31, 20, "in_place_ops"),
        (34, 3, "edit_gradients"),
        (35, 3, "manual_sgd_update"),
    ],
    "tensor_ops.py": [
        (8, 10, "sum_dim_keeps_dim"),
        (10, 18, "mean_dim_keeps_dim"),
        (11, 21, "max_dim_keeps_dim"),
        (13, 10, "argmax_keeps_dim"),
        (14, 7, "sum_dim_keeps_dim"),
        (15, 7, "unsqueeze_takes_rank"),
        (16, 7, "transpose_swap_dims"),
        (16, 27, "transpose_swap_dims"),
        (17, 5, "where_argument_order"),
        (17, 17, "comparison_operators"),
        (18, 7, "shape_is_a_method"),
        (18, 20, "shape_is_a_method"),
        (19, 10, "renamed_methods"),
        (19, 19, "renamed_methods"),
        (23, 1, "compare_with_torch"),
        (25, 11, "roll_direction"),
        (26, 10, "roll_direction"),
    ],
    "model_idioms.py": [
        (12, 18, "linear_weight_layout"),
        (16, 17, "optimizer_defaults"),
        (16, 41, "parameters_iteration"),
        (17, 35, "parameters_iteration"),
        (18, 24, "parameters_iteration"),
        (19, 15, "freezing_parameters"),
        (20, 11, "freezing_parameters"),
        (23, 28, "backward_returns_container"),
        (24, 16, "optimizer_step_returns_module"),
        (25, 19, "optimizer_step_returns_module"),
        (26, 23, "python_conversions"),
        (27, 11, "train_returns_module"),
        (28, 5, "in_place_ops"),
        (28, 36, "parameters_iteration"),
        (29, 9, "parameter_vs_param"),
        (30, 16, "detach_keeps_retention"),
        (31, 14, "clone_is_same_handle"),
        (32, 15, "to_device_records_op"),
        (34, 9, "from_data_copies"),
        (36, 28, "reductions_return_shape_1"),
        (36, 37, "reductions_return_shape_1"),
        (37, 29, "load_state_dict"),
        (41, 11, "gru_forward_returns_output"),
        (42, 17, "muon_lr_layout"),
    ],
    "clean.py": [],
    "layers_and_losses.py": [
        (6, 40, "hard_sigmoid_default_slope"),
        (6, 58, "rms_norm_epsilon"),
        (7, 7, "local_response_norm_even_size"),
        (8, 13, "kl_div_batch_mean"),
        (12, 10, "cross_entropy_ignore_index"),
        (19, 8, "batch_norm_running_var"),
    ],
}


def ids(source: str) -> list[tuple[int, int, str]]:
    return [(f.line, f.col, f.entry.id) for f in check_source(source, "x.py")]


def entries(source: str) -> list[str]:
    return [f.entry.id for f in check_source(source, "x.py")]


def _findings(name: str) -> list[tuple[int, int, str]]:
    path = SAMPLES / name
    return [(f.line, f.col, f.entry.id) for f in check_source(path.read_text(), str(path))]


# ================================================================== the samples ====
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


# ============================================ what a value is decides the entry ====
def test_moving_an_input_batch_is_nothing_to_port():
    src = ("import torch\nfrom torch.utils.data import DataLoader\n"
           "for data, target in DataLoader(ds):\n    data, target = data.to(device), target.cuda()\n")
    assert ids(src) == []


def test_moving_a_module_is_a_module_fork():
    src = "import torch\nmodel = torch.nn.Linear(2, 3).to(device)\nnet = Net()\nnet.cuda()\n"
    assert entries(src) == ["module_to_device_fork"] * 2


def test_moving_a_parameter_records_an_op():
    src = "import torch\nw = torch.zeros(3, requires_grad=True)\nv = w.to(device)\n"
    assert entries(src) == ["require_grad_needs_autodiff", "to_device_records_op"]


def test_a_linear_constructor_alone_is_nothing_to_port():
    assert ids("from torch import nn\nlayer = nn.Linear(4, 128)\ny = layer(x)\n") == []


def test_reading_or_tying_a_linear_weight_is_its_layout():
    src = "from torch import nn\nlayer = nn.Linear(4, 2)\nw = layer.weight\n"
    assert ids(src) == [(3, 11, "linear_weight_layout")]


def test_an_elementwise_init_of_a_linear_weight_does_not_depend_on_the_layout():
    src = ("from torch import nn\ndef init(m):\n    if isinstance(m, nn.Linear):\n"
           "        nn.init.normal_(m.weight, std=0.02)\n")
    assert entries(src) == ["in_place_ops"]


def test_a_full_reduction_read_as_a_number_is_nothing_to_port():
    src = "import torch\nloss = torch.ones(3).mean()\nprint(loss.item())\nloss.backward()\n"
    assert entries(src) == ["renamed_methods", "backward_returns_container"]


def test_a_full_reduction_whose_shape_is_used_is_reported():
    src = "import torch\nx = torch.ones(3)\ns = x.sum()\nprint(s.shape)\n"
    assert entries(src) == ["reductions_return_shape_1", "shape_is_a_method"]


def test_from_numpy_of_an_array_never_mutated_is_nothing_to_port():
    src = "import numpy as np\nimport torch\na = np.zeros(3)\nt = torch.from_numpy(a).float()\n"
    assert ids(src) == []


def test_from_numpy_then_mutating_the_tensor_shares_memory():
    src = "import numpy as np\nimport torch\na = np.zeros(3)\nt = torch.from_numpy(a)\nt[0] = 1.0\n"
    assert entries(src) == ["from_data_copies"]


def test_detaching_an_intermediate_is_nothing_to_port():
    src = "import torch\nfake = netG(torch.randn(4, 2))\nout = netD(fake.detach())\n"
    assert ids(src) == []


def test_detaching_a_parameter_keeps_its_require_grad():
    src = "import torch\nfor p in model.parameters():\n    q = p.detach()\n"
    assert entries(src) == ["parameters_iteration", "detach_keeps_retention"]


@pytest.mark.parametrize("src", [
    "import argparse\nargs = argparse.ArgumentParser().parse_args()\nprint(args.data)\n",
    "class Memory:\n    pass\nmemory = Memory()\nn = memory.size()\n",
    "import numpy as np\na = np.ones((2, 3))\nb = a.sum(axis=0) + a.mean(1) + a.max(0)\n",
    "from torch.optim.lr_scheduler import StepLR\nscheduler = StepLR(opt, 1)\nscheduler.step()\n",
    "obs, reward, done, info = env.step(action)\n",
])
def test_names_alone_are_not_torch_idioms(src):
    assert ids(src) == []


def test_freezing_parameters_in_a_loop_is_routed_to_freezing_with_a_working_recipe():
    src = "for param in model.parameters():\n    param.requires_grad = False\n"
    found = check_source(src, "x.py")
    assert [f.entry.id for f in found] == ["parameters_iteration", "freezing_parameters"]
    assert "model = model.no_grad()" in found[1].recipe


def test_requires_grad_on_a_plain_tensor_is_the_attribute_entry():
    assert entries("import torch\nx = torch.ones(2)\nx.requires_grad = True\n") == ["requires_grad_attribute"]


# ========================================================= the missing detectors ====
@pytest.mark.parametrize("ctor,hint", [("Adam(ps)", "epsilon is 1e-5"),
                                       ("AdamW(ps)", "weight_decay 1e-4"),
                                       ("SGD(ps, lr=0.1, momentum=0.9)", "dampening is 0.1")])
def test_optimizer_constructors_name_the_defaults_that_differ(ctor, hint):
    found = check_source(f"import torch\nopt = torch.optim.{ctor}\n", "x.py")
    assert [f.entry.id for f in found] == ["optimizer_defaults"] and hint in found[0].recipe


def test_plain_sgd_has_no_default_that_differs():
    assert ids("import torch\nopt = torch.optim.SGD(ps, lr=0.1)\n") == []


def test_state_dict_is_the_load_state_dict_entry():
    assert entries("import torch\ntorch.save(model.state_dict(), 'm.pt')\n") == ["load_state_dict"]


def test_step_with_a_closure_says_there_is_no_closure():
    src = "import torch\nopt = torch.optim.LBFGS(ps)\nopt.step(closure)\n"
    found = check_source(src, "x.py")
    assert [f.entry.id for f in found] == ["optimizer_step_returns_module"]
    assert "no closure" in found[0].recipe


def test_train_with_a_mode_is_reported_with_the_valid_recipe():
    found = check_source("model.train(mode=was_training)\n", "x.py")
    assert [f.entry.id for f in found] == ["train_returns_module"] and "model.valid()" in found[0].recipe


def test_foreach_in_place_functions_are_in_place_ops():
    assert entries("import torch\ntorch._foreach_add_(params, grads)\n") == ["in_place_ops"]


def test_tensor_equality_is_a_comparison_divergence():
    src = "import torch\na = torch.ones(2)\nsame = a == torch.ones(2)\nnone = a is None\n"
    assert ids(src) == [(3, 8, "comparison_operators")]


def test_formatting_a_tensor_as_a_number_is_a_conversion():
    src = ("import torch\nloss = torch.ones(1).sum()\nprint(f'{loss:.4f}')\n"
           "print('{:.2f}'.format(loss))\nv = float(loss)\n")
    assert entries(src) == ["python_conversions"] * 3


@pytest.mark.parametrize("method", ["pow(2)", "mm(y)", "std()", "norm()", "contiguous()",
                                    "eq(y)", "type(torch.float64)", "new_zeros(3)"])
def test_torch_only_methods_on_tensors_are_renamed_methods(method):
    assert entries(f"import torch\nx = torch.ones(2, 2)\nz = x.{method}\n") == ["renamed_methods"]


def test_renamed_methods_name_their_replacement():
    found = check_source("import torch\nx = torch.ones(2)\nv = x.view(-1)\n", "x.py")
    assert found[0].recipe == "`.view(...)` is `.reshape(dims)` in burn_torch"


# ============================================================= burn_torch code ====
BURN_CODE = """\
from burn_torch import Device, Tensor, nn
from burn_torch.optim import AdamConfig, GradientsParams

device = Device.cpu().autodiff()
model = nn.LinearConfig(2, 1).init(device)
model = model.train()
optim = AdamConfig().init()
x = Tensor.from_floats([[1.0, 2.0]], device)
loss = model.forward(x).sum()
grads = loss.backward()
model = optim.step(1e-3, model, GradientsParams.from_grads(grads, model))
print(loss.into_scalar(), x.grad(grads))
"""


def test_correct_burn_torch_code_has_no_finding():
    assert ids(BURN_CODE) == []


def test_discarded_results_of_burn_torch_values_are_reported():
    src = BURN_CODE + "model.train()\nloss.backward()\n"
    assert ids(src) == [(13, 7, "train_returns_module"), (14, 6, "backward_returns_container")]


def test_a_burn_torch_call_expected_to_raise_is_not_reported():
    src = BURN_CODE + "try:\n    loss.backward()\nexcept Exception:\n    pass\n"
    assert ids(src) == []


def test_torch_code_beside_burn_torch_code_is_left_alone():
    src = BURN_CODE + "import torch\nt = torch.nn.Linear(2, 1)\nt.train()\ntorch.manual_seed(0)\n"
    assert ids(src) == []


# ================================================================= the details ====
def test_module_functions_are_not_mistaken_for_tensor_methods():
    src = "import numpy as np\nimport torch\nnp.sum(a, 1)\ntorch.max(a, b)\nt.to(torch.float16)\n"
    assert check_source(src, "x.py") == []


def test_aliased_imports_are_resolved():
    src = "from torch import where as w, no_grad\nimport torch.utils.checkpoint as cp\n" \
          "w(m, a, b)\nwith no_grad():\n    pass\ncp.checkpoint(f, x)\n"
    assert ids(src) == [(3, 1, "where_argument_order"), (4, 6, "no_grad_has_no_effect"),
                        (6, 1, "checkpointing")]


def test_an_import_rebound_by_assignment_is_a_value():
    src = "import model\nmodel = model.RNNModel(10)\nmodel.eval()\n"
    assert entries(src) == ["eval_is_valid"]


def test_keepdim_true_reductions_are_not_reported():
    src = "import torch\nx = torch.ones(2, 2)\nx.sum(1, keepdim=True)\nx.mean(dim=0, keepdim=True)\nx.argmax(1, True)\n"
    assert check_source(src, "x.py") == []


def test_class_keyword_arguments_are_not_mistaken_for_calls():
    assert check_source("class A(B, metaclass=M):\n    pass\n", "x.py") == []


def test_hook_functions_receive_tensors():
    src = ("def hook(module, grad_in, grad_out):\n    return grad_in[0] > 0\n"
           "layer.register_full_backward_hook(hook)\n")
    assert entries(src) == ["comparison_operators", "hooks"]


def test_a_module_hook_gets_the_module_hint():
    found = check_source("from torch import nn\nlayer = nn.ReLU()\nlayer.register_forward_hook(f)\n", "x.py")
    assert [f.entry.id for f in found] == ["hooks"] and "modules have no hooks" in found[0].recipe


def test_tensors_stored_in_a_dict_are_tensors_when_read_back():
    src = ("import torch\nout = {}\nout['val'] = torch.ones(3).mean()\n"
           "if out['val'] < 1.0:\n    pass\n")
    assert entries(src) == ["comparison_operators"]


def test_custom_autograd_function_arguments_and_saved_tensors_are_tensors():
    src = ("import torch\nclass Relu(torch.autograd.Function):\n    @staticmethod\n"
           "    def backward(ctx, grad):\n        x, = ctx.saved_tensors\n        return grad * (x > 0)\n")
    assert entries(src) == ["comparison_operators"]


def test_tensor_metadata_and_device_counts_are_not_tensors():
    src = ("import torch\nx = torch.ones(2)\nsame = x.device == dev\n"
           "n = torch.accelerator.device_count()\nmany = n >= 2\n")
    assert ids(src) == []
