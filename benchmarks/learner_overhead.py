"""What the Learner costs over a hand-written loop, on a tiny model (32 iterations an epoch).

The same model (4 → 16 → 3 with dropout, cross entropy; ``tests/training_job.py``'s), data
loaders (batch 16: 32 training and 8 validation batches an epoch) and Adam train for
``--epochs`` epochs several ways, interleaved in one process (round after round, each side in
turn; the minimum over rounds, since load only adds time):

* ``hand loop``: ``for batch in loader: output = model.train_step(batch); model =
  optim.step(lr, model, output.grads)``, then the validation batches through
  ``model.valid().inference_step``: burn_torch eager, the floor of an eager Learner;
* ``torch loop``: the same loop written in plain PyTorch (``torch.nn`` modules of the same
  shapes and initial weights, ``torch.optim.Adam``, ``F.cross_entropy``, ``model.eval()`` and
  ``torch.no_grad()`` for validation) over the same loaders' batches (their torch tensors):
  the loop a PyTorch user writes (its dropout masks come from torch's generator, so its
  weights are not the others');
* ``torch loop + metrics + checkpoints``: the torch loop reading the loss and the accuracy on
  the host every iteration of both splits into per-epoch log files, and saving the model's and
  the optimizer's state every epoch (``torch.save``): what the Learner's metrics and
  checkpoints do, by hand;
* ``Learner, capture(False)``: ``SupervisedTraining.launch`` without metrics or checkpoints,
  every iteration eager;
* ``Learner``: the same launch with its default, captured training iterations;
* ``Learner + metrics + checkpoints``: captured, with ``LossMetric`` and ``AccuracyMetric``
  on both splits (their per-iteration logs) and a ``DefaultRecorder`` checkpoint every epoch.

The Learner runs use the plain renderer into a string and no plot (``plot(False)``); each
launch writes into a fresh folder (all removed at the end, outside the timing). Prints each
side's time per epoch, wall-clock and the training thread's CPU time, its ratio to the hand
loop (targets for the eager Learner: <= 1.05 without metrics, <= 1.15 with metrics and
checkpoints), both of the fastest runs and as the median of each round's paired ratio (on a
loaded machine the two bracket the truth), and its ratio to the torch loop (of the fastest
runs); then how long ``launch`` takes to return with the default ``metrics.png`` on against
off (the plot is drawn off the training thread).

Usage: python benchmarks/learner_overhead.py [--quick] [--epochs N] [--rounds N]
"""
from __future__ import annotations

import argparse
import io
import statistics
import sys
import tempfile
import time
from pathlib import Path

import torch

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))
import training_job as job  # noqa: E402

import torch.nn.functional as F  # noqa: E402

from burn_torch.data import DataLoaderBuilder  # noqa: E402
from burn_torch.data.transform import epoch_seed  # noqa: E402
from burn_torch.optim import AdamConfig  # noqa: E402
from burn_torch.record import DefaultRecorder  # noqa: E402
from burn_torch.train import (AccuracyMetric, LossMetric, PlainRenderer,  # noqa: E402
                              SupervisedTraining, wait_for_plots)


LR = 1e-2


def loaders():
    train, valid = job.datasets(n_train=512, n_valid=128)
    builder = DataLoaderBuilder(job.PairBatcher()).batch_size(16)
    return builder.shuffle(3).build(train), builder.build(valid)


def hand_loop(epochs: int):
    """The loop a user would write by hand: same model, data, optimizer, validation, and the
    Learner's per-epoch seeding (so both train to the same bits)."""
    train, valid = loaders()

    def run():
        model, optim = job.initial_model().train(), AdamConfig().init()
        device = model.devices()[0]
        for epoch in range(epochs):
            seed = epoch_seed(0, epoch + 1)      # dropout masks as the Learner draws them
            torch.manual_seed(seed)
            device.seed(seed)
            train.set_epoch(epoch)
            for batch in train:
                output = model.train_step(batch)
                model = optim.step(LR, model, output.grads)
            inference = model.valid()
            for batch in valid:
                inference.inference_step(batch)
        return model
    return run


