"""Learning-rate schedulers (Burn's ``burn::lr_scheduler``): the training loop calls ``step()``
once per iteration and passes the returned rate to ``optimizer.step(lr, ...)``.

Each ``XxxConfig(...).init()`` validates the configuration (ValueError with Burn's message)
and returns a scheduler; ``to_record()`` / ``load_record()`` save and restore its position.
"""
from __future__ import annotations

import enum
import math

from ..module import Config


class LrScheduler:
    """Base class: ``step()`` advances and returns the learning rate to use now."""

    _STATE: tuple[str, ...] = ()

    def step(self) -> float:
        raise NotImplementedError

    def to_record(self) -> dict[str, float]:
        """The scheduler's position (a dict of numbers)."""
        return {name: getattr(self, name) for name in self._STATE}

    def load_record(self, record: dict[str, float]) -> "LrScheduler":
        """Restores a position from
        [`to_record`][burn_torch.optim.lr_scheduler.LrScheduler.to_record]; returns this
        scheduler."""
        for name in self._STATE:
            setattr(self, name, record[name])
        return self


class ConstantLr(LrScheduler):
    """Always ``lr`` (a plain float learning rate behaves the same)."""

    def __init__(self, lr: float) -> None:
        self.lr = float(lr)

    def step(self) -> float:
        return self.lr


def _check_initial(lr: float) -> None:
    if not 0.0 < lr <= 1.0:
        raise ValueError("Initial learning rate must be greater than 0 and at most 1")


def _check_iters(n: int) -> None:
    if n < 1:
        raise ValueError("Number of iterations must be at least 1")


class LinearLrScheduler(LrScheduler):
    """``initial_lr`` first, then a constant change per step, reaching ``final_lr`` after
    ``num_iters`` steps and staying there."""

    _STATE = ("remaining_iters",)

    def __init__(self, initial_lr: float, final_lr: float, num_iters: int) -> None:
        self.final_lr = final_lr
        self.step_size = (final_lr - initial_lr) / num_iters
        self.remaining_iters = num_iters + 1

    def step(self) -> float:
        if self.remaining_iters:
            self.remaining_iters -= 1
        return self.final_lr - self.step_size * self.remaining_iters


class LinearLrSchedulerConfig(Config):
    initial_lr: float
    final_lr: float
    num_iters: int

    def init(self) -> LinearLrScheduler:
        _check_initial(self.initial_lr)
        if not 0.0 <= self.final_lr <= 1.0:
            raise ValueError("Final learning rate must be at least 0 and at most 1")
        _check_iters(self.num_iters)
        return LinearLrScheduler(self.initial_lr, self.final_lr, self.num_iters)


class CosineAnnealingLrScheduler(LrScheduler):
    """``min_lr + (initial_lr - min_lr) * (1 + cos(pi * i / num_iters)) / 2`` for
    ``i = 0..num_iters``, then restarts at ``initial_lr`` (SGDR warm restarts)."""

    _STATE = ("current_iter",)

    def __init__(self, initial_lr: float, num_iters: int, min_lr: float) -> None:
        self.max_lr = initial_lr
        self.min_lr = min_lr
        self.num_iters = num_iters
        self.current_iter = -1

    def step(self) -> float:
        self.current_iter = (self.current_iter + 1) % (self.num_iters + 1)
        cos = math.cos(self.current_iter / self.num_iters * math.pi)
        return self.min_lr + 0.5 * (self.max_lr - self.min_lr) * (1.0 + cos)


class CosineAnnealingLrSchedulerConfig(Config):
    initial_lr: float
    num_iters: int
    min_lr: float = 0.0

    def init(self) -> CosineAnnealingLrScheduler:
        _check_initial(self.initial_lr)
        if not 0.0 <= self.min_lr <= self.initial_lr:
            raise ValueError("Minimum learning rate must be at least 0 and at most equal to the "
                             "initial learning rate")
        _check_iters(self.num_iters)
        return CosineAnnealingLrScheduler(self.initial_lr, self.num_iters, self.min_lr)


