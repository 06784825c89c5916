"""burn_torch.optim: every optimizer against torch.optim, clipping, GradientsParams, the
accumulator, optimizer records and learning-rate schedulers.

The reference runs the same 4 -> 8 -> 3 MLP (weights ``[d_input, d_output]`` on both sides) with
cross entropy for 10 steps, with torch autograd and torch.optim's ``zero_grad`` loop.
"""
from __future__ import annotations

import math
import pickle

import pytest
import torch
import torch.nn.functional as F

from burn_torch import Device, Tensor, nn, optim
from burn_torch.module import Module, Param
from burn_torch.optim import (AdaGradConfig, AdamConfig, AdamWConfig, GradientClippingConfig,
                              GradientsAccumulator, GradientsParams, MomentumConfig, RmsPropConfig,
                              SgdConfig, WeightDecayConfig)
from burn_torch.optim import lr_scheduler as lrs

CPU = Device.cpu()
AD = CPU.autodiff()
STEPS = 10
TOL = {torch.float32: 1e-5, torch.float64: 1e-10}


class Mlp(Module):
    def __init__(self, weights: dict[str, torch.Tensor]) -> None:
        super().__init__()
        self.fc1 = nn.Linear(Param(Tensor.from_data(weights["fc1.weight"], AD)),
                             Param(Tensor.from_data(weights["fc1.bias"], AD)))
        self.fc2 = nn.Linear(Param(Tensor.from_data(weights["fc2.weight"], AD)),
                             Param(Tensor.from_data(weights["fc2.bias"], AD)))

    def forward(self, x: Tensor) -> Tensor:
        return self.fc2.forward(nn.relu(self.fc1.forward(x)))


def problem(dtype=torch.float32, seed=0):
    g = torch.Generator().manual_seed(seed)
    weights = {"fc1.weight": torch.randn(4, 8, generator=g, dtype=dtype) * 0.5,
               "fc1.bias": torch.randn(8, generator=g, dtype=dtype) * 0.1,
               "fc2.weight": torch.randn(8, 3, generator=g, dtype=dtype) * 0.5,
               "fc2.bias": torch.randn(3, generator=g, dtype=dtype) * 0.1}
    x = torch.randn(6, 4, generator=g, dtype=dtype)
    y = torch.randint(0, 3, (6,), generator=g)
    return weights, x, y


CE = nn.CrossEntropyLossConfig().init(AD)


def burn_grads(model: Mlp, x, y) -> GradientsParams:
    loss = CE.forward(model.forward(Tensor.from_data(x, CPU)), Tensor.from_data(y, CPU))
    return GradientsParams.from_grads(loss.backward(), model)


def burn_run(config, dtype, lr, steps=STEPS):
    weights, x, y = problem(dtype)
    model, opt = Mlp(weights), config.init()
    for _ in range(steps):
        model = opt.step(lr, model, burn_grads(model, x, y))
    return {name: p.val().to_torch() for name, p in model.named_params()}


def torch_run(make_optimizer, dtype, lr, steps=STEPS, clip=None):
    weights, x, y = problem(dtype)
    params = {name: w.clone().requires_grad_() for name, w in weights.items()}
    opt = make_optimizer(list(params.values()), lr)
    for _ in range(steps):
        opt.zero_grad()
        h = torch.relu(x @ params["fc1.weight"] + params["fc1.bias"])
        F.cross_entropy(h @ params["fc2.weight"] + params["fc2.bias"], y).backward()
        if clip is not None:
            clip(params.values())
        opt.step()
    return {name: p.detach() for name, p in params.items()}


def assert_same_weights(burn: dict, ref: dict, tol: float) -> None:
    assert burn.keys() == ref.keys()
    for name in ref:
        assert burn[name].dtype == ref[name].dtype, name
        worst = (burn[name] - ref[name]).abs().max().item()
        assert worst <= tol, f"{name}: max |burn - torch| = {worst:.3g} > {tol:g}"


