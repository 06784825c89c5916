"""What the Learner costs over a hand-written loop, on a tiny model (32 iterations an epoch).

The same model (4 → 16 → 3 with dropout, cross entropy; ``tests/training_job.py``'s), data
loaders (batch 16: 32 training and 8 validation batches an epoch) and Adam train for
``--epochs`` epochs three ways, interleaved in one process (``_harness.time_sides``: round
after round, each side in turn; the minimum over rounds, since load only adds time):

* ``hand loop``: ``for batch in loader: output = model.train_step(batch); model =
  optim.step(lr, model, output.grads)``, then the validation batches through
  ``model.valid().inference_step``: the floor for a Learner;
* ``Learner``: ``SupervisedTraining.launch`` without metrics or checkpoints;
* ``Learner + metrics + checkpoints``: with ``LossMetric`` and ``AccuracyMetric`` on both
  splits (their per-iteration logs) and a ``DefaultRecorder`` checkpoint every epoch.

Both Learner runs use the plain renderer into a string and no plot (``plot(False)``); each
launch writes into a fresh folder (all removed at the end, outside the timing). Prints each
side's time per epoch, wall-clock and the training thread's CPU time, and its ratio to the hand
loop (targets: <= 1.05 without metrics, <= 1.15 with metrics and checkpoints), both of the
fastest runs and as the median of each round's paired ratio (on a loaded machine the two
bracket the truth), then how long ``launch`` takes to return with the default ``metrics.png``
on against off (the plot is drawn off the training thread).

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


def learner_run(epochs: int, root: Path, with_metrics: bool, plot: bool = False):
    train, valid = loaders()
    count = iter(range(10 ** 9))

    def run():
        folder = root / f"run-{next(count)}"
        training = (SupervisedTraining.new(folder, train, valid).num_epochs(epochs)
                    .renderer(PlainRenderer(io.StringIO())).plot(plot))
        if with_metrics:
            training = training.metrics(AccuracyMetric(), LossMetric()).with_file_checkpointer(DefaultRecorder())
        start = time.perf_counter()
        model = training.launch(job.learner()).model
        run.seconds = time.perf_counter() - start   # until launch returns
        return model
    return run


def check_same_training(epochs: int, root: Path) -> None:
    """The Learner trains the hand loop's model: same final weights (the guard of the timing)."""
    hand = hand_loop(epochs)().valid()
    learned = learner_run(epochs, root, with_metrics=True)()
    a, b = dict(hand.named_params()), dict(learned.named_params())
    worst = max((a[k].val().to_torch() - b[k].val().to_torch()).abs().max().item() for k in a)
    assert worst == 0.0, f"the Learner's weights differ from the hand loop's by {worst}"


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


def ratios(times: list[list[float]]) -> list[tuple[float, float, float]]:
    """Per side: ``(fastest run, its ratio to the hand loop's fastest, the median over rounds
    of the ratio to the hand loop's run of the same round)``; the paired median cancels load
    that drifts between rounds, the minimum load that comes and goes within one."""
    hand = times[0]
    return [(min(t), min(t) / min(hand), statistics.median(a / b for a, b in zip(t, hand)))
            for t in times]


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
                 "Learner": learner_run(args.epochs, root, with_metrics=False),
                 "Learner + metrics + checkpoints": learner_run(args.epochs, root, with_metrics=True)}
        wall, cpu = time_wall_and_cpu(list(sides.values()), rounds)
        print(f"torch {torch.__version__}, 1 thread, {args.epochs} epochs of 32 + 8 iterations a "
              f"launch, {rounds} interleaved rounds; ratios to the hand loop: of the fastest "
              f"runs (min) and the median of each round's (paired)")
        print(f"{'side':<32} {'wall ms/epoch':>13} {'min':>6} {'paired':>7} {'CPU ms/epoch':>13} "
              f"{'min':>6} {'paired':>7}")
        for name, (w, wr, wp), (c, cr, cp) in zip(sides, ratios(wall), ratios(cpu)):
            print(f"{name:<32} {w / args.epochs * 1e3:>13.2f} {wr:>6.3f} {wp:>7.3f} "
                  f"{c / args.epochs * 1e3:>13.2f} {cr:>6.3f} {cp:>7.3f}")
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
