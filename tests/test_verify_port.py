"""verify_port: compares a torch model and its burn_torch port (forward, loss, every gradient
under the torch names and layouts, training steps with matched optimizer settings)."""
from __future__ import annotations

import copy
import math

import pytest
import torch
import torch.nn.functional as F

from burn_torch import Device, nn
from burn_torch.compat import PortReport, from_torch_module, verify_port
from burn_torch.compat.verify import Setting, optimizer_settings
from burn_torch.module import Module
from burn_torch.optim import AdamConfig, AdamWConfig, MomentumConfig, SgdConfig, WeightDecayConfig

CPU = Device.cpu()
CE = nn.CrossEntropyLossConfig().init(CPU)


def _torch_mlp(dropout: float = 0.0) -> torch.nn.Sequential:
    torch.manual_seed(0)
    return torch.nn.Sequential(torch.nn.Linear(4, 8), torch.nn.ReLU(), torch.nn.Dropout(dropout),
                               torch.nn.Linear(8, 3))


def _batch():
    g = torch.Generator().manual_seed(1)
    return torch.randn(6, 4, generator=g), torch.tensor([0, 1, 2, 1, 0, 2])


class _Port(Module):
    """A hand port of _TorchTwoLayers; ``activation="sigmoid"`` makes it a wrong one."""

    def __init__(self, device, activation: str = "relu"):
        super().__init__()
        self.fc1 = nn.LinearConfig(4, 8).init(device)
        self.fc2 = nn.LinearConfig(8, 3).init(device)
        self.activation = activation

    def forward(self, x):
        act = nn.relu if self.activation == "relu" else nn.sigmoid
        return self.fc2.forward(act(self.fc1.forward(x)))


