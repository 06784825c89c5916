"""Burn's ``RNNTLoss`` (RNN transducer) and its config."""
from __future__ import annotations

from ...dtype import Int
from ...module import Config, Module, module_fields
from ...tensor import Tensor
from .reduction import _reduce, Reduction


# -- RNN-T -----------------------------------------------------------------------------------------
class RNNTLossConfig(Config):
    blank: int = 0
    logits: bool = True

    def init(self) -> "RNNTLoss":
        return RNNTLoss(self.blank, self.logits)


@module_fields
class RNNTLoss(Module):
    """RNN transducer loss (Graves 2012): ``forward(logits [B, T, U+1, V], targets Int [B, U],
    logit_lengths Int [B], target_lengths Int [B])`` is the per-sample negative log-likelihood
    ``[B]`` summed over every alignment of sample ``b``'s first ``target_lengths[b]`` targets to
    its first ``logit_lengths[b]`` frames. ``logits`` (the default) applies a log-softmax over V
    first; otherwise the input is log-probabilities. One op (``ops.loss.RNNT_LOSS``): the alpha
    recursion forward, the beta recursion in backward."""

    blank: int = 0
    logits: bool = True

    def forward(self, logits: Tensor, targets: Tensor, logit_lengths: Tensor,
                target_lengths: Tensor) -> Tensor:
        """Raises TypeError for non-Int indices, ValueError for shapes or lengths that do not
        fit or a blank outside ``[0, V)``."""
        from ...autodiff.recorder import apply1
        from ...functional.activation import log_softmax
        from ...ops.loss import RNNT_LOSS
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
