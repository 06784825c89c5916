"""Burn's remaining losses (``burn::nn::loss``), each a config with Burn's fields and defaults
(``XxxConfig(...).init()``, no device: they hold no tensors) and a module whose
``forward(..., reduction)`` reduces to shape ``[1]`` and whose ``forward_no_reduction`` keeps the
per-element (or per-sample) values. Each is Burn's composition of burn_torch ops, so gradients
follow Burn's rules; ``CTCLoss`` is one op (torch's CTC kernels).

``Reduction.AUTO`` is the mean, except for ``KLDivLoss`` (the batch mean, Burn's default there);
``Reduction.BATCH_MEAN`` is accepted by ``KLDivLoss`` only (ValueError elsewhere, as Burn panics).
"""
from __future__ import annotations

import math
from typing import Sequence

import torch

from ..dtype import Int
from ..functional.activation import relu, softplus
from ..functional.ctc import ctc_loss
from ..module import Config, Module
from ..tensor import Tensor
from .distance import cosine_similarity, lp_norm
from .loss import Reduction, _reduce

_HALF_LN_TWO_PI = 0.5 * math.log(2.0 * math.pi)


def _same_shape(what: str, *tensors: Tensor) -> None:
    shapes = [t.dims() for t in tensors]
    if any(s != shapes[0] for s in shapes):
        raise ValueError(f"{what}: the inputs must have the same shape, got {shapes}")


class _Loss(Module):
    """A loss whose ``forward`` is ``forward_no_reduction`` reduced (``AUTO`` is the mean)."""

    def forward(self, *inputs, reduction: Reduction = Reduction.AUTO) -> Tensor:
        if inputs and isinstance(inputs[-1], Reduction):
            inputs, reduction = inputs[:-1], inputs[-1]
        return _reduce(self.forward_no_reduction(*inputs), reduction, type(self).__name__)

    def __repr__(self) -> str:
        fields = ", ".join(f"{k}: {v}" for k, v in vars(self).items() if not k.startswith("_"))
        return f"{type(self).__name__} {{{fields}}}" if fields else type(self).__name__


# -- cosine embedding ------------------------------------------------------------------------------
class CosineEmbeddingLossConfig(Config):
    """Burn's fields: ``margin`` (0.0) and the ``reduction`` ``forward`` applies (MEAN)."""

    margin: float = 0.0
    reduction: Reduction = Reduction.MEAN

    def init(self) -> "CosineEmbeddingLoss":
        return CosineEmbeddingLoss(self.margin, self.reduction)


class CosineEmbeddingLoss(Module):
    """``1 - cos(x1, x2)`` where the target is 1, ``max(0, cos(x1, x2) - margin)`` where it is
    -1, 0 elsewhere; the cosine over dim 1 of ``[batch, features]`` inputs, with Burn's
    default epsilon (the dtype's smallest normal)."""

    def __init__(self, margin: float = 0.0, reduction: Reduction = Reduction.MEAN) -> None:
        super().__init__()
        self.margin = margin
        self.reduction = reduction

    def forward(self, input1: Tensor, input2: Tensor, target: Tensor) -> Tensor:
        """Reduced with the config's ``reduction``: shape ``[1]``."""
        return _reduce(self.forward_no_reduction(input1, input2, target), self.reduction,
                       "CosineEmbeddingLoss")

    def forward_no_reduction(self, input1: Tensor, input2: Tensor, target: Tensor) -> Tensor:
        """Per sample, ``[batch]``. TypeError unless ``target`` is Int; ValueError unless the
        inputs are ``[batch, features]`` alike and the target ``[batch]``."""
        if target.kind is not Int:
            raise TypeError(f"CosineEmbeddingLoss: target must be an Int tensor, got {target.kind}")
        if input1.rank() != 2 or input1.dims() != input2.dims() \
                or target.dims() != input1.dims()[:1]:
            raise ValueError(f"CosineEmbeddingLoss: expected inputs [batch, features] and target "
                             f"[batch], got {input1.dims()}, {input2.dims()} and {target.dims()}")
        cos = cosine_similarity(input1, input2, 1).squeeze_dim(1)
        loss = cos.zeros_like().mask_where(target.equal_elem(1), 1.0 - cos)
        return loss.mask_where(target.equal_elem(-1), relu(cos - self.margin))

    def __repr__(self) -> str:
        return f"CosineEmbeddingLoss {{margin: {self.margin}, reduction: {self.reduction}}}"


