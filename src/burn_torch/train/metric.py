"""Metrics (Burn's ``burn::train::metric``): each reads its input from a step's output
(see ``.output``) and the iteration's metadata, and returns an entry per iteration.

An entry has a ``formatted`` text for displays and a ``serialized`` form for the metric logs:
``"<value>,<count>"`` (the batch's value and how many items it covers), as Burn writes them.
Numeric metrics also give ``value()`` (the last batch's) and ``running_value()`` (the epoch's
count-weighted mean so far). A user metric subclasses [`Metric`][burn_torch.train.metric.Metric]
(and [`Numeric`][burn_torch.train.metric.Numeric] to be plotted and used for early stopping), sets
``input_type`` and implements ``update``.
"""
from __future__ import annotations

import math
import time
from typing import TYPE_CHECKING, Any, NamedTuple

import numpy as np
import torch

from ..optional import available, missing
from .output import AccuracyInput, LossInput, TopKAccuracyInput, adapt


class MetricMetadata(NamedTuple):
    """Where training is when a metric updates."""

    epoch: int             # 1-based
    epoch_total: int
    iteration: int         # 1-based, within the epoch
    iteration_total: int   # iterations in this epoch
    lr: float | None       # the learning rate of this iteration (None in validation)


class MetricEntry:
    """One iteration's value of a metric (Burn's ``MetricEntry``): its ``name``, the text
    displays show (``formatted``) and the line its log gets (``serialized``, ``"<value>,<count>"``
    for numeric metrics). Entries compare equal when all three are equal."""

    __slots__ = ("name", "_formatted", "_serialized")

    def __init__(self, name: str, formatted: str, serialized: str) -> None:
        self.name = name
        # None in a numeric entry until its text is first read
        self._formatted: str | None = formatted
        self._serialized: str | None = serialized

    @property
    def formatted(self) -> str:
        assert self._formatted is not None
        return self._formatted

    @property
    def serialized(self) -> str:
        assert self._serialized is not None
        return self._serialized

    def __eq__(self, other: object) -> bool:
        return isinstance(other, MetricEntry) and (self.name, self.formatted, self.serialized) == \
            (other.name, other.formatted, other.serialized)

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        return f"MetricEntry({self.name!r}, {self.formatted!r}, {self.serialized!r})"


class _NumericEntry(MetricEntry):
    """A numeric metric's entry: its numbers, turned into text only when read (the log writes
    an epoch's lines in one go; displays read a few entries), so a training iteration formats
    nothing."""

    __slots__ = ("_value", "_count", "_running", "_unit", "_precision")

    def __init__(self, name: str, value: float, count: int, running: float, unit: str, precision: int) -> None:
        self.name, self._formatted, self._serialized = name, None, None
        self._value, self._count, self._running, self._unit, self._precision = value, count, running, unit, precision

    @property
    def formatted(self) -> str:
        if self._formatted is None:
            precision = self._precision
            u = f" {self._unit}" if self._unit else ""
            self._formatted = f"epoch {self._running:.{precision}f}{u} - batch {self._value:.{precision}f}{u}"
        return self._formatted

    @property
    def serialized(self) -> str:
        if self._serialized is None:
            self._serialized = f"{self._value!r},{self._count}"
        return self._serialized


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

    if TYPE_CHECKING:  # what the metric class it is mixed into provides
        name: str
        state: NumericMetricState

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
        return _NumericEntry(name, value, count, self.total / self.count if self.count else math.nan,
                             unit, precision)


class _NumericMetric(Numeric, Metric):
    precision = 4

    def __init__(self) -> None:
        self.state = NumericMetricState()

    def clear(self) -> None:
        self.state.reset()

    def _entry(self, value: float, count: int) -> MetricEntry:
        return self.state.update(self.name, float(value), int(count), self.unit, self.precision)


class LossMetric(_NumericMetric):
    """The loss (mean over its elements, in the loss's dtype, read as a Python float), one
    count per iteration, as Burn's ``LossMetric``."""

    name, input_type = "Loss", LossInput

    def update(self, item: LossInput, metadata):
        loss = item.loss.to_torch()
        return self._entry(loss.item() if loss.numel() == 1 else loss.mean().item(), 1)


class AccuracyMetric(_NumericMetric):
    """Percentage of argmax predictions equal to the targets (Burn's ``AccuracyMetric``).

    ``with_pad_token(t)`` leaves targets equal to ``t`` out of the batch's percentage (hits
    among the other targets over their number) while the batch still counts its full size in
    the epoch mean, as Burn 0.21 counts it: the epoch's value is the batch-size-weighted mean of
    the batches' percentages, not hits over all non-pad targets. A batch of pad targets only
    gives NaN (0/0), as in Burn."""

    name, input_type, unit, higher_is_better, precision = "Accuracy", AccuracyInput, "%", True, 2

    def __init__(self, pad_token: int | None = None) -> None:
        super().__init__()
        self.pad_token = pad_token

    def with_pad_token(self, pad_token: int) -> "AccuracyMetric":
        return AccuracyMetric(pad_token)

    def update(self, item: AccuracyInput, metadata):
        outputs, targets = item.outputs.to_torch(), item.targets.to_torch()
        if targets.dim() != 1:
            targets = targets.reshape(-1)
        batch_size = targets.numel()
        if self.pad_token is None:
            return self._entry(100.0 * _count_hits(outputs, targets) / batch_size, batch_size)
        hits = outputs.argmax(1) == targets
        keep = targets != self.pad_token
        kept = int(keep.sum())
        accuracy = int((hits & keep).sum()) / kept if kept else math.nan
        return self._entry(100.0 * accuracy, batch_size)


_NUMPY_FLOATS = frozenset({torch.float16, torch.float32, torch.float64})


def _count_hits(outputs: torch.Tensor, targets: torch.Tensor) -> int:
    """How many rows of ``outputs`` have their (first) maximum at the target's index. CPU
    tensors numpy can view are counted in numpy (one call instead of four torch dispatches
    per iteration); others with torch."""
    if outputs.device.type == "cpu" and outputs.dtype in _NUMPY_FLOATS and targets.device.type == "cpu":
        return int(np.count_nonzero(outputs.numpy().argmax(1) == targets.numpy()))
    return int((outputs.argmax(1) == targets).sum().item())


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
        import psutil  # type: ignore[import-untyped]  # an optional dependency without its stubs (types-psutil)
        return psutil.cpu_percent(interval=None)


class CpuMemory(_SystemMetric):
    """Memory in use on the machine, in GB (Burn's ``CpuMemory``)."""

    name, unit, precision = "CPU Memory", "Gb", 2

    def read(self) -> float:
        import psutil
        return psutil.virtual_memory().used / 1e9


def is_numeric(metric: Metric) -> bool:
    return isinstance(metric, Numeric)