T = torch.optim
CASES = {
    "sgd": (SgdConfig(), lambda p, lr: T.SGD(p, lr), 0.1),
    "sgd_momentum_dampening": (SgdConfig().with_momentum(MomentumConfig()),
                               lambda p, lr: T.SGD(p, lr, momentum=0.9, dampening=0.1), 0.1),
    "sgd_nesterov_weight_decay": (
        SgdConfig().with_momentum(MomentumConfig(0.8, 0.0, True)).with_weight_decay(WeightDecayConfig(0.05)),
        lambda p, lr: T.SGD(p, lr, momentum=0.8, nesterov=True, weight_decay=0.05), 0.1),
    "adam": (AdamConfig(), lambda p, lr: T.Adam(p, lr, eps=1e-5), 0.01),
    "adam_beta2_weight_decay": (
        AdamConfig().with_beta_2(0.95).with_weight_decay(WeightDecayConfig(0.01)),
        lambda p, lr: T.Adam(p, lr, betas=(0.9, 0.95), eps=1e-5, weight_decay=0.01), 0.01),
    "adam_amsgrad": (AdamConfig().with_amsgrad(True).with_epsilon(1e-8),
                     lambda p, lr: T.Adam(p, lr, amsgrad=True, eps=1e-8), 0.01),
    "adamw": (AdamWConfig(), lambda p, lr: T.AdamW(p, lr, eps=1e-5, weight_decay=1e-4), 0.01),
    "adamw_weight_decay": (AdamWConfig().with_weight_decay(0.1).with_epsilon(1e-8),
                           lambda p, lr: T.AdamW(p, lr, eps=1e-8, weight_decay=0.1), 0.01),
    "rmsprop": (RmsPropConfig().with_momentum(0.0).with_epsilon(1e-8),
                lambda p, lr: T.RMSprop(p, lr, alpha=0.99, eps=1e-8), 0.01),
    "rmsprop_centered_momentum_weight_decay": (
        RmsPropConfig().with_centered(True).with_weight_decay(WeightDecayConfig(0.05)),
        lambda p, lr: T.RMSprop(p, lr, momentum=0.9, centered=True, eps=1e-5, weight_decay=0.05), 0.01),
    "adagrad": (AdaGradConfig(), lambda p, lr: T.Adagrad(p, lr, eps=1e-5), 0.1),
    "adagrad_lr_decay_weight_decay": (
        AdaGradConfig().with_lr_decay(0.5).with_weight_decay(WeightDecayConfig(0.05)),
        lambda p, lr: T.Adagrad(p, lr, lr_decay=0.5, weight_decay=0.05, eps=1e-5), 0.1),
}


# ------------------------------------------------------------------ optimizers vs torch.optim ----
@pytest.mark.parametrize("dtype", [torch.float32, torch.float64], ids=["f32", "f64"])
@pytest.mark.parametrize("case", list(CASES))
def test_ten_steps_end_on_torch_optim_weights(case, dtype):
    config, make, lr = CASES[case]
    burn = burn_run(config, dtype, lr)
    assert_same_weights(burn, torch_run(make, dtype, lr), TOL[dtype])
    moved = max((burn[k] - w).abs().max().item() for k, w in problem(dtype)[0].items())
    assert moved > 0.05  # the comparison is not vacuous


def test_burn_default_hyperparameters():
    assert (AdamConfig().beta_1, AdamConfig().beta_2, AdamConfig().epsilon) == (0.9, 0.999, 1e-5)
    assert (AdamWConfig().epsilon, AdamWConfig().weight_decay) == (1e-5, 1e-4)
    assert (RmsPropConfig().alpha, RmsPropConfig().momentum, RmsPropConfig().epsilon) == (0.99, 0.9, 1e-5)
    assert (AdaGradConfig().lr_decay, AdaGradConfig().epsilon) == (0.0, 1e-5)
    assert MomentumConfig() == MomentumConfig(momentum=0.9, dampening=0.1, nesterov=False)
    assert SgdConfig() == SgdConfig(None, None, None)


def test_builders_return_new_configs_and_keep_the_original():
    base = AdamConfig()
    tuned = base.with_beta_2(0.95).with_grad_clipping(GradientClippingConfig.norm(1.0))
    assert (tuned.beta_2, tuned.grad_clipping) == (0.95, GradientClippingConfig.norm(1.0))
    assert (base.beta_2, base.grad_clipping) == (0.999, None)
    with pytest.raises(AttributeError):
        base.beta_2 = 0.5


