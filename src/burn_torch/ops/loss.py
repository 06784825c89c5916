"""Losses computed by one step each: CTC (Burn's ``module::ctc_loss``), the mean squared error
and the Huber loss (``nn.MseLoss``, ``nn.HuberLoss`` reduced), binary cross entropy with logits
(``nn.BinaryCrossEntropyLoss``), and RNN-T."""
import torch

from .table import COMPUTE, MEMORY, defop, vjp
from .kernels import kernel

aten = torch.ops.aten
_reshape = torch.reshape
_CTC_LOSS = kernel(aten._ctc_loss.default)
_CTC_LOSS_BACKWARD = kernel(aten._ctc_loss_backward.default)
_MSE_LOSS = torch._C._nn.mse_loss
_MSE_LOSS_BACKWARD = kernel(aten.mse_loss_backward.default)
_BCE_WITH_LOGITS = torch.binary_cross_entropy_with_logits
_HUBER_LOSS = torch._C._nn.huber_loss
_HUBER_LOSS_BACKWARD = kernel(aten.huber_loss_backward.default)


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


# ---- mean squared error, reduced: attrs (reduction,), torch's code (1 mean, 2 sum); shape [1] ----
def _mse_loss_forward(x, y, reduction):
    return _MSE_LOSS(x, y, reduction).reshape(1)


def _and_negated(gx, parents):
    """The gradients of a loss of ``x - y`` from ``x``'s: ``y``'s is its negation (None for an
    untracked input)."""
    if parents[1] is None:
        return gx, None
    return (gx, gx.neg()) if parents[0] is not None else (None, gx.neg_())


def _mse_loss_rule(g, s, parents):
    return _and_negated(_MSE_LOSS_BACKWARD(_reshape(g, ()), s.x, s.y, s.reduction), parents)


MSE_LOSS = defop("mse_loss", _mse_loss_forward, MEMORY, inputs=("x", "y"), attrs=("reduction",),
                 fused=_mse_loss_rule, needs=(("x", "y"), ("x", "y")))


# ---- Huber loss, reduced: attrs (reduction, delta), torch's reduction code, delta > 0; [1] -------
def _huber_loss_forward(x, y, reduction, delta):
    return _HUBER_LOSS(x, y, reduction, delta).reshape(1)


def _huber_loss_rule(g, s, parents):
    return _and_negated(_HUBER_LOSS_BACKWARD(_reshape(g, ()), s.x, s.y, s.reduction, s.delta),
                        parents)


HUBER_LOSS = defop("huber_loss", _huber_loss_forward, MEMORY, inputs=("x", "y"),
                   attrs=("reduction", "delta"), fused=_huber_loss_rule,
                   needs=(("x", "y"), ("x", "y")))


# ---- binary cross entropy with logits, the mean of ``((1 - t) x - log_sigmoid(x)) w``: attrs
# (targets, weight), both constant: Float targets of x's shape and dtype, per-element weights or
# None; shape [1]. torch's kernel forward (it computes the same terms without overflow); torch has
# no backward kernel for it: the rule is the formula torch's autograd uses
def _bce_with_logits_forward(x, targets, weight):
    return _BCE_WITH_LOGITS(x, targets, weight, None, 1).reshape(1)


def _bce_with_logits_rule(g, s):
    d = torch.sigmoid(s.x).sub_(s.targets)
    if s.weight is not None:
        d.mul_(s.weight)
    return d.mul_(g / s.x.numel())


BCE_WITH_LOGITS = defop("binary_cross_entropy_with_logits", _bce_with_logits_forward, MEMORY,
                        attrs=("targets", "weight"), vjp=(vjp(_bce_with_logits_rule, "x"),))


