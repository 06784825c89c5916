"""A whole training iteration captured, the optimizer step included (``burn_torch.capture`` with a
``ModuleOptimizer`` argument; step counts held as tensors by ``optim.counts``)."""
import pytest
import torch

from burn_torch import Device, Tensor, nn
from burn_torch.capture import capture
from burn_torch.module import Module
from burn_torch.optim import (AdaGradConfig, AdamConfig, AdamWConfig, GradientsParams,
                              RmsPropConfig, SgdConfig)
from burn_torch.optim.base import WeightDecayConfig
from burn_torch.optim.clipping import GradientClippingConfig
from burn_torch.optim.sgd import MomentumConfig

AD = Device.cpu().autodiff()


class _Net(Module):
    """Seven small layers (their parameters updated as flat batches) and a large one (updated
    on its own: more than ``flat.FLAT_MAX_NUMEL`` entries)."""

    def __init__(self) -> None:
        super().__init__()
        self.small = [nn.LinearConfig(8, 8).init(AD) for _ in range(7)]
        self.wide = nn.LinearConfig(8, 2100).init(AD)
        self.out = nn.LinearConfig(2100, 3).init(AD)

    def forward(self, x: Tensor) -> Tensor:
        for layer in self.small:
            x = nn.relu(layer.forward(x))
        return self.out.forward(nn.relu(self.wide.forward(x)))


def _iteration(model, optimizer, lr, x, y):
    """Burn's loop, one whole iteration: forward, loss, backward, GradientsParams, step."""
    loss = (model.forward(x) - y).square().mean()
    grads = GradientsParams.from_grads(loss.backward(), model)
    return optimizer.step(lr, model, grads), loss.detach()


def _batch(i: int) -> tuple[Tensor, Tensor]:
    gen = torch.Generator().manual_seed(i)
    return (Tensor.from_data(torch.randn(4, 8, generator=gen), AD),
            Tensor.from_data(torch.randn(4, 3, generator=gen), AD))


def _train(step, model, optimizer, steps: int, lr: float = 1e-2, start: int = 0):
    for i in range(start, start + steps):
        model, _ = step(model, optimizer, lr, *_batch(i))
    return model


def _same_params(a: Module, b: Module) -> bool:
    pa, pb = list(a.params()), list(b.params())
    return len(pa) == len(pb) and all(
        p.id == q.id and torch.equal(p.val().to_torch(), q.val().to_torch()) for p, q in zip(pa, pb))


def _same_state(a, b) -> bool:
    """The two optimizers' records hold the same ParamIds, entry names, numbers and tensor bits."""
    ra, rb = a.to_record(), b.to_record()
    if set(ra) != set(rb):
        return False
    for pid in ra:
        sa, sb = ra[pid], rb[pid]
        if set(sa) != set(sb):
            return False
        for k, v in sa.items():
            w = sb[k]
            if isinstance(v, torch.Tensor):
                if not (isinstance(w, torch.Tensor) and torch.equal(v, w)):
                    return False
            elif type(v) is not type(w) or v != w:
                return False
    return True


def _twins():
    model = _Net()
    return model, _Net().load_record(model.into_record())


OPTIMIZERS = {
    "adam": AdamConfig(),
    "adam amsgrad weight decay": AdamConfig(amsgrad=True, weight_decay=WeightDecayConfig(0.01)),
    "adam clipped by norm": AdamConfig(grad_clipping=GradientClippingConfig.norm(0.1)),
    "adamw": AdamWConfig(),
    "adamw cautious": AdamWConfig(weight_decay=0.1, cautious_weight_decay=True),
    "sgd": SgdConfig(),
    "sgd momentum weight decay": SgdConfig(momentum=MomentumConfig(),
                                           weight_decay=WeightDecayConfig(0.01)),
    "sgd nesterov": SgdConfig(momentum=MomentumConfig(nesterov=True)),
    "rmsprop": RmsPropConfig(),
    "rmsprop centered": RmsPropConfig(centered=True, weight_decay=WeightDecayConfig(0.01)),
}


@pytest.mark.parametrize("config", OPTIMIZERS.values(), ids=OPTIMIZERS.keys())
def test_captured_training_with_the_optimizer_step_is_bit_equal_to_eager(config):
    """Eight iterations, captured and eager, from the same weights: the same parameters and
    the same optimizer state (moments, velocities, step counts), bit for bit; from the fourth
    call on, every one is a replay."""
    model, twin = _twins()
    captured_optim, eager_optim = config.init(), config.init()
    step = capture(_iteration)
    captured = _train(step, model, captured_optim, 8)
    eager = _train(_iteration, twin, eager_optim, 8)
    assert step.eager_reason is None and step.replayed >= 5, step.eager_reason
    assert _same_params(captured, eager)
    assert _same_state(captured_optim, eager_optim)