def test_weight_decay_must_be_a_weight_decay_config():
    with pytest.raises(TypeError, match="WeightDecayConfig"):
        AdamConfig().with_weight_decay(0.1).init()


# ------------------------------------------------------------------------------ clipping ----
def test_clip_by_value_clamps_each_component():
    g = Tensor.from_floats([[-3.0, 0.25], [0.75, 5.0]], CPU)
    clipped = GradientClippingConfig.value(0.5).init().clip_gradient(g)
    assert clipped.to_data().to_list() == [[-0.5, 0.25], [0.5, 0.5]]


def test_clip_by_norm_rescales_to_the_max_norm_and_leaves_small_gradients():
    clip = GradientClippingConfig.norm(1.0).init()
    clipped = clip.clip_gradient(Tensor.from_floats([[3.0, 4.0]], CPU))
    assert clipped.to_data().to_list()[0] == pytest.approx([0.6, 0.8], abs=1e-7)
    small = Tensor.from_floats([[0.3, 0.4]], CPU)
    assert clip.clip_gradient(small).to_data().to_list() == small.to_data().to_list()


def test_clipping_by_value_matches_torch_clip_grad_value():
    config = SgdConfig().with_gradient_clipping(GradientClippingConfig.value(0.02))
    ref = torch_run(lambda p, lr: T.SGD(p, lr), torch.float64, 0.1,
                    clip=lambda ps: torch.nn.utils.clip_grad_value_(list(ps), 0.02))
    assert_same_weights(burn_run(config, torch.float64, 0.1), ref, 1e-10)


def per_parameter_norm_clip(max_norm):
    """Burn's clipping on the torch side: each parameter's own norm, + finfo.tiny."""
    def clip(params):
        for p in params:
            norm = p.grad.square().sum().sqrt()
            p.grad.mul_((max_norm / (norm + torch.finfo(p.grad.dtype).tiny)).clamp_max(1.0))
    return clip


@pytest.mark.parametrize("dtype", [torch.float32, torch.float64], ids=["f32", "f64"])
def test_clipping_by_norm_is_per_parameter(dtype):
    config = AdamConfig().with_beta_2(0.95).with_grad_clipping(GradientClippingConfig.norm(0.1))
    ref = torch_run(lambda p, lr: T.Adam(p, lr, betas=(0.9, 0.95), eps=1e-5), dtype, 0.01,
                    clip=per_parameter_norm_clip(0.1))
    assert_same_weights(burn_run(config, dtype, 0.01), ref, TOL[dtype])


def test_clipping_by_norm_differs_from_torch_global_clip_grad_norm():
    config = SgdConfig().with_gradient_clipping(GradientClippingConfig.norm(0.1))
    burn = burn_run(config, torch.float64, 0.1)
    global_clip = torch_run(lambda p, lr: T.SGD(p, lr), torch.float64, 0.1,
                            clip=lambda ps: torch.nn.utils.clip_grad_norm_(list(ps), 0.1))
    assert max((burn[k] - global_clip[k]).abs().max().item() for k in burn) > 1e-3


# ---------------------------------------------------------------------- GradientsParams ----
def fresh_model(dtype=torch.float32):
    return Mlp(problem(dtype)[0])


def loss_of(model):
    _, x, y = problem()
    return CE.forward(model.forward(Tensor.from_data(x, CPU)), Tensor.from_data(y, CPU))


def test_from_grads_moves_every_parameter_gradient_out_of_the_container():
    model = fresh_model()
    grads = loss_of(model).backward()
    gp = GradientsParams.from_grads(grads, model)
    assert sorted(gp.ids()) == sorted(p.id for p in model.params())
    assert len(grads) == 0


def test_get_returns_the_gradient_without_autodiff_or_none():
    model = fresh_model()
    grads = loss_of(model).backward()
    expected = model.fc1.weight.val().grad(grads).to_torch().clone()
    gp = GradientsParams.from_grads(grads, model)
    g = gp.get(model.fc1.weight.id)
    assert isinstance(g, Tensor) and not g.is_autodiff()
    assert torch.equal(g.to_torch(), expected)
    assert gp.get(fresh_model().fc1.weight.id) is None