class StepLrScheduler(LrScheduler):
    """``initial_lr * gamma ** (i // step_size)`` at step ``i`` (from 0)."""

    _STATE = ("iter_idx",)

    def __init__(self, initial_lr: float, step_size: int, gamma: float) -> None:
        self.initial_lr = initial_lr
        self.step_size = step_size
        self.gamma = gamma
        self.iter_idx = -1

    def step(self) -> float:
        self.iter_idx += 1
        return self.initial_lr * self.gamma ** (self.iter_idx // self.step_size)


class StepLrSchedulerConfig(Config):
    initial_lr: float
    step_size: int
    gamma: float = 0.1

    def init(self) -> StepLrScheduler:
        if self.step_size < 1:
            raise ValueError("Step size must be greater than 0")
        return StepLrScheduler(self.initial_lr, self.step_size, self.gamma)


class ExponentialLrScheduler(LrScheduler):
    """``initial_lr * gamma ** i`` at step ``i`` (from 0), computed by repeated products."""

    _STATE = ("previous_lr",)

    def __init__(self, initial_lr: float, gamma: float) -> None:
        self.previous_lr = initial_lr / gamma
        self.gamma = gamma

    def step(self) -> float:
        self.previous_lr *= self.gamma
        return self.previous_lr


class ExponentialLrSchedulerConfig(Config):
    initial_lr: float
    gamma: float

    def init(self) -> ExponentialLrScheduler:
        _check_initial(self.initial_lr)
        if not 0.0 < self.gamma <= 1.0:
            raise ValueError("Gamma must be greater than 0 and at most 1")
        return ExponentialLrScheduler(self.initial_lr, self.gamma)


class NoamLrScheduler(LrScheduler):
    """``factor * model_size^-0.5 * min(s^-0.5, s * warmup_steps^-1.5)`` at step ``s`` (from 1)."""

    _STATE = ("step_count",)

    def __init__(self, factor: float, warmup_steps: int, model_size: int) -> None:
        self.factor = factor
        self.warmup_steps = float(warmup_steps)
        self.model_size = float(model_size)
        self.step_count = 0.0

    def step(self) -> float:
        self.step_count += 1.0
        s = self.step_count
        return self.factor * self.model_size ** -0.5 * min(s ** -0.5, s * self.warmup_steps ** -1.5)


class NoamLrSchedulerConfig(Config):
    factor: float
    warmup_steps: int = 4000
    model_size: int = 512

    def init(self) -> NoamLrScheduler:
        if self.warmup_steps < 1:
            raise ValueError("Number of steps before exponential decay starts must be greater than 0")
        if self.model_size < 1:
            raise ValueError("Model size must be greater than 0")
        return NoamLrScheduler(self.factor, self.warmup_steps, self.model_size)


class SchedulerReduction(enum.Enum):
    """How [`ComposedLrScheduler`][burn_torch.optim.lr_scheduler.ComposedLrScheduler] combines its
    schedulers' rates (Burn's)."""

    AVG = "avg"
    SUM = "sum"
    PROD = "prod"


class ComposedLrScheduler(LrScheduler):
    """Steps every scheduler and combines their rates (average, sum or product)."""

    def __init__(self, schedulers: list[LrScheduler], reduction: SchedulerReduction) -> None:
        self.schedulers = schedulers
        self.reduction = reduction

    def step(self) -> float:
        rates = [s.step() for s in self.schedulers]
        if self.reduction is SchedulerReduction.PROD:
            return math.prod(rates)
        total = 0.0
        for lr in rates:
            total += lr / len(rates) if self.reduction is SchedulerReduction.AVG else lr
        return total

    def to_record(self) -> dict:
        return {"schedulers": [s.to_record() for s in self.schedulers]}

    def load_record(self, record: dict) -> "ComposedLrScheduler":
        for s, r in zip(self.schedulers, record["schedulers"]):
            s.load_record(r)
        return self


class ComposedLrSchedulerConfig(Config):
    """Configuration of [`ComposedLrScheduler`][burn_torch.optim.lr_scheduler.ComposedLrScheduler]
    (Burn's: schedulers added with ``linear``, ``cosine``, ``exponential``, ``noam``; ``reduction``
    defaults to the product)."""

    schedulers: tuple = ()
    reduction: SchedulerReduction = SchedulerReduction.PROD

    def _add(self, config: Config) -> "ComposedLrSchedulerConfig":
        return self.with_schedulers(tuple(self.schedulers) + (config,))

    def linear(self, config: LinearLrSchedulerConfig) -> "ComposedLrSchedulerConfig":
        return self._add(config)

    def cosine(self, config: CosineAnnealingLrSchedulerConfig) -> "ComposedLrSchedulerConfig":
        return self._add(config)

    def exponential(self, config: ExponentialLrSchedulerConfig) -> "ComposedLrSchedulerConfig":
        return self._add(config)

    def noam(self, config: NoamLrSchedulerConfig) -> "ComposedLrSchedulerConfig":
        return self._add(config)

    def init(self) -> ComposedLrScheduler:
        """Initializes every scheduler (ValueError as theirs)."""
        return ComposedLrScheduler([c.init() for c in self.schedulers], self.reduction)


class SequentialLrScheduler(LrScheduler):
    """Runs ``schedulers[k]`` from step ``milestones[k - 1]`` on (each starts fresh when its
    turn comes: only the active scheduler steps)."""

    def __init__(self, schedulers: list[LrScheduler], milestones: list[int]) -> None:
        self.schedulers = schedulers
        self.milestones = list(milestones)
        self.current_step = 0

    def step(self) -> float:
        index = sum(1 for m in self.milestones if self.current_step >= m)
        self.current_step += 1
        return self.schedulers[index].step()

    def to_record(self) -> dict:
        return {"step": self.current_step, "schedulers": [s.to_record() for s in self.schedulers]}

    def load_record(self, record: dict) -> "SequentialLrScheduler":
        self.current_step = record["step"]
        for s, r in zip(self.schedulers, record["schedulers"]):
            s.load_record(r)
        return self


class SequentialLrSchedulerConfig(Config):
    """Configuration of
    [`SequentialLrScheduler`][burn_torch.optim.lr_scheduler.SequentialLrScheduler] (Burn's: one
    milestone fewer than schedulers, milestones positive and strictly increasing)."""

    schedulers: tuple
    milestones: tuple

    def init(self) -> SequentialLrScheduler:
        """ValueError (Burn's messages) for an inconsistent configuration, or as a scheduler's."""
        if not self.schedulers:
            raise ValueError("At least one scheduler is required")
        if len(self.milestones) + 1 != len(self.schedulers):
            raise ValueError("The number of milestones must be one less than the number of "
                             "schedulers")
        ms = list(self.milestones)
        if any(m <= 0 or (i and m <= ms[i - 1]) for i, m in enumerate(ms)):
            raise ValueError("Milestones must be greater than zero and strictly increasing")
        return SequentialLrScheduler([c.init() for c in self.schedulers], ms)
