"""The Learner runs its training iterations through ``burn_torch.capture``: a captured run
ends bit-equal to the eager run (weights, optimizer state, metric logs), falls back to eager
with its reason written once to ``experiment.log`` when an iteration cannot be captured, runs
every iteration eagerly with ``capture(False)``, and resumes from a checkpoint captured."""
from __future__ import annotations

import dataclasses
import io
import random
import sys
from pathlib import Path

import pytest
import torch

from burn_torch import nn
from burn_torch.data import DataLoaderBuilder
from burn_torch.optim import AdaGradConfig, AdamConfig, SgdConfig
from burn_torch.optim.lr_scheduler import LinearLrScheduler
from burn_torch.train import Learner, PlainRenderer, SupervisedTraining, TrainOutput

sys.path.insert(0, str(Path(__file__).parent))
import training_job as job  # noqa: E402

REPLAYING = "training iterations replay captured kernels"
EAGER = "training iterations run eagerly from now on"
VALID_REPLAYING = "validation steps replay captured kernels"
VALID_EAGER = "validation steps run eagerly from now on"


def quiet(training):
    return training.renderer(PlainRenderer(io.StringIO())).plot(False)


def weights(module) -> dict[str, torch.Tensor]:
    return {name: p.val().to_torch() for name, p in module.named_params()}


def optimizer_state(model, optimizer) -> dict[str, dict]:
    """The optimizer's record by parameter name (the ParamIds of two runs differ)."""
    record = optimizer.to_record()
    return {name: dict(record[p.id]) for name, p in model.named_params() if p.id in record}


def same(a, b) -> bool:
    if isinstance(a, dict):
        return a.keys() == b.keys() and all(same(a[k], b[k]) for k in a)
    if isinstance(a, tuple):
        return len(a) == len(b) and all(same(x, y) for x, y in zip(a, b))
    if isinstance(a, torch.Tensor):
        return a.dtype == b.dtype and torch.equal(a, b)
    if hasattr(a, "to_torch"):
        return same(a.to_torch(), b.to_torch())
    return type(a) is type(b) and a == b


def log_lines(directory: Path) -> list[str]:
    return (directory / "experiment.log").read_text().splitlines()


def launch(directory: Path, learner: Learner, *, epochs: int = 2, capture: bool = True,
           training=None):
    training = training or job.training(directory, epochs)
    return quiet(training.capture(capture)).launch(learner)


def runs_equal(tmp_path, make_learner, **options) -> tuple[list[str], list[str]]:
    """Trains the same learner captured and eagerly; asserts both end with the same weights,
    optimizer state and metric logs; returns both experiment logs."""
    ends = {}
    for capture in (True, False):
        learner = make_learner()
        result = launch(tmp_path / str(capture), learner, capture=capture, **options)
        ends[capture] = (weights(result.model), optimizer_state(result.model, learner.optimizer))
    assert same(ends[True][0], ends[False][0])
    assert ends[True][1] and same(ends[True][1], ends[False][1])
    for split in ("train", "valid"):
        for name in ("Loss", "Accuracy"):
            assert (tmp_path / f"True/{split}/epoch-2/{name}.log").read_text() == \
                (tmp_path / f"False/{split}/epoch-2/{name}.log").read_text()
    return log_lines(tmp_path / "True"), log_lines(tmp_path / "False")


@pytest.mark.parametrize("optimizer", [AdamConfig, SgdConfig])
def test_a_captured_run_ends_bit_equal_to_the_eager_run(tmp_path, optimizer):
    captured, eager = runs_equal(tmp_path, lambda: Learner.new(job.initial_model(), optimizer().init(), 1e-2))
    assert sum(REPLAYING in line for line in captured) == 1
    assert sum(VALID_REPLAYING in line for line in captured) == 1
    assert not any(EAGER in line or VALID_EAGER in line for line in captured)
    assert not any("replay captured" in line or "eagerly from now on" in line for line in eager)


class NormClassifier(job.Classifier):
    """The test classifier with BatchNorm after its first layer: in training, its forward
    replaces the running statistics on the module (replay cannot)."""

    def __init__(self, device) -> None:
        super().__init__(device)
        self.norm = nn.BatchNormConfig(16).init(device)

    def forward(self, x):
        h = self.norm.forward(self.fc1.forward(x).unsqueeze_dim(2)).squeeze_dim(2)
        return self.fc2.forward(self.dropout.forward(nn.relu(h)))


