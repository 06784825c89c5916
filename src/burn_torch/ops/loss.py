"""Losses computed by one torch kernel each way: CTC (Burn's ``module::ctc_loss``)."""
import torch

from .table import COMPUTE, defop, vjp

aten = torch.ops.aten
_CTC_LOSS = aten._ctc_loss.default
_CTC_LOSS_BACKWARD = aten._ctc_loss_backward.default


def _ctc_forward(log_probs, targets, input_lengths, target_lengths, blank, zero_infinity):
    """``(loss [N], nll [N], log_alpha)``: the per-sample negative log-likelihoods (``inf`` for
    a target no alignment reaches; 0 there with ``zero_infinity``), the raw ones and torch's
    forward variables, both for the backward kernel."""
    nll, log_alpha = _CTC_LOSS(log_probs, targets, input_lengths, target_lengths, blank, False)
    loss = torch.where(torch.isinf(nll), 0.0, nll) if zero_infinity else nll
    return loss, nll, log_alpha


def _ctc_rule(g, s):
    """torch's CTC backward kernel (the gradient it gives ``log_probs``, as Burn's fused CTC
    backward), with the samples whose target is unreachable given a zero gradient (as Burn)."""
    return _CTC_LOSS_BACKWARD(g, s.x, s.targets, s.input_lengths, s.target_lengths, s.nll,
                              s.log_alpha, s.blank, True)


CTC_LOSS = defop("ctc_loss", _ctc_forward, COMPUTE,
                 attrs=("targets", "input_lengths", "target_lengths", "blank", "zero_infinity"),
                 residuals=("nll", "log_alpha"), vjp=(vjp(_ctc_rule, "x", "nll", "log_alpha"),))
