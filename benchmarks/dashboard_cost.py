"""What the live dashboard costs per training step, on the MNIST example's CNN.

Trains the example's model (batch 32) with the Learner three times, each with a renderer
that times its own ``update`` calls (where the display's per-iteration work and its redraws,
at most 10 per second, happen): the rich dashboard drawing to a terminal-sized console, the
plain log renderer, and a renderer that draws nothing. Prints the time per step, the
dashboard's time per step and their ratio (target: < 2 %).

Usage: python benchmarks/dashboard_cost.py [--steps N]
"""
from __future__ import annotations

import argparse
import io
import tempfile
import time

import numpy as np
import torch

from burn_torch import Device, Tensor, nn
from burn_torch.data import Batcher, DataLoaderBuilder, SamplerDataset, mnist_like
from burn_torch.module import Module
from burn_torch.optim import AdamConfig
from burn_torch.train import (AccuracyMetric, ClassificationOutput, InferenceStep, Learner,
                              LossMetric, MetricsRenderer, PlainRenderer, RichDashboard,
                              SupervisedTraining, TrainOutput, TrainStep)


class Batch:
    def __init__(self, images, targets):
        self.images, self.targets = images, targets


class MnistBatcher(Batcher):
    def batch(self, items, device):
        images = torch.from_numpy(np.stack([it.image for it in items]))[:, None] / 255.0
        return Batch(Tensor.from_data((images - 0.1307) / 0.3081, device),
                     Tensor.from_ints([it.label for it in items], device))


class Cnn(Module, TrainStep, InferenceStep):
    """The example's model (examples/train_mnist_learner.py)."""

    def __init__(self, device):
        super().__init__()
        self.conv1 = nn.Conv2dConfig([1, 8], [3, 3]).init(device)
        self.conv2 = nn.Conv2dConfig([8, 16], [3, 3]).init(device)
        self.pool = nn.AdaptiveAvgPool2dConfig([8, 8]).init()
        self.linear1 = nn.LinearConfig(16 * 8 * 8, 32).init(device)
        self.linear2 = nn.LinearConfig(32, 10).init(device)
        self.loss = nn.CrossEntropyLossConfig().init(device)

    def classify(self, batch):
        x = self.pool.forward(nn.relu(self.conv2.forward(nn.relu(self.conv1.forward(batch.images)))))
        out = self.linear2.forward(nn.relu(self.linear1.forward(x.flatten(1, 3))))
        return ClassificationOutput(self.loss.forward(out, batch.targets), out, batch.targets)

    def train_step(self, batch):
        item = self.classify(batch)
        return TrainOutput(self, item.loss.backward(), item)

    def inference_step(self, batch):
        return self.classify(batch)


def timed(renderer: MetricsRenderer) -> MetricsRenderer:
    """``renderer`` with its ``update`` calls' total time in ``renderer.spent``."""
    update = renderer.update
    renderer.spent, renderer.calls = 0.0, 0

    def timed_update(*args):
        start = time.perf_counter()
        update(*args)
        renderer.spent += time.perf_counter() - start
        renderer.calls += 1
    renderer.update = timed_update
    return renderer


def run(renderer: MetricsRenderer, steps: int) -> tuple[float, float]:
    """``(seconds per training step, renderer seconds per step)`` over one epoch of ``steps``."""
    data = mnist_like(256, seed=0)
    builder = DataLoaderBuilder(MnistBatcher()).batch_size(32)
    train = builder.shuffle(0).build(SamplerDataset(data, steps * 32, seed=0))
    valid = builder.build(SamplerDataset(data, 32, seed=1))
    with tempfile.TemporaryDirectory() as tmp:
        training = (SupervisedTraining.new(tmp, train, valid).metrics(AccuracyMetric(), LossMetric())
                    .renderer(timed(renderer)).plot(False))
        start = time.perf_counter()
        training.launch(Learner.new(Cnn(Device.cpu()), AdamConfig().init(), 1e-3))
        total = time.perf_counter() - start
    return total / renderer.calls, renderer.spent / renderer.calls


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", type=int, default=200)
    args = parser.parse_args()
    torch.set_num_threads(1)
    from rich.console import Console
    renderers = {
        "rich dashboard": lambda: RichDashboard(Console(file=io.StringIO(), force_terminal=True, width=110, height=30)),
        "plain lines": lambda: PlainRenderer(io.StringIO(), interval_s=10.0),
        "nothing drawn": MetricsRenderer,
    }
    print(f"{'renderer':<16} {'step (ms)':>10} {'display (ms/step)':>18} {'share':>8}")
    for name, make in renderers.items():
        step, spent = run(make(), args.steps)
        print(f"{name:<16} {step * 1e3:>10.2f} {spent * 1e3:>18.4f} {spent / step:>8.2%}")


if __name__ == "__main__":
    main()
