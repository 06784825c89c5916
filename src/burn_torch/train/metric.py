"""Metrics (Burn's ``burn::train::metric``): each reads its input from a step's output
(see :mod:`.output`) and the iteration's metadata, and returns an entry per iteration.

An entry has a ``formatted`` text for displays and a ``serialized`` form for the metric logs:
``"<value>,<count>"`` (the batch's value and how many items it covers), as Burn writes them.
Numeric metrics also give ``value()`` (the last batch's) and ``running_value()`` (the epoch's
count-weighted mean so far). A user metric subclasses :class:`Metric` (and :class:`Numeric`
to be plotted and used for early stopping), sets ``input_type`` and implements ``update``.
"""
from __future__ import annotations

import math
import time
from typing import Any, NamedTuple


from ..optional import available, missing
from .output import AccuracyInput, LossInput, TopKAccuracyInput, adapt


class MetricMetadata(NamedTuple):
    """Where training is when a metric updates."""

    epoch: int             # 1-based
    epoch_total: int
    iteration: int         # 1-based, within the epoch
    iteration_total: int   # iterations in this epoch
    lr: float | None       # the learning rate of this iteration (None in validation)


class MetricEntry(NamedTuple):
    name: str
    formatted: str
    serialized: str


class Metric:
    """Base class. ``name`` names the log file (spaces become ``_``); ``input_type`` is what
    ``update`` receives (adapted from the output), or None to receive the raw output."""

    name: str = "Metric"
    input_type: type | None = None

    def update(self, item: Any, metadata: MetricMetadata) -> MetricEntry | None:
        """The entry for one iteration (None: nothing to log this iteration)."""
        raise NotImplementedError

    def clear(self) -> None:
        """Forgets the epoch so far (called at each epoch start)."""

    def update_from_output(self, output: Any, metadata: MetricMetadata) -> MetricEntry | None:
        item = output if self.input_type is None else adapt(output, self.input_type)
        return self.update(item, metadata)


class Numeric:
    """Mixin of metrics with a numeric value: ``value()``, ``running_value()``."""

    higher_is_better = False
    unit = ""

    def value(self) -> float:
        return self.state.current

    def running_value(self) -> float:
        return self.state.running()


class NumericMetricState:
    """An epoch's running, count-weighted mean and its last value (Burn's ``NumericMetricState``)."""

    __slots__ = ("total", "count", "current")

    def __init__(self) -> None:
        self.reset()

    def reset(self) -> None:
        self.total, self.count, self.current = 0.0, 0, math.nan

    def running(self) -> float:
        return self.total / self.count if self.count else math.nan

    def update(self, name: str, value: float, count: int, unit: str = "", precision: int = 4) -> MetricEntry:
        self.total += value * count
        self.count += count
        self.current = value
        u = f" {unit}" if unit else ""
        formatted = f"epoch {self.running():.{precision}f}{u} - batch {value:.{precision}f}{u}"
        return MetricEntry(name, formatted, f"{value!r},{count}")


class _NumericMetric(Numeric, Metric):
    precision = 4

    def __init__(self) -> None:
        self.state = NumericMetricState()

    def clear(self) -> None:
        self.state.reset()

    def _entry(self, value: float, count: int) -> MetricEntry:
        return self.state.update(self.name, float(value), int(count), self.unit, self.precision)


class LossMetric(_NumericMetric):
    """The loss (mean over its elements), one count per iteration, as Burn's ``LossMetric``."""

    name, input_type = "Loss", LossInput

    def update(self, item: LossInput, metadata):
        return self._entry(item.loss.to_torch().detach().double().mean().item(), 1)


class AccuracyMetric(_NumericMetric):
    """Percentage of argmax predictions equal to the targets (Burn's ``AccuracyMetric``);
    ``with_pad_token(t)`` leaves targets equal to ``t`` out."""

    name, input_type, unit, higher_is_better, precision = "Accuracy", AccuracyInput, "%", True, 2

    def __init__(self, pad_token: int | None = None) -> None:
        super().__init__()
        self.pad_token = pad_token

    def with_pad_token(self, pad_token: int) -> "AccuracyMetric":
        return AccuracyMetric(pad_token)

    def update(self, item: AccuracyInput, metadata):
        outputs, targets = item.outputs.to_torch(), item.targets.to_torch().reshape(-1)
        hits = outputs.argmax(1) == targets
        if self.pad_token is not None:
            keep = targets != self.pad_token
            count = int(keep.sum())
            return self._entry(100.0 * int((hits & keep).sum()) / max(count, 1), count)
        return self._entry(100.0 * int(hits.sum()) / targets.numel(), targets.numel())


class TopKAccuracyMetric(_NumericMetric):
    """Percentage of targets among the ``k`` highest outputs (Burn's ``TopKAccuracyMetric``)."""

    input_type, unit, higher_is_better, precision = TopKAccuracyInput, "%", True, 2

    def __init__(self, k: int) -> None:
        if k < 1:
            raise ValueError(f"k must be >= 1, got {k}")
        super().__init__()
        self.k = int(k)
        self.name = f"Top-K Accuracy @ TopK({self.k})"

    def update(self, item: TopKAccuracyInput, metadata):
        outputs, targets = item.outputs.to_torch(), item.targets.to_torch().reshape(-1, 1)
        top = outputs.topk(min(self.k, outputs.shape[1]), dim=1).indices
        return self._entry(100.0 * int((top == targets).any(1).sum()) / targets.numel(), targets.numel())


class LearningRateMetric(_NumericMetric):
    """The learning rate of each training iteration (nothing in validation)."""

    name, precision = "Learning Rate", 6

    def update(self, item, metadata):
        return None if metadata.lr is None else self._entry(metadata.lr, 1)


class _SystemMetric(_NumericMetric):
    """A machine reading, refreshed at most every ``refresh_s`` seconds (cheap per iteration)."""

    refresh_s = 0.5

    def __init__(self) -> None:
        super().__init__()
        if not available("psutil"):
            raise missing("psutil", f"{type(self).__name__} (it reads the machine through psutil)")
        self._last, self._reading = -math.inf, math.nan

    def update(self, item, metadata):
        now = time.monotonic()
        if now - self._last >= self.refresh_s:
            self._reading, self._last = self.read(), now
        return self._entry(self._reading, 1)

    def read(self) -> float:
        raise NotImplementedError


class CpuUse(_SystemMetric):
    """Machine-wide CPU use in percent (Burn's ``CpuUse``)."""

    name, unit, precision = "CPU Usage", "%", 2

    def read(self) -> float:
        import psutil
        return psutil.cpu_percent(interval=None)


class CpuMemory(_SystemMetric):
    """Memory in use on the machine, in GB (Burn's ``CpuMemory``)."""

    name, unit, precision = "CPU Memory", "Gb", 2

    def read(self) -> float:
        import psutil
        return psutil.virtual_memory().used / 1e9


def is_numeric(metric: Metric) -> bool:
    return isinstance(metric, Numeric)