# -- Gaussian negative log-likelihood --------------------------------------------------------------
class GaussianNLLLossConfig(Config):
    eps: float = 1e-6
    full: bool = False

    def init(self) -> "GaussianNLLLoss":
        return GaussianNLLLoss(self.eps, self.full)


class GaussianNLLLoss(_Loss):
    """``(log(var') + (input - target)^2 / var') / 2`` with ``var' = clamp_min(var, eps)`` (Burn's
    clamp: no gradient for ``var`` where it is below ``eps``), plus ``log(2 pi) / 2`` when
    ``full``. ``forward(input, target, var, reduction)``."""

    def __init__(self, eps: float = 1e-6, full: bool = False) -> None:
        super().__init__()
        self.eps = eps
        self.full = full

    def forward_no_reduction(self, input: Tensor, target: Tensor, var: Tensor) -> Tensor:
        _same_shape("GaussianNLLLoss", input, target, var)
        var = var.clamp_min(self.eps)
        loss = (var.log() + (input - target).square() / var) * 0.5
        return loss + _HALF_LN_TWO_PI if self.full else loss


# -- hinge embedding -------------------------------------------------------------------------------
class HingeEmbeddingLossConfig(Config):
    margin: float = 1.0

    def init(self) -> "HingeEmbeddingLoss":
        return HingeEmbeddingLoss(self.margin)


class HingeEmbeddingLoss(_Loss):
    """``input`` where the (Float) target is 1, ``max(0, margin - input)`` elsewhere.
    ``forward(input, target, reduction)``."""

    def __init__(self, margin: float = 1.0) -> None:
        super().__init__()
        self.margin = margin

    def forward_no_reduction(self, input: Tensor, target: Tensor) -> Tensor:
        _same_shape("HingeEmbeddingLoss", input, target)
        negative = (self.margin - input).clamp_min(0.0)
        return negative.mask_where(target.equal_elem(1), input)


# -- Kullback-Leibler divergence -------------------------------------------------------------------
class KLDivLossConfig(Config):
    log_target: bool = False

    def init(self) -> "KLDivLoss":
        return KLDivLoss(self.log_target)


class KLDivLoss(_Loss):
    """``target * (log(target) - predictions)`` (predictions are log-probabilities; the target's
    log is of ``clamp(target, tiny, 1)``), or ``exp(target) * (target - predictions)`` with
    ``log_target``. ``forward(predictions, targets, reduction)``: ``AUTO`` and ``BATCH_MEAN``
    divide the sum by the size of dim 0 (Burn's default; torch's default is the mean)."""

    def __init__(self, log_target: bool = False) -> None:
        super().__init__()
        self.log_target = log_target

    def forward(self, predictions: Tensor, targets: Tensor,
                reduction: Reduction = Reduction.AUTO) -> Tensor:
        loss = self.forward_no_reduction(predictions, targets)
        if reduction in (Reduction.AUTO, Reduction.BATCH_MEAN):
            return loss.sum() / float(loss.dims()[0])
        return _reduce(loss, reduction, "KLDivLoss")

    def forward_no_reduction(self, predictions: Tensor, targets: Tensor) -> Tensor:
        _same_shape("KLDivLoss", predictions, targets)
        if self.log_target:
            return targets.exp() * (targets - predictions)
        tiny = torch.finfo(targets.to_torch().dtype).tiny
        return targets * (targets.clamp(tiny, 1.0).log() - predictions)


