"""A tiny classification run for the training tests: importable (its pieces) and runnable as a
script (``python training_job.py ARTIFACT_DIR NUM_EPOCHS [CHECKPOINT] [--slow]``; its display
is the default one: the rich dashboard on a terminal, plain lines otherwise),
so tests can run it in a subprocess they kill, or in a real terminal."""
from __future__ import annotations

import sys
import time

import torch

from burn_torch import Device, Tensor, nn
from burn_torch.data import Batcher, DataLoaderBuilder, InMemDataset, MapperDataset
from burn_torch.module import Module
from burn_torch.optim import AdamConfig
from burn_torch.record import DefaultRecorder
from burn_torch.train import (AccuracyMetric, ClassificationOutput, InferenceStep, Learner,
                              LossMetric, SupervisedTraining, TrainOutput, TrainStep)


class Batch:
    def __init__(self, inputs: Tensor, targets: Tensor) -> None:
        self.inputs, self.targets = inputs, targets


class PairBatcher(Batcher):
    """``(features, label)`` items into a Float ``[n, 4]`` and an Int ``[n]`` tensor."""

    def batch(self, items, device):
        return Batch(Tensor.from_data(torch.stack([x for x, _ in items]), device),
                     Tensor.from_ints([y for _, y in items], device))


class Classifier(Module, TrainStep, InferenceStep):
    """4 → 16 → 3 with dropout (so resuming must restore the random stream too)."""

    def __init__(self, device: Device, dropout: float = 0.2) -> None:
        super().__init__()
        self.fc1 = nn.LinearConfig(4, 16).init(device)
        self.dropout = nn.DropoutConfig(dropout).init()
        self.fc2 = nn.LinearConfig(16, 3).init(device)
        self.loss = nn.CrossEntropyLossConfig().init(device)

    def forward(self, x: Tensor) -> Tensor:
        return self.fc2.forward(self.dropout.forward(nn.relu(self.fc1.forward(x))))

    def classify(self, batch: Batch) -> ClassificationOutput:
        out = self.forward(batch.inputs)
        return ClassificationOutput(self.loss.forward(out, batch.targets), out, batch.targets)

    def train_step(self, batch: Batch) -> TrainOutput:
        item = self.classify(batch)
        return TrainOutput(self, item.loss.backward(), item)

    def inference_step(self, batch: Batch) -> ClassificationOutput:
        return self.classify(batch)


class Slow:
    """A mapper that sleeps a little per item (gives a killer or a screen reader time)."""

    def __init__(self, seconds: float) -> None:
        self.seconds = seconds

    def __call__(self, item):
        time.sleep(self.seconds)
        return item


def datasets(n_train: int = 96, n_valid: int = 32, seed: int = 0):
    gen = torch.Generator().manual_seed(seed)
    centers = torch.tensor([[2.0, 0, 0, 0], [0, 2.0, 0, 0], [0, 0, 2.0, 0]])

    def make(n):
        labels = torch.randint(0, 3, (n,), generator=gen)
        points = centers[labels] + torch.randn(n, 4, generator=gen)
        return InMemDataset([(points[i], int(labels[i])) for i in range(n)])
    return make(n_train), make(n_valid)


def training(artifact_dir, num_epochs: int, slow: float = 0.0, workers: int = 0) -> SupervisedTraining:
    train, valid = datasets()
    if slow:
        train = MapperDataset(train, Slow(slow))
    builder = DataLoaderBuilder(PairBatcher()).batch_size(16)
    return (SupervisedTraining.new(artifact_dir, builder.shuffle(3).num_workers(workers).build(train),
                                   builder.build(valid))
            .metrics(AccuracyMetric(), LossMetric())
            .with_file_checkpointer(DefaultRecorder())
            .num_epochs(num_epochs))


def initial_model(dropout: float = 0.2) -> Classifier:
    Device.cpu().seed(1)
    return Classifier(Device.cpu(), dropout)


def learner(model: Classifier | None = None) -> Learner:
    return Learner.new(model if model is not None else initial_model(), AdamConfig().init(), 1e-2)


if __name__ == "__main__":
    args = [a for a in sys.argv[1:] if not a.startswith("--")]
    run = training(args[0], int(args[1]), slow=0.01 if "--slow" in sys.argv else 0.0)
    if len(args) > 2:
        run = run.checkpoint(int(args[2]))
    result = run.launch(learner())
    print(f"finished after epoch {result.epoch}")