def _norm_model():
    job.Device.cpu().seed(1)
    return NormClassifier(job.Device.cpu())


class HostReadingClassifier(job.Classifier):
    """A train step that reads its loss on the host: replay re-reads it, sees another value
    and runs eagerly, every iteration."""

    def train_step(self, batch) -> TrainOutput:
        item = self.classify(batch)
        if item.loss.into_scalar() > 1e9:
            raise AssertionError("unreachable")
        return TrainOutput(self, item.loss.backward(), item)


def _host_reading_model():
    job.Device.cpu().seed(1)
    return HostReadingClassifier(job.Device.cpu())


class CoinClassifier(job.Classifier):
    """A train step that flips a coin with Python's random module (as the seq2seq tutorial's
    teacher forcing does): a plan would freeze the recorded flip."""

    def train_step(self, batch) -> TrainOutput:
        item = self.classify(batch)
        loss = item.loss.mul_scalar(2.0) if random.random() < 0.5 else item.loss
        return TrainOutput(self, loss.backward(), item)


def _coin_learner() -> Learner:
    random.seed(3)   # each run flips the same coins
    job.Device.cpu().seed(1)
    return Learner.new(CoinClassifier(job.Device.cpu()), AdamConfig().init(), 1e-2)


@pytest.mark.parametrize("make_learner, reason", [
    (lambda: Learner.new(job.initial_model(), AdaGradConfig().init(), 1e-2), "AdaGrad"),
    (lambda: Learner.new(_norm_model(), AdamConfig().init(), 1e-2), "changed its arguments"),
    (lambda: Learner.new(job.initial_model(), AdamConfig().init(), LinearLrScheduler(1e-2, 1e-3, 100)),
     "learning rate that changes"),
    (lambda: Learner.new(_host_reading_model(), AdamConfig().init(), 1e-2), "read a value on the host"),
    (_coin_learner, "Python's random module"),
], ids=["AdaGrad", "BatchNorm", "schedule", "host read", "coin flip"])
def test_an_iteration_that_cannot_be_captured_falls_back_to_eager_and_says_why_once(
        tmp_path, make_learner, reason):
    captured, _ = runs_equal(tmp_path, make_learner)
    fallbacks = [line for line in captured if EAGER in line]
    assert len(fallbacks) == 1 and reason in fallbacks[0], captured
    assert not any(REPLAYING in line for line in captured)
    assert sum(VALID_REPLAYING in line for line in captured) == 1   # validation: still captured


class NotingClassifier(job.Classifier):
    """An inference step that notes each batch in a list the model holds: it changes its
    arguments, so validation cannot be captured (training can)."""

    def __init__(self, device) -> None:
        super().__init__(device)
        self.seen: list[int] = []

    def inference_step(self, batch):
        self.seen.append(1)
        return super().inference_step(batch)


def _noting_model():
    job.Device.cpu().seed(1)
    return NotingClassifier(job.Device.cpu())


def test_validation_that_cannot_be_captured_falls_back_alone(tmp_path):
    captured, _ = runs_equal(tmp_path, lambda: Learner.new(_noting_model(), AdamConfig().init(), 1e-2))
    fallbacks = [line for line in captured if VALID_EAGER in line]
    assert len(fallbacks) == 1 and "changed its arguments" in fallbacks[0], captured
    assert not any(VALID_REPLAYING in line for line in captured)
    assert sum(REPLAYING in line for line in captured) == 1


CALLS: list[int] = []


class CountingClassifier(job.Classifier):
    """A train step with a Python side effect replay skips: it counts its calls in a list
    outside the model."""

    def train_step(self, batch) -> TrainOutput:
        CALLS.append(1)
        return super().train_step(batch)


def _counting_model():
    job.Device.cpu().seed(1)
    return CountingClassifier(job.Device.cpu())