# -- Lp --------------------------------------------------------------------------------------------
class LpLossConfig(Config):
    """``p``: the order (required, > 0). ``LpLossConfig.l1()``/``.l2()`` build the loss."""

    p: float

    def init(self) -> "LpLoss":
        """The loss; ValueError unless ``p > 0``."""
        if not self.p > 0.0:
            raise ValueError("The order of the norm p must be positive.")
        return LpLoss(self.p)

    @staticmethod
    def l1() -> "LpLoss":
        return LpLoss(1.0)

    @staticmethod
    def l2() -> "LpLoss":
        return LpLoss(2.0)


class LpLoss(_Loss):
    """``|predictions - targets|^p`` element-wise (``|e|`` for p = 1, ``e * e`` for p = 2).
    ``forward(predictions, targets, reduction)``."""

    def __init__(self, p: float) -> None:
        super().__init__()
        self.p = p

    def forward_no_reduction(self, predictions: Tensor, targets: Tensor) -> Tensor:
        _same_shape("LpLoss", predictions, targets)
        error = predictions - targets
        if self.p == 1.0:
            return error.abs()
        if self.p == 2.0:
            return error * error
        return error.abs().powf_scalar(self.p)

    def forward_reduce_dims(self, predictions: Tensor, targets: Tensor,
                            dims: Sequence[int]) -> Tensor:
        """The element losses averaged over ``dims`` (kept as size 1)."""
        return _mean_dims(self.forward_no_reduction(predictions, targets), dims)


def _mean_dims(values: Tensor, dims: Sequence[int]) -> Tensor:
    for d in sorted({values._dim(d) for d in dims}):
        values = values.mean_dim(d)
    return values


# -- margin ranking --------------------------------------------------------------------------------
class MarginRankingLossConfig(Config):
    margin: float = 0.0

    def init(self) -> "MarginRankingLoss":
        """The loss; ValueError for a negative margin."""
        if not self.margin >= 0.0:
            raise ValueError("Margin for margin ranking loss must be a non-negative number.")
        return MarginRankingLoss(self.margin)


class MarginRankingLoss(_Loss):
    """``relu(margin - target * (first - second))``. ``forward(first, second, target,
    reduction)`` with a Float target of 1 or -1."""

    def __init__(self, margin: float = 0.0) -> None:
        super().__init__()
        self.margin = margin

    def forward_no_reduction(self, first: Tensor, second: Tensor, target: Tensor) -> Tensor:
        _same_shape("MarginRankingLoss", first, second, target)
        return relu(self.margin - target * (first - second))


# -- multi-class margin ----------------------------------------------------------------------------
class MultiMarginLossConfig(Config):
    margin: float = 1.0
    p: int = 1

    def init(self) -> "MultiMarginLoss":
        """The loss; ValueError for a negative margin or ``p`` other than 1 and 2."""
        if not self.margin >= 0.0:
            raise ValueError(f"Margin for multi margin loss must be non-negative, got {self.margin}")
        if self.p not in (1, 2) or isinstance(self.p, bool):
            raise ValueError(f"Multi margin loss only supports p = 1 or p = 2, got {self.p}")
        return MultiMarginLoss(self.margin, self.p)


class MultiMarginLoss(_Loss):
    """Per sample, ``sum_{j != y} max(0, margin - x[y] + x[j])^p / classes`` for logits ``x``
    ``[batch, classes]`` and Int targets ``y`` ``[batch]``. ``forward(input, target,
    reduction)``."""

    def __init__(self, margin: float = 1.0, p: int = 1) -> None:
        super().__init__()
        self.margin = margin
        self.p = p

    def forward_no_reduction(self, input: Tensor, target: Tensor) -> Tensor:
        if target.kind is not Int:
            raise TypeError(f"MultiMarginLoss: target must be an Int tensor, got {target.kind}")
        if input.rank() != 2 or target.dims() != input.dims()[:1]:
            raise ValueError(f"MultiMarginLoss: expected input [batch, classes] and target "
                             f"[batch], got {input.dims()} and {target.dims()}")
        batch, classes = input.dims()
        correct = input.gather(1, target.reshape([batch, 1]))
        summed = (input - correct + self.margin).clamp_min(0.0).powi_scalar(self.p).sum_dim(1)
        return (summed - self.margin ** self.p).squeeze_dim(1) * (1.0 / classes)