class _TorchTwoLayers(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.fc1 = torch.nn.Linear(4, 8)
        self.fc2 = torch.nn.Linear(8, 3)

    def forward(self, x):
        return self.fc2(torch.relu(self.fc1(x)))


def test_a_faithful_port_passes_with_float32_differences():
    model = _torch_mlp()
    report = verify_port(model, from_torch_module(model, CPU), _batch(), F.cross_entropy, CE.forward)
    assert report.passed and not report.failures()
    assert [c.stage for c in report.checks] == ["forward", "loss"] + ["gradient"] * 4
    assert report.max_forward_diff < 1e-6 and report.max_grad_diff < 1e-6


def test_gradients_are_compared_under_the_torch_names_and_shapes():
    model = _torch_mlp()
    report = verify_port(model, from_torch_module(model, CPU), _batch(), F.cross_entropy, CE.forward)
    rows = [(c.name, list(c.shape)) for c in report.checks if c.stage == "gradient"]
    assert rows == [(name, list(p.shape)) for name, p in model.named_parameters()]


def test_a_wrong_port_fails_forward_and_gradients():
    torch_model = _TorchTwoLayers()
    report = verify_port(torch_model, _Port(CPU, "sigmoid"), _batch(), F.cross_entropy, CE.forward)
    assert not report.passed
    failed = {c.stage for c in report.failures()}
    assert {"forward", "loss", "gradient"} <= failed
    assert report.table().splitlines()[-1].startswith("FAIL: ")


def test_weights_are_loaded_by_default_and_can_be_left_alone():
    torch_model = _TorchTwoLayers()
    port = _Port(CPU)
    assert verify_port(torch_model, port, _batch(), F.cross_entropy, CE.forward).passed
    assert not verify_port(torch_model, port, _batch(), F.cross_entropy, CE.forward,
                           load_weights=False).passed


def test_eval_mode_turns_dropout_off_on_both_sides():
    model = _torch_mlp(dropout=0.5)
    port = from_torch_module(model, CPU)
    assert verify_port(model, port, _batch(), F.cross_entropy, CE.forward).passed


def test_train_mode_draws_the_same_dropout_masks_on_both_sides():
    model = _torch_mlp(dropout=0.5)
    port = from_torch_module(model, CPU)
    report = verify_port(model, port, _batch(), F.cross_entropy, CE.forward, mode="train", steps=2,
                         torch_optimizer=torch.optim.SGD(model.parameters(), lr=0.1),
                         burn_optimizer=SgdConfig())
    assert report.passed, report.table()


def test_unseeded_train_mode_warns_and_its_masks_differ():
    model = _torch_mlp(dropout=0.5)
    port = from_torch_module(model, CPU)
    with pytest.warns(UserWarning, match="building a model draws its weights from the device generator"):
        report = verify_port(model, port, _batch(), F.cross_entropy, CE.forward, mode="train", seed=None)
    assert not report.passed


def test_device_seed_draws_what_torch_manual_seed_draws():
    from burn_torch import Distribution, Tensor
    torch.manual_seed(7)
    noise, mask = torch.randn(3, 4), F.dropout(torch.ones(5, 6), 0.3, training=True)
    CPU.seed(7)
    burn_noise = Tensor.random([3, 4], Distribution.normal(0.0, 1.0), CPU).to_torch()
    burn_mask = nn.DropoutConfig(0.3).init().forward(Tensor.ones([5, 6], CPU.autodiff())).to_torch()
    assert torch.equal(noise, burn_noise) and torch.equal(mask, burn_mask)


def test_verify_port_puts_both_generators_back():
    from burn_torch.device import generator
    model = _torch_mlp(dropout=0.5)
    port = from_torch_module(model, CPU)  # building draws from the device generator: before seeding
    torch.manual_seed(11)
    CPU.seed(12)
    verify_port(model, port, _batch(), F.cross_entropy, CE.forward, mode="train")
    after = torch.rand(2), torch.rand(2, generator=generator(torch.device("cpu")))
    torch.manual_seed(11)
    CPU.seed(12)
    expected = torch.rand(2), torch.rand(2, generator=generator(torch.device("cpu")))
    assert torch.equal(after[0], expected[0]) and torch.equal(after[1], expected[1])


def test_float64_mode_compares_at_float64_precision():
    model, x = _TorchTwoLayers(), _batch()
    report = verify_port(model, _Port(CPU), x, F.cross_entropy, CE.forward, float64=True,
                         rtol=1e-12, atol=1e-13)
    assert report.passed, report.table()
    assert next(model.parameters()).dtype is torch.float64


def test_float32_cannot_meet_float64_bounds():
    report = verify_port(_TorchTwoLayers(), _Port(CPU), _batch(), F.cross_entropy, CE.forward,
                         rtol=1e-12, atol=1e-13)
    assert not report.passed


def test_training_steps_agree_with_matched_settings():
    model = _torch_mlp()
    port = from_torch_module(model, CPU)
    report = verify_port(model, port, _batch(), F.cross_entropy, CE.forward, steps=4,
                         torch_optimizer=torch.optim.Adam(model.parameters(), lr=0.01),
                         burn_optimizer=AdamConfig().with_epsilon(1e-8))
    assert report.passed
    assert len(report.torch_losses) == len(report.burn_losses) == 4
    assert report.torch_losses[-1] < report.torch_losses[0]
    assert [c.stage for c in report.checks].count("parameter") == 4


def test_burn_defaults_are_flagged_and_fail_the_report():
    model = _torch_mlp()
    report = verify_port(model, from_torch_module(model, CPU), _batch(), F.cross_entropy, CE.forward,
                         steps=1, torch_optimizer=torch.optim.Adam(model.parameters(), lr=0.01),
                         burn_optimizer=AdamConfig())
    assert report.mismatched_settings() == [Setting("epsilon", 1e-8, 1e-5)]
    assert not report.passed and "1 optimizer settings differ" in report.summary()
    assert "MISMATCH" in report.table()


def test_optimizer_settings_pairs():
    params = [torch.nn.Parameter(torch.zeros(1))]
    sgd = optimizer_settings(torch.optim.SGD(params, lr=0.1, momentum=0.9), SgdConfig())
    assert {s.name: s.matches for s in sgd} == {"momentum": False, "weight_decay": True,
                                                "dampening": True, "nesterov": True}
    burn_momentum = optimizer_settings(torch.optim.SGD(params, lr=0.1, momentum=0.9),
                                       SgdConfig(momentum=MomentumConfig(0.9)))
    assert [s for s in burn_momentum if not s.matches] == [Setting("dampening", 0, 0.1)]
    matched = SgdConfig(momentum=MomentumConfig(0.9, 0.0))
    assert all(s.matches for s in optimizer_settings(torch.optim.SGD(params, lr=0.1, momentum=0.9), matched))
    adamw = optimizer_settings(torch.optim.AdamW(params), AdamWConfig().with_epsilon(1e-8))
    assert [s.name for s in adamw if not s.matches] == ["weight_decay"]
    adam = optimizer_settings(torch.optim.Adam(params, weight_decay=0.1, eps=1e-5),
                              AdamConfig(weight_decay=WeightDecayConfig(0.1)))
    assert all(s.matches for s in adam)
    assert optimizer_settings(torch.optim.Adam(params), SgdConfig()) == [Setting("optimizer", "Adam", "SgdConfig")]
    groups = torch.optim.SGD([{"params": params}, {"params": [torch.nn.Parameter(torch.zeros(1))]}], lr=0.1)
    assert optimizer_settings(groups, SgdConfig()) == [Setting("param_groups", 2, 1)]


def test_a_parameter_without_burn_gradient_fails_its_row():
    model = _torch_mlp()
    port = from_torch_module(model, CPU)
    port.layers[0].bias = port.layers[0].bias.set_require_grad(False)
    report = verify_port(model, port, _batch(), F.cross_entropy, CE.forward)
    assert [(c.name, c.note) for c in report.failures()] == [("0.bias", "no burn_torch value")]
    assert math.isinf(report.failures()[0].max_abs_diff)


def test_the_table_lists_every_check_and_ends_with_the_summary():
    model = _torch_mlp()
    report = verify_port(model, from_torch_module(model, CPU), _batch(), F.cross_entropy, CE.forward)
    lines = str(report).splitlines()
    assert lines[0].split() == ["stage", "name", "shape", "max", "|diff|", "bound", "result"]
    assert sum(line.startswith("gradient") for line in lines) == 4
    assert lines[-1].startswith("PASS: 6/6 checks passed; max forward diff ")


def test_plot_losses_draws_both_curves():
    matplotlib = pytest.importorskip("matplotlib")
    matplotlib.use("Agg")
    model = _torch_mlp()
    report = verify_port(model, from_torch_module(model, CPU), _batch(), F.cross_entropy, CE.forward,
                         steps=2, torch_optimizer=torch.optim.SGD(model.parameters(), lr=0.1),
                         burn_optimizer=SgdConfig())
    ax = report.plot_losses()
    assert [line.get_label() for line in ax.get_lines()] == ["PyTorch", "burn_torch"]
    assert list(ax.get_lines()[1].get_ydata()) == report.burn_losses


def test_arguments_are_checked():
    model = _torch_mlp()
    port = from_torch_module(model, CPU)
    with pytest.raises(TypeError, match="torch_model must be a torch.nn.Module"):
        verify_port(port, port, _batch(), F.cross_entropy, CE.forward)
    with pytest.raises(TypeError, match="burn_model must be a burn_torch Module"):
        verify_port(model, model, _batch(), F.cross_entropy, CE.forward)
    with pytest.raises(TypeError, match=r"batch must be a tuple \(input_1, ..., target\)"):
        verify_port(model, port, _batch()[0], F.cross_entropy, CE.forward)
    with pytest.raises(ValueError, match="steps > 0 needs both torch_optimizer and burn_optimizer"):
        verify_port(model, port, _batch(), F.cross_entropy, CE.forward, steps=1)
    with pytest.raises(ValueError, match="mode must be 'eval' or 'train'"):
        verify_port(model, port, _batch(), F.cross_entropy, CE.forward, mode="test")


def test_report_without_checks_does_not_pass():
    assert not PortReport().passed