# ---- RNN-T: -log P(target | lattice) over [B, T, U+1, V] log-probabilities -------------------------
# Per sample, alpha[t, u] (log-probability of reaching lattice node (t, u)) and beta[t, u] (of
# finishing from it) follow Graves' recursions. Along u, each row's recursion
# ``new[u] = logaddexp(a[u], new[u - 1] + label[u - 1])`` is a log-space linear recurrence,
# computed at once as ``C + logcumsumexp(a - C)`` with ``C`` the prefix sums of ``label``; the
# rows are computed one time step after another.
def _rnnt_rows(log_probs, targets, b, t_len, u_len, blank):
    """``(blank [t_len, u_len + 1], label [t_len, u_len])``: sample ``b``'s blank and target
    log-probabilities on its lattice."""
    lp = log_probs[b, :t_len, :u_len + 1]
    blank_lp = lp[..., blank]
    if u_len == 0:
        return blank_lp, lp.new_zeros(t_len, 0)
    idx = targets[b, :u_len].view(1, u_len, 1).expand(t_len, u_len, 1)
    return blank_lp, lp[:, :u_len].gather(2, idx).squeeze(2)


def _prefix(label):
    """``C[u] = sum_{j < u} label[j]`` for u in 0..U (``label``: [..., U])."""
    return torch.nn.functional.pad(label.cumsum(-1), (1, 0))


def _rnnt_alpha(blank_lp, label_lp):
    t_len = blank_lp.shape[0]
    c = _prefix(label_lp)                                    # [T, U + 1]
    alpha = [c[0]]
    for t in range(1, t_len):
        a = alpha[-1] + blank_lp[t - 1]
        alpha.append(c[t] + torch.logcumsumexp(a - c[t], 0))
    return torch.stack(alpha)


def _rnnt_beta(blank_lp, label_lp):
    t_len = blank_lp.shape[0]
    c = _prefix(label_lp)
    last = blank_lp[-1, -1]
    # last row: beta[T-1, u] = blank[T-1, U] + sum_{j >= u} label[T-1, j]
    beta = [last + c[-1, -1] - c[-1]]
    for t in range(t_len - 2, -1, -1):
        b = beta[-1] + blank_lp[t]
        beta.append(torch.logcumsumexp((b + c[t]).flip(0), 0).flip(0) - c[t])
    return torch.stack(beta[::-1])


def _rnnt_forward(log_probs, targets, logit_lengths, target_lengths, blank):
    """``(loss [B], alphas)``: the per-sample losses and each sample's alpha lattice."""
    losses, alphas = [], []
    for b, (t_len, u_len) in enumerate(zip(logit_lengths, target_lengths)):
        blank_lp, label_lp = _rnnt_rows(log_probs, targets, b, t_len, u_len, blank)
        alpha = _rnnt_alpha(blank_lp, label_lp)
        losses.append(-(alpha[-1, -1] + blank_lp[-1, -1]))
        alphas.append(alpha)
    return torch.stack(losses), tuple(alphas)


def _rnnt_rule(g, s):
    """``log_probs`` gets ``-g * exp(alpha + lp + beta_next - log P)`` at each lattice edge's
    log-probability (a blank moves t on, a label u on; the final blank ends the lattice)."""
    log_probs = s.x
    grad = torch.zeros_like(log_probs)
    for b, (t_len, u_len) in enumerate(zip(s.logit_lengths, s.target_lengths)):
        blank_lp, label_lp = _rnnt_rows(log_probs, s.targets, b, t_len, u_len, s.blank)
        alpha, beta = s.alphas[b], _rnnt_beta(blank_lp, label_lp)
        log_p = beta[0, 0]
        next_blank = torch.full_like(beta, float("-inf"))
        next_blank[:-1] = beta[1:]
        next_blank[-1, -1] = 0.0
        g_blank = torch.exp(alpha + blank_lp + next_blank - log_p).mul_(-g[b])
        grad[b, :t_len, :u_len + 1, s.blank] += g_blank
        if u_len:
            g_label = torch.exp(alpha[:, :-1] + label_lp + beta[:, 1:] - log_p).mul_(-g[b])
            idx = s.targets[b, :u_len].view(1, u_len, 1).expand(t_len, u_len, 1)
            grad[b, :t_len, :u_len].scatter_add_(2, idx, g_label.unsqueeze(2))
    return grad


RNNT_LOSS = defop("rnnt_loss", _rnnt_forward, COMPUTE,
                  attrs=("targets", "logit_lengths", "target_lengths", "blank"),
                  residuals=("alphas",), vjp=(vjp(_rnnt_rule, "x", "alphas"),))