def test_from_module_takes_only_the_submodule_and_leaves_the_rest():
    model = fresh_model()
    grads = loss_of(model).backward()
    first = GradientsParams.from_module(grads, model.fc1)
    rest = GradientsParams.from_grads(grads, model)
    assert set(first.ids()) == {model.fc1.weight.id, model.fc1.bias.id}
    assert set(rest.ids()) == {model.fc2.weight.id, model.fc2.bias.id}


def test_from_params_takes_only_the_given_ids():
    model = fresh_model()
    grads = loss_of(model).backward()
    gp = GradientsParams.from_params(grads, model, [model.fc2.bias.id])
    assert gp.ids() == [model.fc2.bias.id]
    assert len(grads) == 3


def test_from_grads_rejects_a_non_gradients_argument():
    with pytest.raises(TypeError, match="Gradients"):
        GradientsParams.from_grads({}, fresh_model())


# ---------------------------------------------------------------------------- accumulator ----
def test_accumulator_sums_gradients_and_grads_empties_it():
    model = fresh_model()
    g1 = GradientsParams.from_grads(loss_of(model).backward(), model)
    g2 = GradientsParams.from_grads((loss_of(model) * 3.0).backward(), model)
    w = model.fc1.weight.id
    expected = g1.get(w).to_torch() + g2.get(w).to_torch()
    acc = GradientsAccumulator()
    acc.accumulate(model, g1)
    acc.accumulate(model, g2)
    total = acc.grads()
    assert len(total) == 4
    assert torch.equal(total.get(w).to_torch(), expected)
    assert len(acc) == 0 and acc.grads().is_empty()


def test_accumulator_keeps_only_the_given_module_parameters():
    model = fresh_model()
    acc = GradientsAccumulator()
    acc.accumulate(model.fc2, GradientsParams.from_grads(loss_of(model).backward(), model))
    assert set(acc.grads().ids()) == {model.fc2.weight.id, model.fc2.bias.id}


# ------------------------------------------------------------------------- step semantics ----
def test_step_returns_an_updated_module_and_leaves_the_original():
    model = fresh_model()
    before = model.fc1.weight.val().to_torch().clone()
    updated = AdamConfig().init().step(0.01, model, GradientsParams.from_grads(loss_of(model).backward(), model))
    assert torch.equal(model.fc1.weight.val().to_torch(), before)
    assert not torch.equal(updated.fc1.weight.val().to_torch(), before)


def test_step_keeps_param_ids_and_makes_fresh_require_grad_leaves():
    model = fresh_model()
    updated = SgdConfig().init().step(0.1, model, GradientsParams.from_grads(loss_of(model).backward(), model))
    for old, new in zip(model.params(), updated.params()):
        assert new.id == old.id
        assert new.is_require_grad() and new.is_trainable()
    grads = loss_of(updated).backward()
    assert updated.fc1.weight.val().grad(grads) is not None
    assert model.fc1.weight.val().grad(grads) is None


def test_step_consumes_the_gradients_it_uses():
    model = fresh_model()
    gp = GradientsParams.from_grads(loss_of(model).backward(), model)
    SgdConfig().init().step(0.1, model, gp)
    assert gp.is_empty()


def test_step_leaves_frozen_parameters_untouched():
    model = fresh_model()
    model.fc1 = model.fc1.no_grad()
    gp = GradientsParams.from_grads(loss_of(model).backward(), model)
    updated = SgdConfig().init().step(0.1, model, gp)
    assert updated.fc1.weight.val() is model.fc1.weight.val()
    assert not updated.fc1.weight.is_require_grad() and not updated.fc1.weight.is_trainable()
    assert not torch.equal(updated.fc2.weight.val().to_torch(), model.fc2.weight.val().to_torch())


# ------------------------------------------------------------------------- state records ----
@pytest.mark.parametrize("case", ["sgd_momentum_dampening", "adam_amsgrad", "adamw",
                                  "rmsprop_centered_momentum_weight_decay", "adagrad_lr_decay_weight_decay"])
