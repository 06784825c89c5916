"""Burn's ``Learner`` and ``SupervisedTraining``: the training loop, its metrics, logs,
checkpoints, resume, early stopping, live display and final plot.

::

    training = (SupervisedTraining.new("artifacts", loader_train, loader_valid)
                .metrics(AccuracyMetric(), LossMetric())
                .with_file_checkpointer(CompactRecorder())
                .num_epochs(4))
    result = training.launch(Learner.new(model, AdamConfig().init(), 1e-3))
    result.model            # trained, without autodiff (Burn's inner backend): no .valid() needed

Each epoch: the training loader's batches in the order of its seed and the epoch, for each
``lr = scheduler.step()``, ``output = model.train_step(batch)`` and an optimizer step (every
``k`` batches with ``grads_accumulation(k)``; a partial group at the epoch's end is dropped, as
Burn does); then validation with ``model.valid().inference_step(batch)``; a checkpoint
(encoded now, written to disk by a writer thread while training goes on); the early-stopping
check. Metric entries go to their logs by the epoch (see ``.logger``). The random generators
(``Device.seed`` and torch's) are seeded at each epoch's start from the training seed and the
epoch, so a run resumed with ``.checkpoint(n)`` (a stopped or killed run) trains epochs
``n+1..`` exactly as the uninterrupted run: same batches, same dropout masks, same weights, to
the bit with a full-precision recorder (``CompactRecorder`` rounds the checkpoint to f16).

Training iterations and validation steps run *captured* by default (``.capture(False)`` turns
it off): each iteration's ``model.train_step(batch)`` and optimizer step are one function
passed through [`burn_torch.capture`][burn_torch.capture.capture], and so is each validation
``inference_step`` — recorded on the first calls, then replayed as the torch kernels they ran,
guarded by the arguments' key (shapes, dtypes, the model's structure, the optimizer's rule and
state, the learning rate...) and bit-equal to eager: same weights, optimizer state, metrics and
checkpoints. With ``grads_accumulation`` only ``train_step`` is captured. The first training
iteration (validation step) that cannot be captured (an optimizer rule that is not capturable
such as AdaGrad, a model that changes its own state in training such as ``BatchNorm``'s
running statistics, a batch holding an object written in C, a draw from Python's ``random``
or numpy's global generator...), or recordings (or replays
that saw another host-read value and ran eagerly) outnumbering replays past 8 (a learning rate
that changes on every iteration, a branch on ``loss.into_scalar()``), turns capture off for the
training iterations (validation steps) of the rest of the launch; the reason is written once
to ``experiment.log``.
"""
from __future__ import annotations

import copy
import math
import os
import threading
from pathlib import Path
from typing import Mapping, NamedTuple

import torch

from ..capture import capture as capture_step
from ..data.dataloader import DataLoader, epoch_seed
from ..module import Module
from ..optim import GradientsAccumulator
from ..optim.base import ModuleOptimizer
from ..optim.lr_scheduler import ConstantLr, LrScheduler
from ..record import FileRecorder
from .checkpoint import LearningCheckpointer
from .logger import ExperimentLog, FileMetricLogger, epoch_mean, metric_history, metric_key
from .metric import LossMetric, Metric, MetricMetadata, Numeric
from .output import TrainOutput
from .plot import plot_in_background
from .renderer import MetricsRenderer, TrainingProgress, default_renderer
from .strategy import (ComposedCheckpointingStrategy, CheckpointingStrategy, Direction,
                       EarlyStoppingStrategy, KeepLastNCheckpoints, MetricCheckpointingStrategy,
                       Split)


class Learner:
    """A model, its optimizer and its learning-rate schedule (Burn's ``Learner``)."""

    __slots__ = ("model", "optimizer", "scheduler")

    def __init__(self, model: Module, optimizer: ModuleOptimizer, lr_scheduler: "LrScheduler | float") -> None:
        if not isinstance(model, Module):
            raise TypeError(f"model must be a Module, got {type(model).__name__}")
        if not callable(getattr(optimizer, "step", None)) or not callable(getattr(optimizer, "to_record", None)):
            raise TypeError(f"optimizer must be an optimizer (e.g. AdamConfig().init()), got {type(optimizer).__name__}")
        if isinstance(lr_scheduler, (int, float)) and not isinstance(lr_scheduler, bool):
            lr_scheduler = ConstantLr(float(lr_scheduler))
        if not isinstance(lr_scheduler, LrScheduler):
            raise TypeError(f"the third argument is a learning rate (float) or an LrScheduler, "
                            f"got {type(lr_scheduler).__name__}")
        self.model, self.optimizer, self.scheduler = model, optimizer, lr_scheduler

    @classmethod
    def new(cls, model: Module, optimizer: ModuleOptimizer, lr_scheduler: "LrScheduler | float") -> "Learner":
        return cls(model, optimizer, lr_scheduler)


