"""burn_torch.train: the Learner writes Burn's artifact tree, checkpoints and prunes them,
resumes a stopped or killed run to the same bits as an uninterrupted one, rejects a corrupt
checkpoint, accumulates gradients, stops early, and feeds built-in and user metrics."""
from __future__ import annotations

import io
import math
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
import torch

from burn_torch import Device, Tensor
from burn_torch.optim import SgdConfig
from burn_torch.record import DefaultRecorder, RecordError
from burn_torch.train import (AccuracyMetric, ClassificationOutput,
                              KeepLastNCheckpoints, Learner, LossMetric,
                              MetricEarlyStoppingStrategy, MetricMetadata, PlainRenderer,
                              StoppingCondition, TopKAccuracyMetric, latest_checkpoint,
                              read_metric_log, register_adaptor, wait_for_plots)
from burn_torch.train.metric import Metric, Numeric, NumericMetricState

sys.path.insert(0, str(Path(__file__).parent))
import training_job as job  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent


def quiet(training):
    return training.renderer(PlainRenderer(io.StringIO())).plot(False)


def weights(module) -> dict[str, torch.Tensor]:
    return {name: p.val().to_torch().clone() for name, p in module.named_params()}


def tree(directory: Path) -> list[str]:
    return sorted(str(p.relative_to(directory)) for p in directory.rglob("*"))