class TorchClassifier(torch.nn.Module):
    """``training_job.Classifier`` in plain PyTorch, starting from a Classifier's weights."""

    def __init__(self, burn_model) -> None:
        super().__init__()
        self.fc1, self.fc2 = torch.nn.Linear(4, 16), torch.nn.Linear(16, 3)
        self.dropout = torch.nn.Dropout(0.2)
        with torch.no_grad():    # Burn's Linear weight is [d_input, d_output]: transposed here
            for mine, theirs in ((self.fc1, burn_model.fc1), (self.fc2, burn_model.fc2)):
                mine.weight.copy_(theirs.weight.val().to_torch().t())
                mine.bias.copy_(theirs.bias.val().to_torch())

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.fc2(self.dropout(torch.relu(self.fc1(x))))


def torch_loop(epochs: int, root: Path | None = None):
    """The loop a PyTorch user writes, over the same loaders (their batches' torch tensors).
    With ``root``: it also logs, per iteration of both splits, the loss and the accuracy (as
    ``LossMetric``/``AccuracyMetric`` do: read on the host, one line a file), and saves the
    model's and the optimizer's state every epoch (``torch.save``) into a fresh folder."""
    train, valid = loaders()
    count = iter(range(10 ** 9))

    def run():
        model = TorchClassifier(job.initial_model()).train()
        optim = torch.optim.Adam(model.parameters(), lr=LR)
        folder = None
        if root is not None:
            folder = root / f"torch-{next(count)}"
            folder.mkdir()
        for epoch in range(epochs):
            torch.manual_seed(epoch_seed(0, epoch + 1))
            train.set_epoch(epoch)
            model.train()
            logs: dict[str, list[str]] = {"train": [], "valid": []}
            for batch in train:
                targets = batch.targets.to_torch()
                logits = model(batch.inputs.to_torch())
                loss = F.cross_entropy(logits, targets)
                optim.zero_grad(set_to_none=True)
                loss.backward()
                optim.step()
                if folder is not None:
                    logs["train"].append(_metric_line(loss, logits, targets))
            model.eval()
            with torch.no_grad():
                for batch in valid:
                    targets = batch.targets.to_torch()
                    logits = model(batch.inputs.to_torch())
                    loss = F.cross_entropy(logits, targets)
                    if folder is not None:
                        logs["valid"].append(_metric_line(loss, logits, targets))
            if folder is not None:
                for split, lines in logs.items():
                    (folder / f"{split}-{epoch}.log").write_text("".join(lines))
                torch.save({"model": model.state_dict(), "optim": optim.state_dict()},
                           folder / f"checkpoint-{epoch}.pt")
        return model
    return run


def _metric_line(loss: torch.Tensor, logits: torch.Tensor, targets: torch.Tensor) -> str:
    accuracy = (logits.detach().argmax(1) == targets).double().mean().item() * 100
    return f"{loss.item()},{accuracy},{len(targets)}\n"


def learner_run(epochs: int, root: Path, with_metrics: bool, plot: bool = False, capture: bool = True):
    train, valid = loaders()
    count = iter(range(10 ** 9))

    def run():
        folder = root / f"run-{next(count)}"
        training = (SupervisedTraining.new(folder, train, valid).num_epochs(epochs)
                    .renderer(PlainRenderer(io.StringIO())).plot(plot).capture(capture))
        if with_metrics:
            training = training.metrics(AccuracyMetric(), LossMetric()).with_file_checkpointer(DefaultRecorder())
        start = time.perf_counter()
        model = training.launch(job.learner()).model
        run.seconds = time.perf_counter() - start   # until launch returns
        return model
    return run


def check_same_training(epochs: int, root: Path) -> None:
    """The Learner, captured and eager, trains the hand loop's model: same final weights (the
    guard of the timing)."""
    hand = dict(hand_loop(epochs)().valid().named_params())
    for capture in (True, False):
        learned = dict(learner_run(epochs, root, with_metrics=True, capture=capture)().named_params())
        worst = max((hand[k].val().to_torch() - learned[k].val().to_torch()).abs().max().item()
                    for k in hand)
        assert worst == 0.0, f"the Learner's weights (capture {capture}) differ from the hand loop's by {worst}"


