"""Burn's ``module::ctc_loss``: one op-table entry (``burn_torch.ops.loss``) with torch's CTC
kernels both ways.
"""
from __future__ import annotations

import torch

from ...autodiff.recorder import apply1
from ...dtype import Int
from ...methods.base import require_float
from ...ops import loss as loss_ops
from ...tensor import Tensor


def _int_tensor(name: str, t, rank: int) -> torch.Tensor:
    if not isinstance(t, Tensor) or t.kind is not Int:
        raise TypeError(f"ctc_loss: {name} must be an Int Tensor, got "
                        f"{getattr(t, 'kind', type(t).__name__)}")
    if t.rank() != rank:
        raise ValueError(f"ctc_loss: {name} must have rank {rank}, got {t.dims()}")
    return t.to_torch()


def ctc_loss(log_probs: Tensor, targets: Tensor, input_lengths: Tensor, target_lengths: Tensor,
             blank: int, *, zero_infinity: bool = False) -> Tensor:
    """The per-sample CTC loss ``[N]`` (negative log-likelihood of each target).

    ``log_probs``: ``[T, N, C]`` log-probabilities (a log-softmax over C); ``targets``: Int
    ``[N, S]`` class indices, sample ``n`` using its first ``target_lengths[n]``;
    ``input_lengths``/``target_lengths``: Int ``[N]``; ``blank``: the blank class. A target no
    alignment reaches has loss ``inf`` (0 with ``zero_infinity``, burn_torch's keyword for
    ``CTCLoss``'s option) and a zero gradient. The gradient ``log_probs`` gets is torch's (and
    Burn's fused backward): the gradient of the logits when ``log_probs`` is their log-softmax.

    Raises TypeError for a non-Float ``log_probs`` or non-Int indices, ValueError for shapes
    that do not fit, a blank outside ``[0, C)``, lengths out of range or a target length above
    its input length.
    """
    if not isinstance(log_probs, Tensor):
        raise TypeError(f"ctc_loss: log_probs must be a Tensor, got {type(log_probs).__name__}")
    require_float(log_probs, "ctc_loss")
    if log_probs.rank() != 3:
        raise ValueError(f"ctc_loss: log_probs must be [T, N, C], got {log_probs.dims()}")
    t_max, n, c = log_probs.dims()
    tg = _int_tensor("targets", targets, 2)
    il = _int_tensor("input_lengths", input_lengths, 1).tolist()
    tl = _int_tensor("target_lengths", target_lengths, 1).tolist()
    if tg.shape[0] != n or len(il) != n or len(tl) != n:
        raise ValueError(f"ctc_loss: targets {list(tg.shape)}, input_lengths [{len(il)}] and "
                         f"target_lengths [{len(tl)}] must all have the batch size {n}")
    if not 0 <= blank < c:
        raise ValueError(f"ctc_loss: blank index {blank} must be less than num_classes {c}")
    for i, (a, b) in enumerate(zip(il, tl)):
        if not 0 <= b <= tg.shape[1] or not b <= a <= t_max:
            raise ValueError(f"ctc_loss: sample {i} has input length {a} and target length {b}; "
                             f"need 0 <= target length <= min(input length, {tg.shape[1]}) and "
                             f"input length <= {t_max}")
    return apply1(loss_ops.CTC_LOSS, log_probs, (tg, tuple(il), tuple(tl), int(blank),
                                                 bool(zero_infinity)))