# -- Poisson negative log-likelihood ---------------------------------------------------------------
class PoissonNllLossConfig(Config):
    log_input: bool = True
    full: bool = False
    eps: float = 1e-8

    def init(self) -> "PoissonNllLoss":
        """The loss; ValueError unless ``eps > 0``."""
        if not self.eps > 0.0:
            raise ValueError("eps for PoissonNllLoss must be a positive number.")
        return PoissonNllLoss(self.log_input, self.full, self.eps)


class PoissonNllLoss(_Loss):
    """``exp(p) - t * p`` (``log_input``) or ``p - t * log(p + eps)``, plus with ``full``
    Stirling's ``t log t - t + log(2 pi t) / 2`` where ``t > 1``. ``forward(predictions,
    targets, reduction)``."""

    def __init__(self, log_input: bool = True, full: bool = False, eps: float = 1e-8) -> None:
        super().__init__()
        self.log_input = log_input
        self.full = full
        self.eps = eps

    def forward_no_reduction(self, predictions: Tensor, targets: Tensor) -> Tensor:
        """ValueError for different shapes, a negative target, or (without ``log_input``) a
        negative prediction."""
        _same_shape("PoissonNllLoss", predictions, targets)
        if targets.lower_elem(0.0).any().into_scalar():
            raise ValueError("All the values of `targets` must be non-negative.")
        if not self.log_input and predictions.lower_elem(0.0).any().into_scalar():
            raise ValueError("When `log_input` is `false`, all the values of `predictions` must "
                             "be non-negative.")
        if self.log_input:
            loss = predictions.exp() - targets * predictions
        else:
            loss = predictions - targets * (predictions + self.eps).log()
        if self.full:
            stirling = targets * targets.log() - targets + (targets * (2.0 * math.pi)).log() * 0.5
            loss = loss + stirling.mask_where(targets.lower_equal_elem(1.0), targets.zeros_like())
        return loss


# -- smooth L1 -------------------------------------------------------------------------------------
class SmoothL1LossConfig(Config):
    beta: float = 1.0

    def init(self) -> "SmoothL1Loss":
        """The loss; ValueError unless ``beta > 0``."""
        if not self.beta > 0.0:
            raise ValueError("The parameter beta must be positive.")
        return SmoothL1Loss(self.beta)


class SmoothL1Loss(Module):
    """``0.5 e^2 / beta`` where ``|e| < beta``, ``|e| - beta / 2`` elsewhere, for ``e =
    predictions - targets``. As Burn, ``forward`` is per element;
    ``forward_with_reduction(predictions, targets, reduction)`` reduces."""

    def __init__(self, beta: float = 1.0) -> None:
        super().__init__()
        self.beta = beta

    def forward(self, predictions: Tensor, targets: Tensor) -> Tensor:
        _same_shape("SmoothL1Loss", predictions, targets)
        error = predictions - targets
        abs_error = error.abs()
        l1 = abs_error - 0.5 * self.beta
        l2 = error.square() * 0.5 / self.beta
        return l1.mask_where(abs_error.lower_elem(self.beta), l2)

    def forward_with_reduction(self, predictions: Tensor, targets: Tensor,
                               reduction: Reduction = Reduction.AUTO) -> Tensor:
        return _reduce(self.forward(predictions, targets), reduction, "SmoothL1Loss")

    def forward_reduce_dims(self, predictions: Tensor, targets: Tensor,
                            dims: Sequence[int]) -> Tensor:
        """The element losses averaged over ``dims`` (kept as size 1)."""
        return _mean_dims(self.forward(predictions, targets), dims)

    def __repr__(self) -> str:
        return f"SmoothL1Loss {{beta: {self.beta}}}"