@pytest.mark.parametrize("capture", [True, False])
def test_capture_off_runs_every_iteration_eagerly(tmp_path, capture):
    CALLS.clear()
    launch(tmp_path, Learner.new(_counting_model(), AdamConfig().init(), 1e-2), capture=capture)
    iterations = 2 * 6                       # 2 epochs of 96 items in batches of 16
    if capture:     # only the recordings ran the Python train step
        assert 0 < len(CALLS) < iterations
    else:
        assert len(CALLS) == iterations
        assert not any("replay captured" in line or "eagerly from now on" in line
                       for line in log_lines(tmp_path))


def test_capture_is_on_by_default_and_a_builder_option():
    base = job.training("unused", 1)
    assert base._capture is True
    off = base.capture(False)
    assert off is not base and off._capture is False and base._capture is True
    assert off.capture()._capture is True


def test_a_run_resumed_from_its_checkpoint_is_captured_and_equals_the_uninterrupted_run(tmp_path):
    model = job.initial_model()
    straight = launch(tmp_path / "straight", job.learner(model), epochs=3)
    launch(tmp_path / "stopped", job.learner(model), epochs=1)
    optimizer = AdamConfig().init()
    resumed = quiet(job.training(tmp_path / "stopped", 3).checkpoint(1)).launch(
        Learner.new(model, optimizer, 1e-2))
    assert same(weights(straight.model), weights(resumed.model))
    lines = log_lines(tmp_path / "stopped")
    resumed_at = next(i for i, line in enumerate(lines) if "resumed from checkpoint 1" in line)
    assert any(REPLAYING in line for line in lines[resumed_at:])
    assert not any(EAGER in line for line in lines)
    for split in ("train", "valid"):
        assert (tmp_path / f"straight/{split}/epoch-3/Loss.log").read_text() == \
            (tmp_path / f"stopped/{split}/epoch-3/Loss.log").read_text()


def test_captured_gradient_accumulation_equals_eager_accumulation(tmp_path):
    train, valid = job.datasets()
    builder = DataLoaderBuilder(job.PairBatcher()).batch_size(8)
    ends = {}
    for capture in (True, False):
        training = (SupervisedTraining.new(tmp_path / str(capture), builder.shuffle(3).build(train),
                                           builder.build(valid))
                    .grads_accumulation(3).num_epochs(2))
        learner = Learner.new(job.initial_model(), AdamConfig().init(), 1e-2)
        result = quiet(training.capture(capture)).launch(learner)
        ends[capture] = (weights(result.model), optimizer_state(result.model, learner.optimizer))
    assert same(ends[True], ends[False])
    assert any(REPLAYING in line for line in log_lines(tmp_path / "True"))


@dataclasses.dataclass(frozen=True)
class FrozenBatch:
    inputs: object
    targets: object


class TupleBatcher(job.PairBatcher):
    """Batches as ``(inputs, targets)`` tuples, or as ``FrozenBatch`` dataclasses."""

    def __init__(self, kind: type) -> None:
        self.kind = kind

    def batch(self, items, device):
        b = super().batch(items, device)
        return (b.inputs, b.targets) if self.kind is tuple else FrozenBatch(b.inputs, b.targets)


class AnyBatchClassifier(job.Classifier):
    def classify(self, batch):
        if isinstance(batch, tuple):
            batch = job.Batch(*batch)
        return super().classify(batch)


@pytest.mark.parametrize("kind", [tuple, FrozenBatch])
def test_tuple_and_dataclass_batches_are_captured_bit_equal(tmp_path, kind):
    train, valid = job.datasets()
    builder = DataLoaderBuilder(TupleBatcher(kind)).batch_size(16)
    ends = {}
    for capture in (True, False):
        training = (SupervisedTraining.new(tmp_path / str(capture), builder.shuffle(3).build(train),
                                           builder.build(valid)).num_epochs(2))
        job.Device.cpu().seed(1)
        learner = Learner.new(AnyBatchClassifier(job.Device.cpu()), AdamConfig().init(), 1e-2)
        result = quiet(training.capture(capture)).launch(learner)
        ends[capture] = (weights(result.model), optimizer_state(result.model, learner.optimizer))
    assert same(ends[True], ends[False])
    lines = log_lines(tmp_path / "True")
    assert sum(REPLAYING in line for line in lines) == 1 and not any(EAGER in line for line in lines)
