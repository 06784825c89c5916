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
from burn_torch_check.fix import fix_source

ROOT = Path(__file__).resolve().parent.parent
SAMPLES = ROOT / "tests" / "data" / "porting_samples"

EXPECTED = {
    "resampling.py": [
        (7, 1, "rotary_pair_layout"),
        (13, 5, "interpolate_align_corners_default"),
        (16, 6, "interpolate_align_corners_default"),
    ],
    "train_loop.py": [
        (11, 20, "module_constructor_arguments"),
        (12, 20, "module_constructor_arguments"),
        (13, 22, "parameter_vs_param"),
        (16, 16, "module_call"),
        (16, 32, "module_call"),
        (20, 5, "seeding"),
        (21, 19, "module_to_device_fork"),
        (22, 11, "load_state_dict"),
        (23, 17, "optimizer_defaults"),
        (23, 40, "parameters_iteration"),
        (25, 15, "train_returns_module"),
        (27, 23, "no_zero_grad"),
        (28, 36, "module_call"),
        (29, 18, "backward_returns_container"),
        (30, 13, "gradient_clipping_per_parameter"),
        (30, 44, "parameters_iteration"),
        (31, 23, "optimizer_step_returns_module"),
        (32, 15, "eval_is_valid"),
        (34, 14, "no_grad_has_no_effect"),
        (36, 24, "module_call"),
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
        (13, 9, "second_backward_consumed"),
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
        (12, 11, "max_pair_ties"),
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
        (10, 20, "module_constructor_arguments"),
        (11, 20, "module_constructor_arguments"),
        (12, 9, "weight_tying"),
        (12, 18, "linear_weight_layout"),
        (16, 17, "optimizer_defaults"),
        (16, 41, "parameters_iteration"),
        (17, 35, "parameters_iteration"),
        (18, 24, "parameters_iteration"),
        (19, 15, "freezing_parameters"),
        (20, 11, "freezing_parameters"),
        (22, 39, "module_call"),
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
        (6, 23, "module_constructor_arguments"),
        (6, 40, "hard_sigmoid_default_slope"),
        (6, 58, "rms_norm_epsilon"),
        (7, 7, "local_response_norm_even_size"),
        (8, 13, "kl_div_batch_mean"),
        (12, 10, "cross_entropy_ignore_index"),
        (15, 30, "module_call"),
        (18, 11, "module_constructor_arguments"),
        (19, 8, "batch_norm_running_var"),
    ],
    "training_idioms.py": [
        (14, 20, "lstm_batch_first"),
        (14, 20, "lstm_config_bias_argument"),
        (15, 14, "buffers"),
        (16, 21, "sync_batch_norm"),
        (19, 23, "lstm_state_order"),
        (19, 23, "module_call"),
        (23, 1, "custom_autograd_function"),
        (30, 10, "target_network_copy"),
        (31, 7, "module_apply_init"),
        (32, 7, "data_parallel"),
        (33, 8, "torch_compile"),
        (34, 7, "lbfgs_module_closure"),
        (34, 31, "parameters_iteration"),
        (36, 10, "amp_autocast"),
        (37, 13, "optimizer_state_dict"),
        (38, 18, "parameter_groups"),
        (40, 1, "conv_kernel_autotuning"),
        (42, 20, "require_grad_needs_autodiff"),
        (43, 7, "move_to_plain_device"),
        (46, 10, "tensor_constructor"),
        (47, 12, "tensor_iteration"),
        (48, 11, "indexing"),
        (48, 21, "device_dtype_methods"),
        (49, 5, "pow_operator"),
        (49, 7, "shape_varargs"),
        (50, 7, "omitted_dims"),
        (51, 7, "renamed_methods"),
        (52, 21, "topk_indices"),
        (53, 9, "integer_division"),
        (54, 18, "integer_mean"),
        (55, 8, "mixed_kind_arithmetic"),
        (59, 5, "augmented_assignment"),
        (66, 3, "quantized_cannot_require_grad"),
        (66, 3, "set_require_grad_returns_new"),
        (67, 10, "integer_gradients"),
        (67, 31, "require_grad_needs_autodiff"),
        (69, 3, "set_require_grad_non_leaf"),
        (69, 3, "set_require_grad_returns_new"),
        (70, 12, "attention_mask_polarity"),
        (70, 62, "comparison_operators"),
        (71, 7, "nll_loss"),
        (72, 7, "binary_cross_entropy_targets"),
        (74, 10, "backward_returns_container"),
        (74, 10, "nonscalar_backward_sums"),
        (75, 1, "distributed_collectives"),
        (76, 10, "distributions"),
        (79, 10, "backward_returns_container"),
        (80, 5, "gradient_accumulation"),
        (81, 13, "optimizer_step_returns_module"),
        (82, 15, "lr_scheduler_per_iteration"),
    ],
    "port_in_progress.py": [
        (11, 7, "module_call"),
        (11, 13, "mixing_tracked_untracked"),
        (11, 21, "checkpoint_strategy_mismatch"),
        (13, 9, "mixing_torch_tensors"),
        (14, 8, "mixing_torch_tensors"),
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
    assert entries(src) == ["module_constructor_arguments"] + ["module_to_device_fork"] * 2


def test_moving_a_parameter_records_an_op():
    src = "import torch\nw = torch.zeros(3, requires_grad=True)\nv = w.to(device)\n"
    assert entries(src) == ["require_grad_needs_autodiff", "to_device_records_op"]


def test_a_torch_layer_built_from_numbers_and_its_call_are_each_reported():
    found = check_source("from torch import nn\nlayer = nn.Linear(4, 128)\ny = layer(x)\n", "x.py")
    assert [(f.line, f.col, f.entry.id) for f in found] == [
        (2, 9, "module_constructor_arguments"), (3, 5, "module_call")]
    assert "nn.LinearConfig(...).init(device)" in found[0].recipe


def test_reading_or_tying_a_linear_weight_is_its_layout():
    src = "from torch import nn\nlayer = nn.Linear(4, 2)\nw = layer.weight\n"
    assert ids(src) == [(2, 9, "module_constructor_arguments"), (3, 11, "linear_weight_layout")]


def test_an_elementwise_init_of_a_linear_weight_is_an_init_not_its_layout():
    src = ("from torch import nn\ndef init(m):\n    if isinstance(m, nn.Linear):\n"
           "        nn.init.normal_(m.weight, std=0.02)\n")
    assert entries(src) == ["module_apply_init"]


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
    assert entries(src) == ["from_data_copies", "indexing"]


def test_detaching_an_intermediate_is_nothing_to_port():
    src = "import torch\nfake = netG(torch.randn(4, 2))\nout = netD(fake.detach())\n"
    assert entries(src) == ["module_call", "module_call"]


def test_detaching_a_parameter_keeps_its_require_grad():
    src = "import torch\nfor p in model.parameters():\n    q = p.detach()\n"
    assert entries(src) == ["parameters_iteration", "detach_keeps_retention"]


@pytest.mark.parametrize("src", [
    "import argparse\nargs = argparse.ArgumentParser().parse_args()\nprint(args.data)\n",
    "class Memory:\n    pass\nmemory = Memory()\nn = memory.size()\n",
    "import numpy as np\na = np.ones((2, 3))\nb = a.sum(axis=0) + a.mean(1) + a.max(0)\n",
    "obs, reward, done, info = env.step(action)\n",
])
def test_names_alone_are_not_torch_idioms(src):
    assert ids(src) == []


def test_a_scheduler_step_is_the_per_iteration_entry_not_an_optimizer_step():
    src = "from torch.optim.lr_scheduler import StepLR\nscheduler = StepLR(opt, 1)\nscheduler.step()\n"
    assert ids(src) == [(3, 11, "lr_scheduler_per_iteration")]


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
    assert [f.entry.id for f in found] == ["lbfgs_module_closure", "optimizer_step_returns_module"]
    assert "no closure" in found[1].recipe


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
    assert entries(src) == ["custom_autograd_function", "comparison_operators"]


def test_tensor_metadata_and_device_counts_are_not_tensors():
    src = ("import torch\nx = torch.ones(2)\nsame = x.device == dev\n"
           "n = torch.accelerator.device_count()\nmany = n >= 2\n")
    assert ids(src) == [(3, 10, "device_dtype_methods")]  # the bound-method read, not a tensor comparison


# ====================================== false positives seen on real code (issue 30) ====
def test_a_project_helper_named_load_state_dict_is_not_a_module_method():
    # guided diffusion: `from . import dist_util` then dist_util.load_state_dict(path)
    src = ("from . import dist_util\n"
           "model.load_state_dict(dist_util.load_state_dict(path, map_location='cpu'))\n")
    assert ids(src) == [(2, 7, "load_state_dict")]


def test_detach_then_cpu_of_an_intermediate_is_nothing_to_port():
    src = "import torch\nlogits = torch.randn(2, 3) * 2\nprobs = logits.detach().cpu()\n"
    assert ids(src) == []


def test_detach_then_cpu_of_a_parameter_keeps_its_autodiff():
    src = "import torch\nw = torch.nn.Parameter(torch.zeros(2))\nv = w.detach().cpu()\n"
    assert "move_to_plain_device" in entries(src)


def test_a_collate_function_and_a_tokenizer_stay_on_torch():
    src = ("import torch\nfrom torch.utils.data import DataLoader\n"
           "def pad(batch):\n    return torch.stack(batch).view(len(batch), -1)\n"
           "class CharTokenizer:\n    def encode(self, s):\n"
           "        return torch.tensor([ord(c) for c in s]).view(1, -1)\n"
           "loader = DataLoader(data, collate_fn=pad)\n")
    assert ids(src) == []


def test_numbers_read_out_of_a_burn_tensor_are_numbers():
    src = ("from burn_torch import Device, Tensor\n"
           "loss = Tensor.ones([1], Device.cpu()).sum()\nvalue = loss.into_scalar()\n"
           "if value > 0.5:\n    print(f'{value:.3f}')\n")
    assert ids(src) == []


def test_torch_reference_values_in_a_port_are_compared_as_they_are():
    src = ("import torch\nfrom burn_torch import Device, Tensor\n"
           "x = Tensor.ones([2], Device.cpu())\n"
           "torch.testing.assert_close(x.to_torch(), torch.tensor([1.0, 1.0]))\n")
    assert ids(src) == []


def test_adam_with_its_epsilon_set_has_no_default_that_differs():
    assert ids("import torch\nopt = torch.optim.Adam(ps, lr=1e-3, eps=1e-5)\n") == []
    assert entries("import torch\nopt = torch.optim.AdamW(ps, eps=1e-8)\n") == ["optimizer_defaults"]


def test_a_trainer_backward_taking_the_loss_is_not_tensor_backward():
    # guided diffusion's MixedPrecisionTrainer, accelerate's Accelerator
    src = "mp_trainer.backward(loss)\naccelerator.backward(loss)\n"
    assert ids(src) == []
    assert entries("import torch\ny = torch.ones(2) * 2\ny.backward(torch.ones(2))\n") == [
        "backward_returns_container", "backward_gradient_argument"]


# ============================================= values followed through factories ====
def test_a_model_built_by_a_torchvision_factory_is_a_module():
    # the imagenet example / MoCo: models.__dict__[args.arch]()
    src = ("import torchvision.models as models\nmodel = models.__dict__[args.arch]()\n"
           "print(model.fc.weight.shape)\nmodel.cuda()\nparams = model.parameters()\n")
    assert entries(src) == ["shape_is_a_method", "module_to_device_fork", "parameters_iteration"]


def test_a_module_class_given_as_constructor_argument_builds_modules():
    # MoCo: MoCo(models.__dict__[arch]) then self.encoder_q = base_encoder(num_classes=dim)
    src = ("import torch\nimport torchvision.models as models\n"
           "class MoCo(torch.nn.Module):\n"
           "    def __init__(self, base_encoder, dim=128):\n        super().__init__()\n"
           "        self.encoder_q = base_encoder(num_classes=dim)\n"
           "        dim_mlp = self.encoder_q.fc.weight.shape[1]\n"
           "        for p in self.encoder_q.parameters():\n            p.requires_grad = False\n"
           "model = MoCo(models.__dict__['resnet50'])\n")
    assert entries(src) == ["shape_is_a_method", "parameters_iteration", "freezing_parameters"]


def test_a_rotate_half_helper_is_recognised_by_what_it_does():
    src = ("import torch\ndef _neg_half(x):\n    x1, x2 = x.chunk(2, dim=-1)\n"
           "    return torch.cat((-x2, x1), dim=-1)\n")
    assert ids(src) == [(2, 1, "rotary_pair_layout")]


def test_a_helper_concatenating_without_negation_is_no_rotate_half():
    src = "import torch\ndef join(a, b):\n    return torch.cat((a, b), dim=-1)\n"
    assert ids(src) == []


# ============================================================ new entries' idioms ====
def test_sizes_as_separate_arguments_are_fixed_into_one_list():
    src = "import torch\nx = torch.ones(2, 3)\ny = x.reshape(3, -1).permute(1, 0)\n"
    found = check_source(src, "x.py")
    assert [f.entry.id for f in found] == ["shape_varargs", "shape_varargs"]
    assert fix_source(src, found)[0].endswith("y = x.reshape([3, -1]).permute([1, 0])\n")


def test_a_numpy_reshape_with_separate_sizes_is_not_a_tensor_idiom():
    assert ids("import numpy as np\na = np.zeros(6)\nb = a.reshape(2, 3)\n") == []


def test_iterating_a_loader_batch_or_a_split_is_not_iterating_a_tensor():
    src = ("import torch\nfor batch in torch.utils.data.DataLoader(ds):\n"
           "    parts = [t for t in batch]\nx = torch.ones(4, 2)\nfor part in x.split(1, dim=0):\n    pass\n")
    assert ids(src) == []


def test_a_second_backward_through_a_detached_input_is_fine():
    src = ("import torch\nfrom torch import nn\nG, D = nn.Linear(2, 2), nn.Linear(2, 1)\n"
           "def step(z):\n    fake = G(z)\n    d_loss = D(fake.detach()).mean()\n    d_loss.backward()\n"
           "    g_loss = D(fake).mean()\n    g_loss.backward()\n")
    assert "second_backward_consumed" not in entries(src)


def test_a_second_backward_through_the_same_intermediate_is_consumed():
    src = ("import torch\nfrom torch import nn\nnet = nn.Linear(2, 2)\n"
           "def step(x):\n    h = net(x)\n    a = h.sum()\n    a.backward(retain_graph=True)\n"
           "    b = (h * 2).sum()\n    b.backward()\n")
    assert [f.line for f in check_source(src, "x.py") if f.entry.id == "second_backward_consumed"] == [9]


def test_gradient_accumulation_is_a_step_under_a_modulo_after_backward():
    src = ("import torch\nfor i, (x, y) in enumerate(loader):\n    loss = model(x).sum() / 4\n"
           "    loss.backward()\n    if (i + 1) % 4 == 0:\n        optimizer.step()\n"
           "    if i % 100 == 0:\n        print(loss.item())\n")
    assert [(f.line, f.entry.id) for f in check_source(src, "x.py")
            if f.entry.id == "gradient_accumulation"] == [(5, "gradient_accumulation")]


def test_detach_then_cpu_of_a_value_of_unknown_origin_is_nothing_to_port():
    # guided diffusion's log_loss_dict: the losses of a dict, intermediates
    src = ("import torch\ndef log(losses):\n    for key, values in losses.items():\n"
           "        print(values.detach().cpu().numpy())\n")
    assert "move_to_plain_device" not in entries(src)


def test_torch_functions_returning_several_tensors_give_a_sequence():
    # guided diffusion's fp16_util: zip(group, unflatten(group, flat)) iterates a list
    src = ("import torch\nfrom torch._utils import _unflatten_dense_tensors\n"
           "def unflatten(group, flat):\n    return _unflatten_dense_tensors(flat, [p for p in group])\n"
           "def copy(group, flat):\n    for p, q in zip(group, unflatten(group, flat.view(-1))):\n        pass\n"
           "halves = torch.ones(4).split(2)\nfor h in torch.chunk(torch.ones(4), 2):\n    pass\n")
    assert "tensor_iteration" not in entries(src)


def test_moving_a_loss_without_parameters_forks_nothing():
    src = ("import torch\nadversarial_loss = torch.nn.BCELoss()\nadversarial_loss.cuda()\n"
           "weighted = torch.nn.CrossEntropyLoss(weight=w)\nweighted.cuda()\n")
    assert [f.line for f in check_source(src, "x.py") if f.entry.id == "module_to_device_fork"] == [5]
