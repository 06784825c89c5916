"""Burn's ``CTCLoss`` (one op: torch's CTC kernels) and its config."""
from __future__ import annotations

from ...functional.module_ops.ctc import ctc_loss
from ...module import Config, Module, module_fields
from ...tensor import Tensor
from .reduction import _reduce, Reduction


# -- CTC -------------------------------------------------------------------------------------------
class CTCLossConfig(Config):
    blank: int = 0
    zero_infinity: bool = False

    def init(self) -> "CTCLoss":
        return CTCLoss(self.blank, self.zero_infinity)


@module_fields
class CTCLoss(Module):
    """Connectionist temporal classification (``module_ops.ctc_loss``): ``forward(log_probs
    [T, N, C], targets Int [N, S], input_lengths Int [N], target_lengths Int [N])`` is the
    per-sample loss ``[N]`` (0 where no alignment exists, with ``zero_infinity``);
    ``forward_with_reduction(..., reduction)``: the mean of the losses each divided by its
    target length, or their sum."""

    blank: int = 0
    zero_infinity: bool = False

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