# -- soft margin -----------------------------------------------------------------------------------
class SoftMarginLoss(_Loss):
    """``softplus(-target * logits)`` (Burn's ``SoftMarginLoss::new()``, no config).
    ``forward(logits, targets, reduction)``."""

    def forward_no_reduction(self, logits: Tensor, targets: Tensor) -> Tensor:
        _same_shape("SoftMarginLoss", logits, targets)
        return softplus(-(targets * logits), 1.0)


# -- triplet margin --------------------------------------------------------------------------------
class TripletMarginLossConfig(Config):
    margin: float = 1.0
    p: float = 2.0

    def init(self) -> "TripletMarginLoss":
        return TripletMarginLoss(self.margin, self.p)


class TripletMarginLoss(_Loss):
    """``max(0, ||a - pos||_p - ||a - neg||_p + margin)`` per row of ``[batch, features]``
    inputs (no epsilon, unlike torch's ``eps=1e-6``). ``forward(anchor, positive, negative,
    reduction)``."""

    def __init__(self, margin: float = 1.0, p: float = 2.0) -> None:
        super().__init__()
        self.margin = margin
        self.p = p

    def forward_no_reduction(self, anchor: Tensor, positive: Tensor, negative: Tensor) -> Tensor:
        _same_shape("TripletMarginLoss", anchor, positive, negative)
        if anchor.rank() != 2:
            raise ValueError(f"TripletMarginLoss: expected [batch, features] inputs, got "
                             f"{anchor.dims()}")
        d_pos = lp_norm(anchor - positive, self.p, 1).squeeze_dim(1)
        d_neg = lp_norm(anchor - negative, self.p, 1).squeeze_dim(1)
        return (d_pos - d_neg + self.margin).clamp_min(0.0)


# -- CTC -------------------------------------------------------------------------------------------
class CTCLossConfig(Config):
    blank: int = 0
    zero_infinity: bool = False

    def init(self) -> "CTCLoss":
        return CTCLoss(self.blank, self.zero_infinity)


class CTCLoss(Module):
    """Connectionist temporal classification (``module_ops.ctc_loss``): ``forward(log_probs
    [T, N, C], targets Int [N, S], input_lengths Int [N], target_lengths Int [N])`` is the
    per-sample loss ``[N]`` (0 where no alignment exists, with ``zero_infinity``);
    ``forward_with_reduction(..., reduction)``: the mean of the losses each divided by its
    target length, or their sum."""

    def __init__(self, blank: int = 0, zero_infinity: bool = False) -> None:
        super().__init__()
        self.blank = blank
        self.zero_infinity = zero_infinity

    def forward(self, log_probs: Tensor, targets: Tensor, input_lengths: Tensor,
                target_lengths: Tensor) -> Tensor:
        return ctc_loss(log_probs, targets, input_lengths, target_lengths, self.blank,
                        zero_infinity=self.zero_infinity)

    def forward_with_reduction(self, log_probs: Tensor, targets: Tensor, input_lengths: Tensor,
                               target_lengths: Tensor,
                               reduction: Reduction = Reduction.AUTO) -> Tensor:
        loss = self.forward(log_probs, targets, input_lengths, target_lengths)
        if reduction in (Reduction.AUTO, Reduction.MEAN):
            return (loss / target_lengths.float().cast(loss.dtype())).mean()
        return _reduce(loss, reduction, "CTCLoss")

    def __repr__(self) -> str:
        return f"CTCLoss {{blank: {self.blank}, zero_infinity: {self.zero_infinity}}}"


# -- RNN-T -----------------------------------------------------------------------------------------
class RNNTLossConfig(Config):
    blank: int = 0
    logits: bool = True

    def init(self) -> "RNNTLoss":
        return RNNTLoss(self.blank, self.logits)


