"""Burn's ``CrossEntropyLoss`` (class-index targets) and its config."""
from __future__ import annotations

import math
from typing import Sequence

import torch

from ...autodiff.recorder import apply1
from ...device import Device
from ...dtype import DType, Int
from ...functional.activation import log_softmax
from ...module import Config, Module, module_fields
from ...ops.nn import CROSS_ENTROPY
from ...tensor import Tensor


def _check_smoothing_and_weights(smoothing: float | None, weights: Sequence[float] | None) -> None:
    """Burn's checks of a cross-entropy config: ValueError for a smoothing outside [0, 1] or a
    non-positive class weight."""
    if smoothing is not None and not 0.0 <= smoothing <= 1.0:
        raise ValueError("Alpha of Cross-entropy loss with smoothed labels should be in interval "
                         f"[0, 1]. Got {smoothing}")
    if weights is not None and not all(w > 0 for w in weights):
        raise ValueError("Weights of cross-entropy have to be positive.")


class CrossEntropyLossConfig(Config):
    """Configuration of [`CrossEntropyLoss`][burn_torch.nn.loss.CrossEntropyLoss] (Burn's fields).

    ``pad_tokens``: target values whose rows contribute 0 to the loss but still count in its
    denominator, as Burn (the batch size; with ``weights``, the sum of every row's class
    weight, a pad value that is not a class index weighing 0); a pad value may be any integer
    (``-1``, ``-100``: a target equal to it is never used as an index);
    ``weights``: one positive weight per class (the loss is the weighted mean, as
    ``torch.nn.functional.cross_entropy(weight=...)``); ``smoothing``: label smoothing ``alpha``
    in [0, 1] (targets become ``onehot * (1 - alpha) + alpha / num_classes``); ``logits``:
    whether the inputs are logits (default) or probabilities.
    """

    pad_tokens: tuple[int, ...] | None = None
    weights: tuple[float, ...] | None = None
    smoothing: float | None = None
    logits: bool = True

    def init(self, device: Device) -> "CrossEntropyLoss":
        """The loss; raises ValueError for a smoothing outside [0, 1] or a non-positive weight."""
        _check_smoothing_and_weights(self.smoothing, self.weights)
        weights = None
        if self.weights is not None:
            weights = Tensor.from_floats(list(self.weights), device.without_autodiff(), dtype=DType.F64)
        pads = tuple(self.pad_tokens) if self.pad_tokens is not None else None
        return CrossEntropyLoss(pads, weights, self.smoothing, self.logits)


@module_fields
class CrossEntropyLoss(Module):
    """Cross entropy between ``logits [batch, classes]`` and class indices ``targets [batch]``."""

    pad_tokens: Sequence[int] | None = None
    weights: Tensor | None = None
    smoothing: float | None = None
    logits: bool = True

    def forward(self, logits: Tensor, targets: Tensor) -> Tensor:
        """The mean loss, shape ``[1]``.

        Raises TypeError unless ``targets`` is an Int tensor, ValueError unless ``logits`` is
        ``[batch, classes]`` and ``targets`` is ``[batch]``.
        """
        if targets.kind is not Int:
            raise TypeError(f"CrossEntropyLoss: targets must be class indices (Int), got {targets.kind}")
        shape = logits._data.shape
        if len(shape) != 2 or targets._data.shape != shape[:1]:
            raise ValueError(f"CrossEntropyLoss: expected logits [batch, classes] and targets [batch], "
                             f"got {logits.dims()} and {targets.dims()}")
        batch, classes = shape
        if self.logits and self.weights is None and self.smoothing is None and not self.pad_tokens:
            return apply1(CROSS_ENTROPY, logits, (targets.to_torch(),))  # one fused step
        mask = self._padding_mask(targets)
        outside = None if mask is None else self._outside_classes(targets, classes)
        if outside is not None:  # masked-out rows: any class index serves to gather them
            targets = targets.mask_fill(outside, 0)
        log_probs = self._log_probs(logits)
        weights = None if self.weights is None else self.weights.cast(logits.dtype())
        if self.smoothing is None:
            values = log_probs.gather(1, targets.reshape([batch, 1])).reshape([batch])
            if weights is not None:
                weights = self._row_weights(weights, targets, outside)
                values = values * weights
        else:
            values = log_probs * self._smoothed_targets(logits, targets, classes)
            if weights is not None:
                values = values * weights.reshape([1, classes])
                weights = self._row_weights(weights, targets, outside)
            values = values.sum_dim(1).squeeze_dim(1)
        return self._reduce_mean(values, weights, mask)

    def _log_probs(self, logits: Tensor) -> Tensor:
        if self.logits:
            return log_softmax(logits, 1)
        eps = math.sqrt(torch.finfo(logits.to_torch().dtype).tiny)
        return logits.clamp_min(eps).log()

    def _smoothed_targets(self, logits: Tensor, targets: Tensor, classes: int) -> Tensor:
        alpha: float = self.smoothing  # type: ignore[assignment]  # called only with smoothing set
        onehot = torch.nn.functional.one_hot(targets.to_torch(), classes).to(logits.to_torch().dtype)
        return Tensor.from_data(onehot * (1.0 - alpha) + alpha / classes, logits.device())

    def _padding_mask(self, targets: Tensor) -> Tensor | None:
        if not self.pad_tokens:
            return None
        hits = sum(targets.equal_elem(int(t)).int() for t in self.pad_tokens)
        return hits.bool()  # type: ignore[union-attr]  # a sum of Tensors (pad_tokens is not empty)

    def _outside_classes(self, targets: Tensor, classes: int) -> Tensor | None:
        """The rows whose target is a pad value that is not a class index (None if no pad value
        is outside ``[0, classes)``)."""
        # called only with pad_tokens set (after _padding_mask)
        foreign = [int(t) for t in self.pad_tokens if not 0 <= int(t) < classes]  # type: ignore[union-attr]
        if not foreign:
            return None
        return sum(targets.equal_elem(t).int() for t in foreign).bool()  # type: ignore[union-attr]

    @staticmethod
    def _row_weights(weights: Tensor, targets: Tensor, outside: Tensor | None) -> Tensor:
        """Each row's class weight: a padded row has its pad class's weight, as Burn, or 0 when
        its pad value is not a class index (``outside``; those rows' targets were set to 0)."""
        rows = weights.gather(0, targets)
        return rows if outside is None else rows.mask_fill(outside, 0)

    @staticmethod
    def _reduce_mean(values: Tensor, weights: Tensor | None, mask: Tensor | None) -> Tensor:
        """Burn's normalisation: padded rows contribute 0 to the sum and count in the
        denominator (the batch size, or the sum of the rows' weights)."""
        if mask is not None:
            values = values.mask_fill(mask, 0)
        if weights is None:
            return -values.mean()
        return -values.sum() / weights.sum()