def test_artifact_tree_is_burns_layout(tmp_path):
    job.training(tmp_path, 2).renderer(PlainRenderer(io.StringIO())).launch(job.learner())
    wait_for_plots()
    epoch_logs = [f"{split}/epoch-{e}/{m}.log" for split in ("train", "valid") for e in (1, 2)
                  for m in ("Accuracy", "Loss")]
    folders = ["train", "valid", "train/epoch-1", "train/epoch-2", "valid/epoch-1", "valid/epoch-2"]
    assert tree(tmp_path) == sorted([
        "checkpoint", *(f"checkpoint/{part}-{e}.mpk" for part in ("model", "optim", "scheduler") for e in (1, 2)),
        "experiment.log", "metrics.png", *folders, *epoch_logs])
    assert (tmp_path / "metrics.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert len(read_metric_log(tmp_path / "train/epoch-1/Loss.log")) == 6       # 96 items / 16
    assert read_metric_log(tmp_path / "valid/epoch-2/Accuracy.log")[0][1] == 16  # "value,count"
    log = (tmp_path / "experiment.log").read_text()
    assert "checkpoint 2 saved" in log and "training ended after epoch 2" in log


def test_launch_returns_the_trained_model_without_autodiff(tmp_path):
    model = job.initial_model()
    result = quiet(job.training(tmp_path, 1)).launch(job.learner(model))
    assert result.epoch == 1
    assert all(not p.val().is_autodiff() for _, p in result.model.named_params())
    assert any(not torch.equal(weights(model)[k], v) for k, v in weights(result.model).items())


def test_old_checkpoints_are_pruned(tmp_path):
    quiet(job.training(tmp_path, 4).with_checkpointing_strategy(KeepLastNCheckpoints(2))).launch(job.learner())
    assert sorted(p.name for p in (tmp_path / "checkpoint").iterdir()) == [
        "model-3.mpk", "model-4.mpk", "optim-3.mpk", "optim-4.mpk", "scheduler-3.mpk", "scheduler-4.mpk"]


def test_a_stopped_run_resumed_from_its_checkpoint_equals_an_uninterrupted_run(tmp_path):
    model = job.initial_model()
    straight = quiet(job.training(tmp_path / "straight", 3)).launch(job.learner(model))
    quiet(job.training(tmp_path / "stopped", 1)).launch(job.learner(model))
    resumed = quiet(job.training(tmp_path / "stopped", 3).checkpoint(1)).launch(job.learner(model))
    a, b = weights(straight.model), weights(resumed.model)
    assert all(torch.equal(a[k], b[k]) for k in a)  # bit for bit
    for epoch in (2, 3):
        for split in ("train", "valid"):
            assert (tmp_path / f"straight/{split}/epoch-{epoch}/Loss.log").read_text() == \
                (tmp_path / f"stopped/{split}/epoch-{epoch}/Loss.log").read_text()
    assert "resumed from checkpoint 1" in (tmp_path / "stopped/experiment.log").read_text()


def test_resuming_with_two_workers_equals_an_uninterrupted_run_without_workers(tmp_path):
    model = job.initial_model()
    straight = quiet(job.training(tmp_path / "straight", 2)).launch(job.learner(model))
    quiet(job.training(tmp_path / "stopped", 1, workers=2)).launch(job.learner(model))
    resumed = quiet(job.training(tmp_path / "stopped", 2, workers=2).checkpoint(1)).launch(job.learner(model))
    a, b = weights(straight.model), weights(resumed.model)
    assert all(torch.equal(a[k], b[k]) for k in a)


def _env() -> dict[str, str]:
    return {**os.environ, "PYTHONPATH": str(ROOT / "src"), "OMP_NUM_THREADS": "1"}


def test_a_killed_run_resumes_from_its_last_complete_checkpoint(tmp_path):
    script = str(Path(__file__).parent / "training_job.py")
    killed = tmp_path / "killed"
    proc = subprocess.Popen([sys.executable, script, str(killed), "50", "--slow"], env=_env(),
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    try:
        deadline = time.monotonic() + 60
        while not (killed / "checkpoint" / "scheduler-1.mpk").exists():
            assert proc.poll() is None, proc.stderr.read().decode()
            assert time.monotonic() < deadline, "no checkpoint within 60 s"
            time.sleep(0.05)
    finally:
        proc.send_signal(signal.SIGKILL)
        proc.wait()
    last = latest_checkpoint(killed, DefaultRecorder())
    assert last is not None and last < 50
    resumed = quiet(job.training(killed, last + 1).checkpoint(last)).launch(job.learner())
    straight = quiet(job.training(tmp_path / "straight", last + 1)).launch(job.learner())
    a, b = weights(straight.model), weights(resumed.model)
    assert all(torch.equal(a[k], b[k]) for k in a)


def test_a_corrupt_checkpoint_is_rejected_and_nothing_is_trained(tmp_path):
    quiet(job.training(tmp_path, 1)).launch(job.learner())
    model_file = tmp_path / "checkpoint" / "model-1.mpk"
    raw = bytearray(model_file.read_bytes())
    raw[len(raw) // 2] ^= 0xFF
    model_file.write_bytes(bytes(raw))
    with pytest.raises(RecordError, match="model-1.mpk"):
        quiet(job.training(tmp_path, 2).checkpoint(1)).launch(job.learner())
    assert not (tmp_path / "train" / "epoch-2").exists()


def test_resuming_needs_the_checkpoint_to_exist(tmp_path):
    with pytest.raises(RecordError, match="no such record file"):
        quiet(job.training(tmp_path, 3).checkpoint(2)).launch(job.learner())


def test_gradient_accumulation_steps_once_per_k_batches(tmp_path):
    # SGD on the sum of 2 batch-mean gradients of 8 items = SGD with twice the rate on 16 items
    from burn_torch.data import DataLoaderBuilder
    from burn_torch.train import SupervisedTraining
    train, valid = job.datasets()

    def run(name, batch, lr, accumulation=None):
        builder = DataLoaderBuilder(job.PairBatcher()).batch_size(batch)
        training = SupervisedTraining.new(tmp_path / name, builder.build(train), builder.build(valid))
        if accumulation:
            training = training.grads_accumulation(accumulation)
        learner = Learner.new(job.initial_model(dropout=0.0), SgdConfig().init(), lr)
        return weights(quiet(training).launch(learner).model)

    accumulated, plain = run("accumulated", 8, 0.05, accumulation=2), run("plain", 16, 0.1)
    single = run("single", 8, 0.05)
    assert all(torch.allclose(accumulated[k], plain[k], atol=1e-6) for k in plain)
    assert not all(torch.allclose(single[k], plain[k], atol=1e-4) for k in plain)


def test_early_stopping_stops_when_the_valid_loss_stops_improving(tmp_path):
    stop = MetricEarlyStoppingStrategy(LossMetric(), condition=StoppingCondition.no_improvement_since(1))
    learner = Learner.new(job.initial_model(), SgdConfig().init(), 0.0)  # never improves
    result = quiet(job.training(tmp_path, 6).early_stopping(stop)).launch(learner)
    assert result.epoch == 2
    assert "early stopping after epoch 2" in (tmp_path / "experiment.log").read_text()


def _meta() -> MetricMetadata:
    return MetricMetadata(1, 1, 1, 1, None)


def test_accuracy_and_top_k_metrics_count_hits():
    cpu = Device.cpu()
    logits = Tensor.from_data([[0.1, 0.7, 0.2], [0.5, 0.3, 0.2], [0.2, 0.3, 0.5], [0.6, 0.3, 0.1]], cpu)
    targets = Tensor.from_ints([1, 1, 2, 2], cpu)
    output = ClassificationOutput(Tensor.from_data([0.0], cpu), logits, targets)
    acc, top2 = AccuracyMetric(), TopKAccuracyMetric(2)
    assert acc.update_from_output(output, _meta()).serialized == "50.0,4"
    assert top2.update_from_output(output, _meta()).serialized == "75.0,4"
    assert AccuracyMetric(pad_token=2).update_from_output(output, _meta()).serialized == "50.0,4"


def test_accuracy_with_a_pad_token_weights_each_batch_by_its_size_as_burn_does():
    cpu = Device.cpu()
    acc = AccuracyMetric().with_pad_token(0)

    def batch(predicted, targets):
        logits = torch.nn.functional.one_hot(torch.tensor(predicted), 3).float()
        return ClassificationOutput(Tensor.from_data([0.0], cpu), Tensor.from_data(logits, cpu),
                                    Tensor.from_ints(targets, cpu))

    assert acc.update_from_output(batch([1, 2, 1, 1], [1, 1, 0, 0]), _meta()).serialized == "50.0,4"
    assert acc.update_from_output(batch([2, 1], [2, 1]), _meta()).serialized == "100.0,2"
    # Burn: (50 * 4 + 100 * 2) / 6, not the 3 hits among 4 non-pad targets (75 %)
    assert acc.running_value() == pytest.approx(200 / 3)
    assert math.isnan(float(acc.update_from_output(batch([1], [0]), _meta()).serialized.split(",")[0]))


class AbsErrorInput:
    def __init__(self, error: float, count: int) -> None:
        self.error, self.count = error, count


class MeanAbsError(Numeric, Metric):
    """A user metric: reads its own input type, adapted from the built-in output."""

    name, input_type = "Mean Abs Error", AbsErrorInput

    def __init__(self) -> None:
        self.state = NumericMetricState()

    def clear(self) -> None:
        self.state.reset()

    def update(self, item, metadata):
        return self.state.update(self.name, item.error, item.count)


def test_user_metric_through_a_registered_adaptor(tmp_path):
    def adapt(output: ClassificationOutput) -> AbsErrorInput:
        predicted = output.output.to_torch().argmax(1)
        wrong = (predicted != output.targets.to_torch()).double()
        return AbsErrorInput(wrong.mean().item(), wrong.numel())

    register_adaptor(ClassificationOutput, AbsErrorInput, adapt)
    quiet(job.training(tmp_path, 1).metrics(MeanAbsError())).launch(job.learner())
    errors = read_metric_log(tmp_path / "valid/epoch-1/Mean_Abs_Error.log")
    accuracy = read_metric_log(tmp_path / "valid/epoch-1/Accuracy.log")
    assert [round(e, 6) for e, _ in errors] == [round(1 - a / 100, 6) for a, _ in accuracy]


def test_a_metric_the_output_cannot_feed_is_a_clear_type_error():
    class Other:
        pass
    with pytest.raises(TypeError, match="register_adaptor"):
        AccuracyMetric().update_from_output(Other(), _meta())


def test_plain_renderer_prints_epoch_lines(tmp_path):
    out = io.StringIO()
    job.training(tmp_path, 1).renderer(PlainRenderer(out)).plot(False).launch(job.learner())
    text = out.getvalue()
    assert "[train] epoch 1 done" in text and "[valid] epoch 1 done" in text and "Loss" in text


def test_builders_return_new_configurations(tmp_path):
    base = job.training(tmp_path, 1)
    assert base.num_epochs(3) is not base and base.metrics(LossMetric()) is not base
    with pytest.raises(ValueError):
        base.num_epochs(0)
    with pytest.raises(TypeError):
        Learner.new(job.initial_model(), SgdConfig().init(), "fast")


class StopAt(Metric):
    """Asks the interrupter to stop at one iteration (as a dashboard's stop key would)."""

    def __init__(self, interrupter, epoch: int, iteration: int) -> None:
        self.interrupter, self.at = interrupter, (epoch, iteration)

    def update(self, item, metadata):
        if (metadata.epoch, metadata.iteration) == self.at:
            self.interrupter.stop()
        return None


def test_an_interrupted_epoch_is_neither_logged_nor_checkpointed(tmp_path):
    training = quiet(job.training(tmp_path, 3))
    training = training.metric_train(StopAt(training.interrupter(), 2, 3))
    result = training.launch(job.learner())
    assert result.epoch == 1
    assert latest_checkpoint(tmp_path, DefaultRecorder()) == 1
    assert not (tmp_path / "train" / "epoch-2").exists()
    assert "interrupted during epoch 2" in (tmp_path / "experiment.log").read_text()


class ScoreByEpoch(Numeric, Metric):
    """A validation metric named with an underscore whose epoch value is set per epoch."""

    name = "val_score"

    def __init__(self, by_epoch: dict[int, float]) -> None:
        self.by_epoch, self.state = by_epoch, NumericMetricState()

    def clear(self) -> None:
        self.state.reset()

    def update(self, item, metadata):
        return self.state.update(self.name, self.by_epoch[metadata.epoch], 1)


def test_a_metric_named_with_an_underscore_stops_early_and_keeps_its_best_checkpoint(tmp_path):
    from burn_torch.train import (ComposedCheckpointingStrategy, Direction,
                                  MetricCheckpointingStrategy)
    score = ScoreByEpoch({1: 0.5, 2: 0.9, 3: 0.7, 4: 0.6, 5: 0.95, 6: 0.99})
    best = MetricCheckpointingStrategy(score, direction=Direction.HIGHEST)
    training = (quiet(job.training(tmp_path, 6)).metric_valid(score)
                .with_checkpointing_strategy(ComposedCheckpointingStrategy(KeepLastNCheckpoints(1), best))
                .early_stopping(MetricEarlyStoppingStrategy(
                    score, direction=Direction.HIGHEST, condition=StoppingCondition.no_improvement_since(2))))
    result = training.launch(job.learner())
    assert result.epoch == 4                      # best at 2, no improvement in 3 and 4
    assert sorted(p.name for p in (tmp_path / "checkpoint").glob("model-*")) == ["model-2.mpk", "model-4.mpk"]
    assert "val_score" in result.summary and "val score" not in result.summary


def test_metric_logs_are_appended_per_iteration_and_a_resumed_epoch_rewrites_its_log(tmp_path):
    # a killed run left a partial log of epoch 2; training epoch 2 again replaces it
    quiet(job.training(tmp_path, 1)).launch(job.learner())
    stale = tmp_path / "train" / "epoch-2" / "Loss.log"
    stale.parent.mkdir(parents=True)
    stale.write_text("99.0,1\n" * 50)
    quiet(job.training(tmp_path, 2).checkpoint(1)).launch(job.learner())
    assert len(read_metric_log(stale)) == 6 and all(v < 99 for v, _ in read_metric_log(stale))
    log = (tmp_path / "experiment.log").read_text().splitlines()
    assert sum("training ended" in line for line in log) == 2     # both runs' lines kept


def test_metric_log_lines_are_written_in_batches_in_iteration_order(tmp_path):
    from burn_torch.train.logger import FileMetricLogger
    logger = FileMetricLogger(tmp_path)
    logger.FLUSH_LINES = 3
    state = NumericMetricState()
    log = tmp_path / "train" / "epoch-1" / "Loss.log"
    for value in (0.5, 0.25, 0.125, 1.0):
        logger.log("train", 1, state.update("Loss", value, 1))
    assert read_metric_log(log) == [(0.5, 1), (0.25, 1), (0.125, 1)]   # a full batch is on disk
    logger.end_epoch("train")
    assert read_metric_log(log) == [(0.5, 1), (0.25, 1), (0.125, 1), (1.0, 1)]


def test_an_interrupted_epochs_waiting_log_lines_are_dropped(tmp_path):
    from burn_torch.train.logger import FileMetricLogger
    logger = FileMetricLogger(tmp_path)
    logger.log("train", 1, NumericMetricState().update("Loss", 0.5, 1))
    logger.discard_epoch("train", 1)
    logger.close()
    assert not (tmp_path / "train" / "epoch-1").exists()


def test_the_title_shows_the_artifact_directory_as_given(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    out = io.StringIO()
    job.training("./runs/a", 1).renderer(PlainRenderer(out)).plot(False).launch(job.learner())
    assert out.getvalue().startswith("training ./runs/a:")


def test_metrics_png_is_drawn_after_launch_returns(tmp_path):
    from burn_torch.train import wait_for_plots
    training = job.training(tmp_path, 1).renderer(PlainRenderer(io.StringIO()))
    training.launch(job.learner())
    assert wait_for_plots(timeout=120)
    assert (tmp_path / "metrics.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert "metrics plotted in metrics.png" in (tmp_path / "experiment.log").read_text()


def test_a_checkpoint_that_cannot_be_written_fails_the_launch(tmp_path):
    (tmp_path / "checkpoint").write_text("a file where the checkpoint folder goes")
    with pytest.raises(OSError):
        quiet(job.training(tmp_path, 2)).launch(job.learner())


def test_checkpoints_are_on_disk_and_pruned_when_launch_returns(tmp_path):
    quiet(job.training(tmp_path, 4).with_checkpointing_strategy(KeepLastNCheckpoints(1))).launch(job.learner())
    assert sorted(p.name for p in (tmp_path / "checkpoint").iterdir()) == \
        ["model-4.mpk", "optim-4.mpk", "scheduler-4.mpk"]
    log = (tmp_path / "experiment.log").read_text()
    assert all(f"checkpoint {e} saved" in log for e in range(1, 5))


@pytest.mark.parametrize("dtype", [torch.float32, torch.float64, torch.bfloat16])
def test_accuracy_counts_the_first_maximum_as_torch_argmax_does(dtype):
    from burn_torch.train.metric import _count_hits
    outputs = torch.tensor([[1.0, 1.0, 0.0], [0.0, 2.0, 2.0], [float("nan"), 1.0, 0.0], [0.5, 0.1, 0.9]]).to(dtype)
    for targets in ([0, 1, 0, 2], [1, 2, 1, 0]):
        t = torch.tensor(targets)
        assert _count_hits(outputs, t) == int((outputs.argmax(1) == t).sum())


def test_plot_metrics_draws_in_this_process_too(tmp_path):
    from burn_torch.train import plot_metrics
    quiet(job.training(tmp_path, 1)).launch(job.learner())
    written = plot_metrics(tmp_path, "again.png", names={"Loss": "loss (mean)"})
    assert written == tmp_path / "again.png" and written.read_bytes()[:4] == b"\x89PNG"
    assert plot_metrics(tmp_path / "train" / "epoch-1") is None       # no metric logs there


def test_without_matplotlib_the_log_says_there_is_no_plot(tmp_path, monkeypatch):
    import burn_torch.train.plot as plot
    monkeypatch.setattr(plot, "available", lambda package: package != "matplotlib")
    job.training(tmp_path, 1).renderer(PlainRenderer(io.StringIO())).launch(job.learner())
    assert wait_for_plots(timeout=60)
    assert not (tmp_path / "metrics.png").exists()
    assert "matplotlib is not installed: no metrics plot" in (tmp_path / "experiment.log").read_text()
