"""Burn's losses: ``MseLoss``, ``CrossEntropyLoss`` (class-index targets),
``BinaryCrossEntropyLoss`` (Int 0/1 targets) and ``HuberLoss``."""
from __future__ import annotations

import enum
import math
from typing import Sequence

import torch

from ..functional.activation import log_sigmoid, log_softmax
from ..autodiff.recorder import apply1, apply2
from ..ops.loss import BCE_WITH_LOGITS, HUBER_LOSS, MSE_LOSS
from ..ops.nn import CROSS_ENTROPY
from ..device import Device
from ..dtype import DType, Int
from ..module import Config, Module
from ..tensor import Tensor


class Reduction(enum.Enum):
    """How a loss reduces per-element values: ``MEAN``, ``SUM``, ``BATCH_MEAN`` (the sum over
    the batch size, for ``KLDivLoss``) or ``AUTO`` (each loss's default: the mean, except
    ``KLDivLoss``'s batch mean)."""

    MEAN = "mean"
    SUM = "sum"
    BATCH_MEAN = "batch_mean"
    AUTO = "auto"


# torch's codes of the reductions a loss computes in one step (MseLoss, HuberLoss)
_ONE_STEP_REDUCTIONS = {Reduction.MEAN: 1, Reduction.AUTO: 1, Reduction.SUM: 2}


def _one_step_reduction(x, y, reduction) -> int | None:
    """torch's code for ``reduction`` when ``x`` and ``y`` are Float tensors of one dtype and
    shape and the reduction is a mean or a sum (the loss's one-step entry then applies); else
    None (Burn's composed ops, which also report bad arguments)."""
    code = _ONE_STEP_REDUCTIONS.get(reduction) if isinstance(reduction, Reduction) else None
    if (code is not None and isinstance(x, Tensor) and isinstance(y, Tensor)
            and x._data.shape == y._data.shape and x._data.dtype is y._data.dtype
            and x._data.is_floating_point()):
        return code
    return None


def _reduce(values: Tensor, reduction: Reduction, what: str = "this loss") -> Tensor:
    """``values`` summed for ``SUM``, averaged for ``MEAN`` and ``AUTO``: shape ``[1]``.
    Raises ValueError for ``BATCH_MEAN`` (only ``KLDivLoss`` takes it, as Burn) or a value that
    is not a Reduction."""
    if reduction is Reduction.SUM:
        return values.sum()
    if reduction in (Reduction.MEAN, Reduction.AUTO):
        return values.mean()
    raise ValueError(f"{reduction!r} reduction is not supported by {what}")


def _check_smoothing_and_weights(smoothing: float | None, weights: Sequence[float] | None) -> None:
    """Burn's checks of a cross-entropy config: ValueError for a smoothing outside [0, 1] or a
    non-positive class weight."""
    if smoothing is not None and not 0.0 <= smoothing <= 1.0:
        raise ValueError("Alpha of Cross-entropy loss with smoothed labels should be in interval "
                         f"[0, 1]. Got {smoothing}")
    if weights is not None and not all(w > 0 for w in weights):
        raise ValueError("Weights of cross-entropy have to be positive.")


class MseLoss(Module):
    """Mean squared error: ``(logits - targets)^2`` reduced to shape ``[1]``."""

    def forward(self, logits: Tensor, targets: Tensor, reduction: Reduction = Reduction.MEAN) -> Tensor:
        """The reduced loss, shape ``[1]``; ValueError if the shapes differ. Float tensors of one
        dtype and shape reduce in one step (torch's ``mse_loss`` kernels)."""
        code = _one_step_reduction(logits, targets, reduction)
        if code is not None:
            return apply2(MSE_LOSS, logits, targets, (code,))
        return _reduce(self.forward_no_reduction(logits, targets), reduction)

    def forward_no_reduction(self, logits: Tensor, targets: Tensor) -> Tensor:
        """The per-element squared errors, the shape of ``logits``."""
        if logits.dims() != targets.dims():
            raise ValueError(f"MseLoss: logits shape {logits.dims()} != targets shape {targets.dims()}")
        return (logits - targets).square()


