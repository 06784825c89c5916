"""Burn's ``Dropout``: zeroes entries at random during training and scales the rest."""
from __future__ import annotations

import math
from typing import Sequence

import torch

from .. import validate
from ..autodiff.recorder import wrap
from ..device import generator
from ..distribution import Distribution
from ..module import Config, Module, TrainingFlag
from ..tensor import Tensor


class DropoutConfig(Config):
    """Configuration of [`Dropout`][burn_torch.nn.dropout.Dropout]: ``prob``, the probability of
    zeroing an entry."""

    prob: float

    def init(self) -> "Dropout":
        """The layer; ValueError unless ``0 <= prob <= 1`` (no device: it has no parameters)."""
        validate.probability("DropoutConfig.init", "prob", self.prob)
        return Dropout(self.prob)


class Dropout(Module):
    """Zeroes each entry with probability ``prob`` and scales the others by ``1 / (1 - prob)``.

    Active only when the input is an autodiff tensor *and* the layer's ``training`` flag is set,
    as Burn's: ``valid()`` and ``no_grad()`` clear the flag (the layer then returns its input
    unchanged) and ``train()`` restores it. The mask is drawn with the input device's generator
    (``Device.seed`` makes it reproducible). With ``prob == 1`` the output is NaN, as Burn's
    (zeros scaled by infinity).
    """

    def __init__(self, prob: float, training: TrainingFlag | None = None) -> None:
        super().__init__()
        self.prob = prob
        self.training = TrainingFlag() if training is None else training

    def is_active(self, input: Tensor) -> bool:
        """Whether [`forward`][burn_torch.nn.dropout.Dropout.forward] would drop entries of
        ``input``: in training, on an autodiff tensor, with a non-zero ``prob``."""
        return self.training.is_training() and input.is_autodiff() and self.prob != 0.0

    def scaled_mask(self, shape: Sequence[int], like: Tensor) -> torch.Tensor:
        """What [`forward`][burn_torch.nn.dropout.Dropout.forward] multiplies an active input of
        ``shape`` with ``like``'s dtype and device by, drawn from the device's generator as forward
        draws it: per entry 0 with probability ``prob``, else ``1 / (1 - prob)`` (a torch
        tensor)."""
        keep = 1.0 - self.prob
        d = like._data
        mask = Distribution.bernoulli(keep).sample(shape, d.dtype, d.device, generator(d.device))
        return mask.mul_(1.0 / keep if keep else math.inf)

    def forward(self, input: Tensor) -> Tensor:
        """The input with dropout applied (unchanged when inactive), same shape."""
        if not self.is_active(input):
            return input
        # the constant mask is scaled first: one recorded step, the values of Burn's
        # ``input * mask * scale`` (every mask entry is 0 or 1)
        return input * wrap(self.scaled_mask(input._data.shape, input), input._ctx)

    def __repr__(self) -> str:
        extra = "" if self.training.is_trainable() else ", training: disabled"
        return f"Dropout {{prob: {self.prob}{extra}}}"