def _train_output(model: Module, batch) -> TrainOutput:
    """``model.train_step(batch)``; raises TypeError when it is not a TrainOutput."""
    output = model.train_step(batch)  # type: ignore[attr-defined]
    if not isinstance(output, TrainOutput):
        raise TypeError(f"train_step must return a TrainOutput, got {type(output).__name__}")
    return output


def _iteration(model: Module, optimizer: ModuleOptimizer, lr: float, batch) -> tuple:
    """One training iteration without accumulation (the function the Learner captures):
    returns the stepped model and the train step's item."""
    output = _train_output(model, batch)
    return optimizer.step(lr, model, output.grads), output.item


def _grads_and_item(model: Module, batch) -> tuple:
    """One train step (the function the Learner captures with gradient accumulation): returns
    its GradientsParams and its item."""
    output = _train_output(model, batch)
    return output.grads, output.item


def _inference(model: Module, batch):
    """One validation step (the function the Learner captures): ``model.inference_step(batch)``."""
    return model.inference_step(batch)  # type: ignore[attr-defined]


class _Captured:
    """The steps of one kind (``what``: "training iterations", "validation steps") of one
    launch: ``fn`` through ``burn_torch.capture`` while they can be, eagerly from the first
    call that cannot (the reason written once to ``log``). Calling it returns what ``fn``
    returns and raises what ``fn`` raises."""

    RECORDINGS = 8   # recordings (or replays that diverged) beyond this and beyond the replays
                     # turn capture off

    def __init__(self, fn, enabled: bool, what: str, log: ExperimentLog, eager_first: bool = False) -> None:
        self.fn, self.what, self.log = fn, what, log
        self.step = capture_step(fn) if enabled else None
        self.replaying = False
        self.calls = 0      # calls through the captured step
        # the first training iteration creates the optimizer's state: its plan would never
        # serve again, so it runs eagerly without being recorded
        self.eager_first = eager_first

    def __call__(self, *args):
        step = self.step
        if step is None or self.eager_first:
            self.eager_first = False
            return self.fn(*args)
        result = step(*args)
        self.calls += 1
        reason = step.eager_reason
        diverged = self.calls - step.replayed - step.recorded   # replays that ran eagerly
        if reason is None and step.recorded > max(self.RECORDINGS, step.replayed):
            reason = (f"{step.recorded} of {self.calls} calls recorded a new plan (a learning "
                      "rate that changes on every iteration, batches of changing shapes or "
                      "holding other non-tensor values): recording costs more than replay saves")
        elif reason is None and diverged > max(self.RECORDINGS, step.replayed):
            reason = (f"{diverged} of {self.calls} replays read a value on the host (item(), "
                      "float(), a branch on a tensor) that differed from the recording's, and "
                      "ran eagerly: replay costs more than it saves")
        if reason is not None:
            self.log.info(f"{self.what} run eagerly from now on: {reason}")
            self.step = None
        elif step.replayed and not self.replaying:
            self.replaying = True
            self.log.info(f"{self.what} replay captured kernels (burn_torch.capture) after "
                          f"{step.recorded} recorded; capture(False) turns this off")
        return result


class LearningResult(NamedTuple):
    """What ``launch`` returns: the trained model without autodiff, the last epoch trained,
    and a text summary of every numeric metric (min and max epoch means per split)."""

    model: Module
    epoch: int
    summary: str


class Interrupter:
    """Stops a running training at the end of the current iteration (thread-safe). The
    interrupted epoch is neither logged as complete nor checkpointed."""

    def __init__(self) -> None:
        self._event = threading.Event()

    def stop(self) -> None:
        self._event.set()

    def should_stop(self) -> bool:
        return self._event.is_set()

    def reset(self) -> None:
        self._event.clear()


def _default_checkpointing() -> CheckpointingStrategy:
    """Burn's default: the last 2 checkpoints and the one with the lowest mean valid loss."""
    return ComposedCheckpointingStrategy(KeepLastNCheckpoints(2), MetricCheckpointingStrategy(
        LossMetric(), direction=Direction.LOWEST, split=Split.VALID))