def test_one_plan_serves_every_step_count():
    """The step count is an input of the plan, not a constant: once the optimizer's state has
    its steady structure, every later iteration replays, however many there are."""
    model, _ = _twins()
    optimizer = AdamConfig().init()
    step = capture(_iteration)
    model = _train(step, model, optimizer, 6)
    recorded = 6 - step.replayed
    _train(step, model, optimizer, 10, start=6)
    assert 6 + 10 - step.replayed == recorded       # no recording after the first six
    assert step.plans == recorded


def test_replays_advance_the_step_count():
    model, _ = _twins()
    optimizer = AdamWConfig().init()
    step = capture(_iteration)
    _train(step, model, optimizer, 7)
    times = {state["time"] for state in optimizer.to_record().values()}
    assert step.replayed >= 4 and times == {7}


def test_records_hold_step_counts_as_ints():
    """Counts are tensors while captured; records keep Burn's integer counts."""
    model, _ = _twins()
    optimizer = AdamConfig().init()
    _train(capture(_iteration), model, optimizer, 3)
    assert {type(state["time"]) for state in optimizer.to_record().values()} == {int}


def test_held_step_counts_step_bit_equal_to_int_counts():
    """An optimizer holding its counts as tensors, stepped eagerly, gives eager's values."""
    model, twin = _twins()
    held, plain = AdamConfig().init(), AdamConfig().init()
    model = _train(_iteration, model, held, 2)
    held.hold_counts()                   # an existing state's int counts converted too
    model = _train(_iteration, model, held, 4, start=2)
    twin = _train(_iteration, twin, plain, 6)
    assert _same_params(model, twin) and _same_state(held, plain)


def test_a_new_learning_rate_records_a_new_plan_bit_equal_to_eager():
    """The learning rate is a Python number: part of the key, so a new value records again
    (a stale plan is never replayed with another rate)."""
    model, twin = _twins()
    captured_optim, eager_optim = SgdConfig().init(), SgdConfig().init()
    step = capture(_iteration)
    model = _train(step, model, captured_optim, 3, lr=0.1)
    plans = step.plans
    model = _train(step, model, captured_optim, 3, lr=0.05, start=3)
    twin = _train(_iteration, twin, eager_optim, 3, lr=0.1)
    twin = _train(_iteration, twin, eager_optim, 3, lr=0.05, start=3)
    assert step.plans == plans + 1
    assert _same_params(model, twin) and _same_state(captured_optim, eager_optim)


def test_another_model_with_its_own_optimizer_is_not_given_the_recorded_state():
    """Optimizer states are keyed by ParamId: a model of the same structure but other ids (and
    its own fresh optimizer) records its own plan, and its optimizer ends with states keyed by
    its own ParamIds, as eagerly."""
    step = capture(_iteration)
    _train(step, _Net(), AdamConfig().init(), 4)
    model, twin = _twins()
    captured_optim, eager_optim = AdamConfig().init(), AdamConfig().init()
    model = _train(step, model, captured_optim, 4)
    twin = _train(_iteration, twin, eager_optim, 4)
    assert set(captured_optim.to_record()) == {p.id for p in model.params()}
    assert _same_params(model, twin) and _same_state(captured_optim, eager_optim)


def test_an_optimizer_whose_rule_cannot_be_captured_runs_eagerly_with_the_reason():
    model, twin = _twins()
    captured_optim, eager_optim = AdaGradConfig().init(), AdaGradConfig().init()
    step = capture(_iteration)
    model = _train(step, model, captured_optim, 3)
    twin = _train(_iteration, twin, eager_optim, 3)
    assert step.replayed == 0 and step.plans == 0
    assert "AdaGrad" in step.eager_reason and "capturable" in step.eager_reason
    assert _same_params(model, twin) and _same_state(captured_optim, eager_optim)


def test_betas_too_close_to_one_for_a_count_table_run_eagerly_with_the_reason():
    model, twin = _twins()
    config = AdamConfig(beta_2=0.999999)
    captured_optim, eager_optim = config.init(), config.init()
    step = capture(_iteration)
    model = _train(step, model, captured_optim, 3)
    twin = _train(_iteration, twin, eager_optim, 3)
    assert step.replayed == 0 and "step count" in step.eager_reason
    assert _same_params(model, twin) and _same_state(captured_optim, eager_optim)


def test_the_fast_guard_answers_an_iteration_with_an_optimizer():
    """The generated guard (not the general key) finds the plan of a steady iteration."""
    model, _ = _twins()
    optimizer = AdamConfig().init()
    step = capture(_iteration)
    model = _train(step, model, optimizer, 4)
    guard, _, _ = step._last
    x, y = _batch(9)
    assert guard((model, optimizer, 1e-2, x, y), {}) is not None
    assert guard((_Net(), optimizer, 1e-2, x, y), {}) is None      # other ParamIds
    assert guard((model, optimizer, 1e-3, x, y), {}) is None       # another learning rate