def test_optimizer_state_survives_a_record_round_trip(case):
    config, _, lr = CASES[case]
    weights, x, y = problem()
    model, opt = Mlp(weights), config.init()
    for _ in range(5):
        model = opt.step(lr, model, burn_grads(model, x, y))
    record = pickle.loads(pickle.dumps(opt.into_record()))
    resumed = config.init().load_record(record)
    assert len(record) == 4
    a = b = model
    for _ in range(5):
        a = opt.step(lr, a, burn_grads(a, x, y))
        b = resumed.step(lr, b, burn_grads(b, x, y))
    for pa, pb in zip(a.params(), b.params()):
        assert torch.equal(pa.val().to_torch(), pb.val().to_torch())


def test_a_record_is_a_snapshot_later_steps_do_not_change():
    weights, x, y = problem()
    model, opt = Mlp(weights), AdamConfig().init()
    model = opt.step(0.01, model, burn_grads(model, x, y))
    record = opt.to_record()
    moment = record[model.fc1.weight.id]["moment_1"].clone()
    opt.step(0.01, model, burn_grads(model, x, y))
    assert torch.equal(record[model.fc1.weight.id]["moment_1"], moment)


def test_a_fresh_optimizer_has_an_empty_record():
    assert len(SgdConfig().init().to_record()) == 0


# ----------------------------------------------------------------------------- schedulers ----
def sequence(scheduler, n):
    return [scheduler.step() for _ in range(n)]


def test_constant_lr():
    assert sequence(optim.ConstantLr(0.3), 3) == [0.3, 0.3, 0.3]


def test_linear_scheduler_reaches_the_final_rate_and_stays():
    assert sequence(lrs.LinearLrSchedulerConfig(0.9, 0.5, 4).init(), 6) == pytest.approx(
        [0.9, 0.8, 0.7, 0.6, 0.5, 0.5], abs=1e-12)


def test_step_scheduler_matches_torch_step_lr():
    ours = sequence(lrs.StepLrSchedulerConfig(0.5, 3).init(), 9)
    p = torch.zeros(1, requires_grad=True)
    opt = T.SGD([p], 0.5)
    sched = T.lr_scheduler.StepLR(opt, step_size=3, gamma=0.1)
    ref = []
    for _ in range(9):
        ref.append(sched.get_last_lr()[0])
        opt.step()
        sched.step()
    assert ours == pytest.approx(ref, abs=1e-12)


def test_exponential_scheduler_matches_torch_exponential_lr():
    ours = sequence(lrs.ExponentialLrSchedulerConfig(0.8, 0.5).init(), 6)
    p = torch.zeros(1, requires_grad=True)
    opt = T.SGD([p], 0.8)
    sched = T.lr_scheduler.ExponentialLR(opt, gamma=0.5)
    ref = []
    for _ in range(6):
        ref.append(sched.get_last_lr()[0])
        opt.step()
        sched.step()
    assert ours == pytest.approx(ref, abs=1e-12)


def test_cosine_scheduler_anneals_then_restarts():
    lrs_ = sequence(lrs.CosineAnnealingLrSchedulerConfig(0.5, 2).with_min_lr(0.1).init(), 4)
    assert lrs_ == pytest.approx([0.5, 0.3, 0.1, 0.5], abs=1e-12)


def test_noam_scheduler_warms_up_then_decays():
    s = lrs.NoamLrSchedulerConfig(10.0).with_warmup_steps(100).init()
    values = sequence(s, 200)
    assert all(a < b for a, b in zip(values[:99], values[1:100]))
    assert all(a > b for a, b in zip(values[100:-1], values[101:]))
    assert values[0] == pytest.approx(10.0 * 512 ** -0.5 * 100 ** -1.5)


@pytest.mark.parametrize("config", [lrs.LinearLrSchedulerConfig(1.0, 0.01, 6),
                                    lrs.CosineAnnealingLrSchedulerConfig(1.0, 9),
                                    lrs.StepLrSchedulerConfig(0.007, 10, 0.03),
                                    lrs.ExponentialLrSchedulerConfig(0.083, 0.3),
                                    lrs.NoamLrSchedulerConfig(2.0, 5, 16)],
                         ids=lambda c: type(c).__name__)