def time_wall_and_cpu(runs, rounds: int) -> tuple[list[list[float]], list[list[float]]]:
    """Seconds of each run of each side, per round: wall-clock and the calling thread's CPU
    time (what the training thread itself spends; waits for the disk are in the wall time
    only). Each round runs every side once in turn, after one warm-up round."""
    for run in runs:
        run()
    wall: list[list[float]] = [[] for _ in runs]
    cpu: list[list[float]] = [[] for _ in runs]
    for _ in range(rounds):
        for i, run in enumerate(runs):
            w, c = time.perf_counter(), time.thread_time()
            run()
            wall[i].append(time.perf_counter() - w)
            cpu[i].append(time.thread_time() - c)
    return wall, cpu


def ratios(times: list[list[float]]) -> list[tuple[float, float, float, float]]:
    """Per side: ``(fastest run, its ratio to the hand loop's fastest, the median over rounds
    of the ratio to the hand loop's run of the same round, its ratio to the torch loop's
    fastest)``; the paired median cancels load that drifts between rounds, the minimum load
    that comes and goes within one. The hand loop is side 0, the torch loop side 1."""
    hand, torch_side = times[0], times[1]
    return [(min(t), min(t) / min(hand), statistics.median(a / b for a, b in zip(t, hand)),
             min(t) / min(torch_side)) for t in times]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="fewer rounds (a smoke run)")
    parser.add_argument("--epochs", type=int, default=4)
    parser.add_argument("--rounds", type=int, default=None)
    args = parser.parse_args()
    torch.set_num_threads(1)
    rounds = args.rounds or (3 if args.quick else 41)
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        check_same_training(args.epochs, root)
        sides = {"hand loop": hand_loop(args.epochs),
                 "torch loop": torch_loop(args.epochs),
                 "torch loop + metrics + checkpoints": torch_loop(args.epochs, root),
                 "Learner, capture(False)": learner_run(args.epochs, root, with_metrics=False, capture=False),
                 "Learner": learner_run(args.epochs, root, with_metrics=False),
                 "Learner + metrics + checkpoints": learner_run(args.epochs, root, with_metrics=True)}
        wall, cpu = time_wall_and_cpu(list(sides.values()), rounds)
        print(f"torch {torch.__version__}, 1 thread, {args.epochs} epochs of 32 + 8 iterations a "
              f"launch, {rounds} interleaved rounds; ratios to the hand loop: of the fastest "
              f"runs (min) and the median of each round's (paired); to the torch loop: of the "
              f"fastest runs (torch)")
        print(f"{'side':<34} {'wall ms/epoch':>13} {'min':>6} {'paired':>7} {'torch':>6} "
              f"{'CPU ms/epoch':>13} {'min':>6} {'paired':>7} {'torch':>6}")
        for name, (w, wr, wp, wt), (c, cr, cp, ct) in zip(sides, ratios(wall), ratios(cpu)):
            print(f"{name:<34} {w / args.epochs * 1e3:>13.2f} {wr:>6.3f} {wp:>7.3f} {wt:>6.3f} "
                  f"{c / args.epochs * 1e3:>13.2f} {cr:>6.3f} {cp:>7.3f} {ct:>6.3f}")
        fastest = {name: min(w) for name, w in zip(sides, wall)}
        for learner, loop in (("Learner", "torch loop"),
                              ("Learner + metrics + checkpoints", "torch loop + metrics + checkpoints")):
            print(f"{learner} / {loop} (wall, fastest): {fastest[learner] / fastest[loop]:.3f}")
        runs = {plot: learner_run(args.epochs, root, with_metrics=True, plot=plot) for plot in (True, False)}
        returns = {True: float("inf"), False: float("inf")}
        for _ in range(3 if args.quick else 11):   # interleaved: on, then off
            for plot, run in runs.items():
                run()
                returns[plot] = min(returns[plot], run.seconds)
                wait_for_plots()
        print(f"launch returns after {returns[True] * 1e3:.1f} ms with metrics.png, "
              f"{returns[False] * 1e3:.1f} ms without")


if __name__ == "__main__":
    main()