class RNNTLoss(Module):
    """RNN transducer loss (Graves 2012): ``forward(logits [B, T, U+1, V], targets Int [B, U],
    logit_lengths Int [B], target_lengths Int [B])`` is the per-sample negative log-likelihood
    ``[B]`` summed over every alignment of sample ``b``'s first ``target_lengths[b]`` targets to
    its first ``logit_lengths[b]`` frames. ``logits`` (the default) applies a log-softmax over V
    first; otherwise the input is log-probabilities. One op (``ops.loss.RNNT_LOSS``): the alpha
    recursion forward, the beta recursion in backward."""

    def __init__(self, blank: int = 0, logits: bool = True) -> None:
        super().__init__()
        self.blank = blank
        self.logits = logits

    def forward(self, logits: Tensor, targets: Tensor, logit_lengths: Tensor,
                target_lengths: Tensor) -> Tensor:
        """Raises TypeError for non-Int indices, ValueError for shapes or lengths that do not
        fit or a blank outside ``[0, V)``."""
        from ..autodiff.recorder import apply1
        from ..functional.activation import log_softmax
        from ..ops.loss import RNNT_LOSS
        if logits.rank() != 4:
            raise ValueError(f"RNNTLoss: logits must be [B, T, U+1, V], got {logits.dims()}")
        b, t_max, u_max1, v = logits.dims()
        for name, t, rank in (("targets", targets, 2), ("logit_lengths", logit_lengths, 1),
                              ("target_lengths", target_lengths, 1)):
            if t.kind is not Int:
                raise TypeError(f"RNNTLoss: {name} must be an Int tensor, got {t.kind}")
            if t.rank() != rank or t.dims()[0] != b:
                raise ValueError(f"RNNTLoss: {name} must have rank {rank} and batch size {b}, "
                                 f"got {t.dims()}")
        if targets.dims()[1] != u_max1 - 1:
            raise ValueError(f"RNNTLoss: targets must be [B, {u_max1 - 1}], got {targets.dims()}")
        if not 0 <= self.blank < v:
            raise ValueError(f"blank index {self.blank} must be less than vocab_size {v}")
        t_lens = logit_lengths.to_torch().tolist()
        u_lens = target_lengths.to_torch().tolist()
        for i, (t_len, u_len) in enumerate(zip(t_lens, u_lens)):
            if not (1 <= t_len <= t_max and 0 <= u_len <= u_max1 - 1):
                raise ValueError(f"RNNTLoss: sample {i} has logit length {t_len} and target "
                                 f"length {u_len}; need 1 <= logit length <= {t_max} and "
                                 f"0 <= target length <= {u_max1 - 1}")
        log_probs = log_softmax(logits, 3) if self.logits else logits
        return apply1(RNNT_LOSS, log_probs, (targets.to_torch(), tuple(t_lens), tuple(u_lens),
                                             int(self.blank)))

    def forward_with_reduction(self, logits: Tensor, targets: Tensor, logit_lengths: Tensor,
                               target_lengths: Tensor,
                               reduction: Reduction = Reduction.AUTO) -> Tensor:
        """The mean (``AUTO``, ``MEAN``) or sum of the per-sample losses, shape ``[1]``."""
        return _reduce(self.forward(logits, targets, logit_lengths, target_lengths), reduction,
                       "RNNTLoss")

    def __repr__(self) -> str:
        return f"RNNTLoss {{blank: {self.blank}, logits: {self.logits}}}"


__all__ = [
    "RNNTLoss", "RNNTLossConfig", "CTCLoss", "CTCLossConfig", "CosineEmbeddingLoss", "CosineEmbeddingLossConfig",
    "GaussianNLLLoss", "GaussianNLLLossConfig", "HingeEmbeddingLoss", "HingeEmbeddingLossConfig",
    "KLDivLoss", "KLDivLossConfig", "LpLoss", "LpLossConfig", "MarginRankingLoss",
    "MarginRankingLossConfig", "MultiMarginLoss", "MultiMarginLossConfig", "PoissonNllLoss",
    "PoissonNllLossConfig", "SmoothL1Loss", "SmoothL1LossConfig", "SoftMarginLoss",
    "TripletMarginLoss", "TripletMarginLossConfig",
]
