"""Decisions made from the logged metrics: which checkpoints to keep (Burn's checkpointing
strategies) and when to stop early (Burn's early stopping). Both read the metric logs, so a
resumed run decides as the uninterrupted one would."""
from __future__ import annotations

import math
from pathlib import Path

from .logger import epoch_mean, metric_epochs
from .metric import Metric


class Aggregate:
    """How an epoch's entries make one value (Burn's ``Aggregate``): ``MEAN``, the
    count-weighted mean."""

    MEAN = "mean"


class Direction:
    """Which way a metric improves (Burn's ``Direction``): ``LOWEST`` (a loss) or ``HIGHEST``
    (an accuracy)."""

    LOWEST = "lowest"
    HIGHEST = "highest"


class Split:
    """Which split's logs a strategy reads (Burn's ``Split``): ``TRAIN`` or ``VALID``."""

    TRAIN = "train"
    VALID = "valid"


def epoch_values(directory: Path, name: str, split: str, up_to: int) -> dict[int, float]:
    """``{epoch: mean}`` of metric ``name`` in ``split`` for the logged epochs <= ``up_to``
    (the metric found by its name's key, whatever characters the name holds)."""
    return {e: epoch_mean(v) for e, v in metric_epochs(directory, name, split, up_to).items()}


def best_epoch(values: dict[int, float], direction: str) -> int | None:
    finite = {e: v for e, v in values.items() if not math.isnan(v)}
    if not finite:
        return None
    pick = min if direction == Direction.LOWEST else max
    target = pick(finite.values())
    return min(e for e, v in finite.items() if v == target)   # the first epoch reaching it


class CheckpointingStrategy:
    """Which of the saved epochs to keep after saving ``epoch``."""

    def keep(self, directory: Path, epoch: int, saved: list[int]) -> set[int]:
        raise NotImplementedError


class KeepLastNCheckpoints(CheckpointingStrategy):
    """The ``n`` most recent checkpoints."""

    def __init__(self, n: int) -> None:
        if n < 1:
            raise ValueError(f"n must be >= 1, got {n}")
        self.n = n

    def keep(self, directory, epoch, saved):
        return set(sorted(saved)[-self.n:])


class MetricCheckpointingStrategy(CheckpointingStrategy):
    """The checkpoint of the epoch with the best epoch-mean of ``metric`` in ``split``."""

    def __init__(self, metric: Metric, aggregate: str = Aggregate.MEAN, direction: str = Direction.LOWEST,
                 split: str = Split.VALID) -> None:
        self.name, self.direction, self.split = metric.name, direction, split

    def keep(self, directory, epoch, saved):
        best = best_epoch({e: v for e, v in epoch_values(directory, self.name, self.split, epoch).items()
                           if e in saved}, self.direction)
        return set() if best is None else {best}


class ComposedCheckpointingStrategy(CheckpointingStrategy):
    """Keeps what any of its strategies keeps (deletes only what all would delete)."""

    def __init__(self, *strategies: CheckpointingStrategy) -> None:
        self.strategies = strategies

    def keep(self, directory, epoch, saved):
        return set().union(*(s.keep(directory, epoch, saved) for s in self.strategies))


class StoppingCondition:
    """When to stop: ``no_improvement_since`` ``n_epochs`` epochs."""

    def __init__(self, n_epochs: int) -> None:
        if n_epochs < 1:
            raise ValueError(f"n_epochs must be >= 1, got {n_epochs}")
        self.n_epochs = n_epochs

    @classmethod
    def no_improvement_since(cls, n_epochs: int) -> "StoppingCondition":
        return cls(n_epochs)


class EarlyStoppingStrategy:
    """When to end training before ``num_epochs`` (Burn's ``EarlyStoppingStrategy``): a
    subclass implements
    [`should_stop`][burn_torch.train.strategy.EarlyStoppingStrategy.should_stop]."""

    def should_stop(self, directory: Path, epoch: int) -> bool:
        """Whether to stop after epoch ``epoch``, whose logs are under ``directory``."""
        raise NotImplementedError


class MetricEarlyStoppingStrategy(EarlyStoppingStrategy):
    """Stops when the epoch-mean of ``metric`` in ``split`` has not improved on its best for
    ``condition.n_epochs`` epochs (Burn's ``MetricEarlyStoppingStrategy``)."""

    def __init__(self, metric: Metric, aggregate: str = Aggregate.MEAN, direction: str = Direction.LOWEST,
                 split: str = Split.VALID, condition: StoppingCondition | None = None) -> None:
        self.name, self.direction, self.split = metric.name, direction, split
        self.condition = condition or StoppingCondition.no_improvement_since(1)

    def should_stop(self, directory, epoch):
        best = best_epoch(epoch_values(directory, self.name, self.split, epoch), self.direction)
        return best is not None and epoch - best >= self.condition.n_epochs
