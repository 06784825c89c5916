"""Burn's ``BinaryCrossEntropyLoss`` (Int 0/1 targets) and its config."""
from __future__ import annotations

import torch

from ...autodiff.recorder import apply1
from ...device import Device
from ...dtype import Int
from ...functional.activation import log_sigmoid
from ...module import Config, Module, module_fields
from ...ops.loss import BCE_WITH_LOGITS
from ...tensor import Tensor
from .cross_entropy import _check_smoothing_and_weights


class BinaryCrossEntropyLossConfig(Config):
    """Configuration of [`BinaryCrossEntropyLoss`][burn_torch.nn.loss.BinaryCrossEntropyLoss]
    (Burn's fields).

    ``weights``: one positive weight per class (``[w_0, w_1]`` for binary targets, one per
    column for multi-label targets); each element's loss is multiplied by its weight and the
    result averaged (as ``torch.nn.functional.binary_cross_entropy(weight=...)``).
    ``smoothing``: label smoothing ``alpha`` in [0, 1] (targets become ``t * (1 - alpha) + alpha
    / num_classes``, with 2 classes for binary targets). ``logits``: whether the inputs are logits
    (a sigmoid is folded in) or probabilities (Burn's default: probabilities).
    """

    weights: tuple[float, ...] | None = None
    smoothing: float | None = None
    logits: bool = False

    def init(self, device: Device) -> "BinaryCrossEntropyLoss":
        """The loss; ValueError for a smoothing outside [0, 1] or a non-positive weight."""
        _check_smoothing_and_weights(self.smoothing, self.weights)
        weights = None
        if self.weights is not None:  # built in float64 from torch: no float32 rounding on the way
            weights = Tensor.from_data(torch.tensor(self.weights, dtype=torch.float64),
                                       device.without_autodiff())
        return BinaryCrossEntropyLoss(weights, self.smoothing, self.logits)


@module_fields
class BinaryCrossEntropyLoss(Module):
    """Binary cross entropy between inputs ``[batch]`` (binary) or ``[batch, classes]``
    (multi-label) and Int 0/1 targets of the same shape, averaged to shape ``[1]``.

    With probabilities the logs are clamped at -100 (as Burn and PyTorch); with logits the loss is
    ``(1 - t) * x - log_sigmoid(x)``.
    """

    weights: Tensor | None = None
    smoothing: float | None = None
    logits: bool = False

    def forward(self, logits: Tensor, targets: Tensor) -> Tensor:
        """The mean loss, shape ``[1]``.

        Raises TypeError unless ``targets`` is an Int tensor, ValueError when the shapes differ or
        multi-label weights do not have one entry per class.
        """
        if targets.kind is not Int:
            raise TypeError(f"BinaryCrossEntropyLoss: targets must be an Int tensor, got {targets.kind}")
        shape = targets.dims()
        if logits.dims() != shape:
            raise ValueError(f"Shape of targets ({shape}) should correspond to outer shape of "
                             f"logits ({logits.dims()}).")
        multi_label = len(shape) > 1
        if multi_label and self.weights is not None and self.weights.dims()[0] != shape[-1]:
            raise ValueError(f"The number of classes ({self.weights.dims()[0]}) does not match the "
                             f"weights provided ({shape[-1]}).")
        t = targets.cast(logits.dtype())
        if self.smoothing is not None:
            num_classes = shape[-1] if multi_label else 2
            t = t * (1.0 - self.smoothing) + self.smoothing / num_classes
        weights = None
        if self.weights is not None:
            weights = self.weights.cast(logits.dtype())
            weights = weights.expand(shape) if multi_label else weights.gather(0, targets)
        if self.logits:
            if logits._data.is_floating_point():  # one step, torch's kernel
                return apply1(BCE_WITH_LOGITS, logits,
                              (t._data, None if weights is None else weights._data))
            loss = (1.0 - t) * logits - log_sigmoid(logits)
        else:
            loss = ((t - 1.0) * (-logits).log1p().clamp_min(-100.0)
                    - t * logits.log().clamp_min(-100.0))
        if weights is not None:
            loss = loss * weights
        return loss.mean()