def test_scheduler_resumes_from_its_record(config):
    truth, saved = config.init(), config.init()
    sequence(truth, 4)
    sequence(saved, 4)
    resumed = config.init().load_record(saved.to_record())
    assert sequence(resumed, 8) == sequence(truth, 8)


@pytest.mark.parametrize("config, message", [
    (lrs.LinearLrSchedulerConfig(0.0, 0.5, 10), "Initial learning rate must be greater than 0 and at most 1"),
    (lrs.LinearLrSchedulerConfig(0.5, 1.5, 10), "Final learning rate must be at least 0 and at most 1"),
    (lrs.CosineAnnealingLrSchedulerConfig(0.5, 10).with_min_lr(0.6),
     "Minimum learning rate must be at least 0 and at most equal to the initial learning rate"),
    (lrs.CosineAnnealingLrSchedulerConfig(0.5, 0), "Number of iterations must be at least 1"),
    (lrs.StepLrSchedulerConfig(1.0, 0), "Step size must be greater than 0"),
    (lrs.ExponentialLrSchedulerConfig(0.5, 1.5), "Gamma must be greater than 0 and at most 1"),
    (lrs.NoamLrSchedulerConfig(0.1).with_model_size(0), "Model size must be greater than 0"),
], ids=lambda v: type(v).__name__ if not isinstance(v, str) else "")
def test_invalid_scheduler_configs_raise_burns_message(config, message):
    with pytest.raises(ValueError, match=message):
        config.init()


def test_the_schedule_feeds_the_optimizer_step():
    weights, x, y = problem(torch.float64)
    scheduler = lrs.StepLrSchedulerConfig(0.1, 2, 0.5).init()
    model, opt = Mlp(weights), SgdConfig().init()
    for _ in range(4):
        model = opt.step(scheduler.step(), model, burn_grads(model, x, y))
    params = {name: w.clone().requires_grad_() for name, w in weights.items()}
    ref = T.SGD(list(params.values()), 0.1)
    sched = T.lr_scheduler.StepLR(ref, step_size=2, gamma=0.5)
    for _ in range(4):
        ref.zero_grad()
        h = torch.relu(x @ params["fc1.weight"] + params["fc1.bias"])
        F.cross_entropy(h @ params["fc2.weight"] + params["fc2.bias"], y).backward()
        ref.step()
        sched.step()
    assert_same_weights({n: p.val().to_torch() for n, p in model.named_params()},
                        {n: p.detach() for n, p in params.items()}, 1e-12)
    assert math.isclose(scheduler.step(), 0.025)


def test_a_mismatched_gradient_is_rejected_before_anything_changes():
    model = fresh_model()
    gp = GradientsParams.from_grads(loss_of(model).backward(), model)
    gp.register(model.fc2.bias.id, Tensor.zeros([5], CPU))
    opt = AdamConfig().init()
    with pytest.raises(ValueError, match=r"gradient of fc2.bias has shape \[5\], the parameter \[3\]"):
        opt.step(0.01, model, gp)
    assert len(gp) == 4 and len(opt.to_record()) == 0


def test_training_resumes_from_a_model_file_and_an_optimizer_record(tmp_path):
    weights, x, y = problem()
    model, opt = Mlp(weights), AdamConfig().init()
    for _ in range(3):
        model = opt.step(0.01, model, burn_grads(model, x, y))
    path = model.save_file(tmp_path / "model")
    (tmp_path / "optim.pkl").write_bytes(pickle.dumps(opt.to_record()))

    resumed = Mlp(problem(seed=1)[0]).load_file(path)
    resumed_opt = AdamConfig().init().load_record(pickle.loads((tmp_path / "optim.pkl").read_bytes()))
    for _ in range(3):
        model = opt.step(0.01, model, burn_grads(model, x, y))
        resumed = resumed_opt.step(0.01, resumed, burn_grads(resumed, x, y))
    for a, b in zip(model.params(), resumed.params()):
        assert a.id == b.id and torch.equal(a.val().to_torch(), b.val().to_torch())