class CrossEntropyLossConfig(Config):
    """Configuration of :class:`CrossEntropyLoss` (Burn's fields).

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


class CrossEntropyLoss(Module):
    """Cross entropy between ``logits [batch, classes]`` and class indices ``targets [batch]``."""

    def __init__(self, pad_tokens: Sequence[int] | None = None, weights: Tensor | None = None,
                 smoothing: float | None = None, logits: bool = True) -> None:
        super().__init__()
        self.pad_tokens = pad_tokens
        self.weights = weights
        self.smoothing = smoothing
        self.logits = logits

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
        alpha = self.smoothing
        onehot = torch.nn.functional.one_hot(targets.to_torch(), classes).to(logits.to_torch().dtype)
        return Tensor.from_data(onehot * (1.0 - alpha) + alpha / classes, logits.device())

    def _padding_mask(self, targets: Tensor) -> Tensor | None:
        if not self.pad_tokens:
            return None
        hits = sum(targets.equal_elem(int(t)).int() for t in self.pad_tokens)
        return hits.bool()

    def _outside_classes(self, targets: Tensor, classes: int) -> Tensor | None:
        """The rows whose target is a pad value that is not a class index (None if no pad value
        is outside ``[0, classes)``)."""
        foreign = [int(t) for t in self.pad_tokens if not 0 <= int(t) < classes]
        if not foreign:
            return None
        return sum(targets.equal_elem(t).int() for t in foreign).bool()

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


class BinaryCrossEntropyLossConfig(Config):
    """Configuration of :class:`BinaryCrossEntropyLoss` (Burn's fields).

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


class BinaryCrossEntropyLoss(Module):
    """Binary cross entropy between inputs ``[batch]`` (binary) or ``[batch, classes]``
    (multi-label) and Int 0/1 targets of the same shape, averaged to shape ``[1]``.

    With probabilities the logs are clamped at -100 (as Burn and PyTorch); with logits the loss is
    ``(1 - t) * x - log_sigmoid(x)``.
    """

    def __init__(self, weights: Tensor | None = None, smoothing: float | None = None,
                 logits: bool = False) -> None:
        super().__init__()
        self.weights = weights
        self.smoothing = smoothing
        self.logits = logits

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


class HuberLossConfig(Config):
    """Configuration of :class:`HuberLoss`: ``delta``, where the loss turns from quadratic to
    linear."""

    delta: float

    def init(self) -> "HuberLoss":
        """The loss; ValueError for a negative (or NaN) delta. No device: it has no tensors."""
        if not self.delta >= 0.0:
            raise ValueError("Delta for Huber loss must be a non-negative number.")
        return HuberLoss(self.delta)


class HuberLoss(Module):
    """Huber loss of the residuals ``r = targets - predictions``: ``r^2 / 2`` where ``|r| <=
    delta``, ``delta * |r| - delta^2 / 2`` elsewhere (``lin_bias = delta^2 / 2``)."""

    def __init__(self, delta: float) -> None:
        super().__init__()
        self.delta = delta
        self.lin_bias = delta * delta * 0.5

    def forward(self, predictions: Tensor, targets: Tensor,
                reduction: Reduction = Reduction.MEAN) -> Tensor:
        """The reduced loss, shape ``[1]`` (``AUTO`` is the mean); ValueError if the shapes differ.
        Float tensors of one dtype and shape reduce in one step (torch's ``huber_loss`` kernels)
        when ``delta`` is positive."""
        code = _one_step_reduction(predictions, targets, reduction)
        if code is not None and self.delta > 0:
            return apply2(HUBER_LOSS, predictions, targets, (code, float(self.delta)))
        return _reduce(self.forward_no_reduction(predictions, targets), reduction)

    def forward_no_reduction(self, predictions: Tensor, targets: Tensor) -> Tensor:
        """The per-element losses, the shape of ``predictions``."""
        if predictions.dims() != targets.dims():
            raise ValueError(f"HuberLoss: predictions shape {predictions.dims()} != targets shape "
                             f"{targets.dims()}")
        return self.forward_residuals(targets - predictions)

    def forward_residuals(self, residuals: Tensor) -> Tensor:
        """The per-element losses of ``residuals``; at ``|r| > delta`` the gradient is
        ``delta * sign(r)``."""
        is_large = residuals.abs().greater_elem(self.delta)
        outside = residuals.clamp(-self.delta, self.delta) * residuals - self.lin_bias
        inside = residuals.square() * 0.5
        return inside.mask_where(is_large, outside)