class SupervisedTraining:
    """The training configuration (Burn's ``SupervisedTraining``). Every builder method returns
    a new configuration; [`launch`][burn_torch.train.learner.SupervisedTraining.launch] runs it."""

    def __init__(self, artifact_dir: "str | os.PathLike", loader_train: DataLoader, loader_valid: DataLoader) -> None:
        for name, loader in (("loader_train", loader_train), ("loader_valid", loader_valid)):
            if not (hasattr(loader, "__iter__") and callable(getattr(loader, "to_device", None))):
                raise TypeError(f"{name} must be a DataLoader (DataLoaderBuilder(...).build(dataset)), "
                                f"got {type(loader).__name__}")
        self.artifact_dir = Path(artifact_dir)
        self._artifact_dir_text = os.fspath(artifact_dir)   # the title shows it as given
        self.loader_train, self.loader_valid = loader_train, loader_valid
        self._metrics: dict[str, list[Metric]] = {"train": [], "valid": []}
        self._num_epochs = 1
        self._checkpoint: int | None = None
        self._recorder: FileRecorder | None = None
        self._checkpointing: CheckpointingStrategy = _default_checkpointing()
        self._accumulation: int | None = None
        self._early_stopping: EarlyStoppingStrategy | None = None
        self._renderer: MetricsRenderer | None = None
        self._interrupter = Interrupter()
        self._summary = False
        self._seed = 0
        self._plot = True
        self._capture = True

    @classmethod
    def new(cls, artifact_dir, loader_train: DataLoader, loader_valid: DataLoader) -> "SupervisedTraining":
        return cls(artifact_dir, loader_train, loader_valid)

    def _with(self, **changes) -> "SupervisedTraining":
        other = copy.copy(self)
        other._metrics = {k: list(v) for k, v in self._metrics.items()}
        for name, value in changes.items():
            setattr(other, name, value)
        return other

    # ---- builders ---------------------------------------------------------------------
    def metrics(self, *metrics: Metric) -> "SupervisedTraining":
        """Each metric for training (a copy) and for validation."""
        if len(metrics) == 1 and isinstance(metrics[0], tuple):
            metrics = metrics[0]
        other = self
        for metric in metrics:
            other = other.metric_train(copy.deepcopy(metric)).metric_valid(metric)
        return other

    def metric_train(self, metric: Metric) -> "SupervisedTraining":
        return self._add("train", metric)

    def metric_valid(self, metric: Metric) -> "SupervisedTraining":
        return self._add("valid", metric)

    metric_train_numeric = metric_train
    metric_valid_numeric = metric_valid

    def _add(self, split: str, metric: Metric) -> "SupervisedTraining":
        if not isinstance(metric, Metric):
            raise TypeError(f"expected a Metric, got {type(metric).__name__}")
        other = self._with()
        other._metrics[split].append(metric)
        return other

    def num_epochs(self, num_epochs: int) -> "SupervisedTraining":
        if int(num_epochs) < 1:
            raise ValueError(f"num_epochs must be >= 1, got {num_epochs}")
        return self._with(_num_epochs=int(num_epochs))

    def checkpoint(self, epoch: int) -> "SupervisedTraining":
        """Resumes from the checkpoint of ``epoch`` (training continues at ``epoch + 1``)."""
        if int(epoch) < 1:
            raise ValueError(f"checkpoint epochs start at 1, got {epoch}")
        return self._with(_checkpoint=int(epoch))

    def with_file_checkpointer(self, recorder: FileRecorder) -> "SupervisedTraining":
        """Saves ``checkpoint/{model,optim,scheduler}-N`` with ``recorder`` after each epoch."""
        if not isinstance(recorder, FileRecorder):
            raise TypeError(f"expected a file recorder (e.g. CompactRecorder()), got {type(recorder).__name__}")
        return self._with(_recorder=recorder)

    def with_checkpointing_strategy(self, strategy: CheckpointingStrategy) -> "SupervisedTraining":
        return self._with(_checkpointing=strategy)

    def grads_accumulation(self, accumulation: int) -> "SupervisedTraining":
        if int(accumulation) < 1:
            raise ValueError(f"grads_accumulation must be >= 1, got {accumulation}")
        return self._with(_accumulation=int(accumulation))

    def early_stopping(self, strategy: EarlyStoppingStrategy) -> "SupervisedTraining":
        return self._with(_early_stopping=strategy)

    def renderer(self, renderer: MetricsRenderer) -> "SupervisedTraining":
        return self._with(_renderer=renderer)

    def interrupter(self) -> Interrupter:
        return self._interrupter

    def with_interrupter(self, interrupter: Interrupter) -> "SupervisedTraining":
        return self._with(_interrupter=interrupter)

    def summary(self) -> "SupervisedTraining":
        """Prints the metrics summary when training ends."""
        return self._with(_summary=True)

    def seed(self, seed: int) -> "SupervisedTraining":
        """The seed of the per-epoch random generator seeding (default 0)."""
        return self._with(_seed=int(seed))

    def plot(self, enabled: bool = True) -> "SupervisedTraining":
        """Whether ``launch`` writes ``metrics.png`` at the end (default: yes)."""
        return self._with(_plot=bool(enabled))

    def capture(self, enabled: bool = True) -> "SupervisedTraining":
        """Whether training iterations and validation steps run captured (default: yes):
        ``train_step`` and the optimizer step, and ``inference_step``, replayed through
        [`burn_torch.capture`][burn_torch.capture.capture], bit-equal to eager, falling back
        to eager (the reason in ``experiment.log``) when they cannot be (see the module
        docstring); ``capture(False)`` runs every step eagerly (for steps with Python side
        effects replay would skip: printing, counting calls...). Returns the new
        configuration."""
        return self._with(_capture=bool(enabled))

    # ---- the loop ---------------------------------------------------------------------
    def launch(self, learner: Learner) -> LearningResult:
        """Trains; returns the [`LearningResult`][burn_torch.train.learner.LearningResult] once
        every checkpoint is on disk (``metrics.png`` is drawn after, in another process:
        ``wait_for_plots``). Raises RecordError when the checkpoint to resume from is missing or
        corrupt (nothing is trained then), TypeError when the model lacks ``train_step`` /
        ``inference_step``, and the error of a checkpoint that could not be written (OSError)."""
        if not isinstance(learner, Learner):
            raise TypeError(f"launch takes a Learner, got {type(learner).__name__}")
        for method in ("train_step", "inference_step"):
            if not callable(getattr(learner.model, method, None)):
                raise TypeError(f"{type(learner.model).__name__} has no {method}(batch) (TrainStep / InferenceStep)")
        directory = self.artifact_dir
        directory.mkdir(parents=True, exist_ok=True)
        model = learner.model.train()
        device = model.devices()[0] if model.devices() else None
        train = self.loader_train.to_device(device) if device is not None else self.loader_train
        valid = self.loader_valid.to_device(device.inner()) if device is not None else self.loader_valid
        optimizer, scheduler = learner.optimizer, learner.scheduler
        log = ExperimentLog(directory)
        checkpointer = (LearningCheckpointer(self._recorder, directory, self._checkpointing,
                                             on_saved=lambda epoch: log.info(f"checkpoint {epoch} saved"))
                        if self._recorder is not None else None)
        start = 1
        if self._checkpoint is not None:
            if checkpointer is None:
                raise ValueError("checkpoint(n) needs with_file_checkpointer(recorder) (the recorder that saved it)")
            model_record, optim_record, scheduler_record = checkpointer.restore(self._checkpoint, device)
            model = model.load_record(model_record)
            optimizer.load_record(optim_record)
            scheduler.load_record(scheduler_record)
            start = self._checkpoint + 1
            log.info(f"resumed from checkpoint {self._checkpoint} ({checkpointer.parts['model'].path_for_epoch(self._checkpoint)})")
        log.info(f"training epochs {start}..{self._num_epochs} in {self._artifact_dir_text}")
        renderer = self._renderer or default_renderer()
        self._interrupter.reset()  # a stop asked during an earlier launch does not carry over
        loggers = FileMetricLogger(directory)
        iterations = _Captured(_grads_and_item if self._accumulation else _iteration,
                               self._capture, "training iterations", log, eager_first=True)
        validation = _Captured(_inference, self._capture, "validation steps", log)
        last = start - 1
        renderer.start(self._artifact_dir_text, start, self._num_epochs, len(train), len(valid))
        try:
            for epoch in range(start, self._num_epochs + 1):
                rng_seed = epoch_seed(self._seed, epoch)
                torch.manual_seed(rng_seed)
                if device is not None:
                    device.seed(rng_seed)
                model = self._train_epoch(model, optimizer, scheduler, train, epoch, loggers, renderer,
                                          iterations)
                if self._interrupter.should_stop():
                    loggers.discard_epoch("train", epoch)
                    log.info(f"interrupted during epoch {epoch}; it is not checkpointed")
                    break
                self._valid_epoch(model.valid(), valid, epoch, loggers, renderer, validation)
                last = epoch
                if checkpointer is not None:
                    checkpointer.save(epoch, model.into_record(), optimizer.to_record(), scheduler.to_record())
                if self._early_stopping is not None and self._early_stopping.should_stop(directory, epoch):
                    log.info(f"early stopping after epoch {epoch}")
                    break
            if checkpointer is not None:
                checkpointer.close()   # the last checkpoint is on disk when launch returns
        finally:
            if checkpointer is not None:
                checkpointer.close(raise_error=False)   # after an error: wait, keep that error
            loggers.close()
            renderer.close()
        names = {metric_key(m.name): m.name for split in self._metrics.values() for m in split}
        summary = summarize(directory, names)
        if self._summary:
            print(summary)
        log.info(f"training ended after epoch {last}")
        result = LearningResult(model.valid(), last, summary)
        if self._plot:   # the last thing launch does: the drawing's start-up competes for nothing
            plot_in_background(directory, names, log)
        return result

    def _train_epoch(self, model, optimizer, scheduler, loader, epoch, loggers, renderer, iterations):
        metrics = self._metrics["train"]
        for m in metrics:
            m.clear()
        loader.set_epoch(epoch - 1)
        total = len(loader)
        accumulator, pending = (GradientsAccumulator(), 0) if self._accumulation else (None, 0)
        for i, batch in enumerate(loader, 1):
            lr = scheduler.step()
            if accumulator is None:
                model, item = iterations(model, optimizer, lr, batch)
            else:
                grads, item = iterations(model, batch)
                accumulator.accumulate(model, grads)
                pending += 1
                if pending == self._accumulation:
                    model = optimizer.step(lr, model, accumulator.grads())
                    pending = 0
            self._record("train", metrics, item, MetricMetadata(epoch, self._num_epochs, i, total, lr),
                         loggers, renderer)
            if self._interrupter.should_stop():
                return model
        self._end_epoch("train", metrics, epoch, loggers, renderer)
        return model

    def _valid_epoch(self, model, loader, epoch, loggers, renderer, validation) -> None:
        metrics = self._metrics["valid"]
        for m in metrics:
            m.clear()
        loader.set_epoch(epoch - 1)
        total = len(loader)
        for i, batch in enumerate(loader, 1):
            output = validation(model, batch)
            self._record("valid", metrics, output, MetricMetadata(epoch, self._num_epochs, i, total, None),
                         loggers, renderer)
        self._end_epoch("valid", metrics, epoch, loggers, renderer)

    def _record(self, split, metrics, output, metadata, loggers, renderer) -> None:
        entries, loss = [], None
        for metric in metrics:
            entry = metric.update_from_output(output, metadata)
            if entry is None:
                continue
            entries.append(entry)
            loggers.log(split, metadata.epoch, entry)
            if isinstance(metric, LossMetric):
                loss = metric.value()
        renderer.update(TrainingProgress(split, metadata.epoch, metadata.epoch_total, metadata.iteration,
                                         metadata.iteration_total), entries, loss)

    def _end_epoch(self, split, metrics, epoch, loggers, renderer) -> None:
        loggers.end_epoch(split)
        means = {m.name: m.running_value() for m in metrics if isinstance(m, Numeric)}
        renderer.end_epoch(split, epoch, {name: v for name, v in means.items() if not math.isnan(v)})


def summarize(directory: Path, names: "Mapping[str, str] | None" = None) -> str:
    """A table of every logged metric: per split, the lowest and highest epoch mean and their
    epochs. Metrics are shown by ``names[key]`` (their names, keyed by
    [`metric_key`][burn_torch.train.logger.metric_key]) when given, else by their log files'
    stems."""
    names = names or {}
    lines = [f"{'metric':<28} {'split':<6} {'min':>12} {'epoch':>5} {'max':>12} {'epoch':>5}"]
    for key, splits in sorted(metric_history(directory).items()):
        name = names.get(key, key)
        for split, epochs in sorted(splits.items()):
            means = {e: epoch_mean(v) for e, v in epochs.items()}
            lo = min(means, key=lambda e: means[e])
            hi = max(means, key=lambda e: means[e])
            lines.append(f"{name:<28} {split:<6} {means[lo]:>12.4f} {lo:>5} {means[hi]:>12.4f} {hi:>5}")
    return "\n".join(lines)


