"""Activation functions (and the cross-entropy loss built on log-softmax): forward kernels and
backward rules, with torch's own backward kernels where they give Burn's gradients."""
import torch

from .fit import fit
from .table import COMPUTE, MEMORY, defop, save_input, save_inputs, save_output

aten = torch.ops.aten
_F = torch.nn.functional
_THRESHOLD_BACKWARD = aten.threshold_backward.default
_SIGMOID_BACKWARD = aten.sigmoid_backward.default
_GELU_BACKWARD = aten.gelu_backward.default
_SILU_BACKWARD = aten.silu_backward.default
_MISH_BACKWARD = aten.mish_backward.default
_SOFTPLUS_BACKWARD = aten.softplus_backward.default
_LOG_SIGMOID_FORWARD = aten.log_sigmoid_forward.default
_LOG_SIGMOID_BACKWARD = aten.log_sigmoid_backward.default
_softmax_backward = torch._softmax_backward_data
_log_softmax_backward = torch._log_softmax_backward_data

RELU = defop("relu", torch.relu, lambda g, n: (_THRESHOLD_BACKWARD(g, n.saved, 0),), MEMORY, save_output)
SIGMOID = defop("sigmoid", torch.sigmoid, lambda g, n: (_SIGMOID_BACKWARD(g, n.saved),), MEMORY,
                save_output)
GELU = defop("gelu", torch.nn.functional.gelu,
             lambda g, n: (_GELU_BACKWARD(g, n.saved, approximate="none"),), MEMORY, save_input)
SOFTMAX = defop("softmax", torch.softmax,
                lambda g, n: (_softmax_backward(g, n.saved, n.attrs[0], n.saved.dtype),), MEMORY,
                save_output)
LOG_SOFTMAX = defop("log_softmax", torch.log_softmax,
                    lambda g, n: (_log_softmax_backward(g, n.saved, n.attrs[0], n.saved.dtype),),
                    MEMORY, save_output)


# -- Burn composes these from masks and clamps; their gradients at the kinks follow that ---------
def _leaky_relu_rule(g, n):
    """Burn's ``mask_where(x, x < 0, x * slope)``: slope below 0, 1 from 0 up (aten's kernel
    would give the slope at exactly 0)."""
    return (torch.where(n.saved < 0, g * n.attrs[0], g),)


def _hard_sigmoid_forward(x, alpha, beta):
    return torch.mul(x, alpha).add_(beta).clamp_(0.0, 1.0)


def _hard_sigmoid_rule(g, n):
    """``clamp(alpha * x + beta, 0, 1)``: the gradient passes inside the range, bounds included."""
    alpha, beta = n.attrs
    z = torch.mul(n.saved, alpha).add_(beta)
    return (torch.where((z >= 0) & (z <= 1), g * alpha, 0.0),)


def _prelu_weight(x, alpha):
    """``alpha`` ([1] or [channels]) viewed to broadcast over dim 1 of ``x``."""
    shape = [1] * x.dim()
    if alpha.shape[0] != 1:
        shape[1] = alpha.shape[0]
    return alpha.view(shape)


def _prelu_forward(x, alpha):
    return torch.where(x < 0, x * _prelu_weight(x, alpha), x)


def _prelu_rule(g, n):
    """``mask_where(x, x < 0, x * alpha)``: x gets alpha below 0 and 1 from 0 up; alpha gets x
    below 0, summed over everything but the channel."""
    px, pa = n.parents
    x, alpha = n.saved
    weight = _prelu_weight(x, alpha)
    neg = x < 0
    gx = fit(torch.where(neg, g * weight, g), px) if px is not None else None
    ga = None
    if pa is not None:
        ga = torch.where(neg, g * x, 0.0).sum_to_size(weight.shape).reshape(alpha.shape)
        ga = ga.to(alpha.dtype)
    return gx, ga


LEAKY_RELU = defop("leaky_relu", _F.leaky_relu, _leaky_relu_rule, MEMORY, save_input)
HARD_SIGMOID = defop("hard_sigmoid", _hard_sigmoid_forward, _hard_sigmoid_rule, MEMORY, save_input)
PRELU = defop("prelu", _prelu_forward, _prelu_rule, MEMORY, save_inputs)


# -- smooth activations, with torch's backward kernels ---------------------------------------------
def _gelu_tanh_forward(x):
    return _F.gelu(x, approximate="tanh")


# torch's softplus is linear once beta * x exceeds the threshold; there exp overflows in Burn's
# log(1 + exp(beta * x)) / beta, and the two agree to far below float precision.
_SOFTPLUS_THRESHOLD = 20.0


def _softplus_forward(x, beta):
    return _F.softplus(x, beta, _SOFTPLUS_THRESHOLD)


def _log_sigmoid_rule(g, n):
    x = n.saved
    return (_LOG_SIGMOID_BACKWARD(g, x, _LOG_SIGMOID_FORWARD(x)[1]),)


GELU_TANH = defop("gelu_tanh", _gelu_tanh_forward,
                  lambda g, n: (_GELU_BACKWARD(g, n.saved, approximate="tanh"),), MEMORY, save_input)
SILU = defop("silu", _F.silu, lambda g, n: (_SILU_BACKWARD(g, n.saved),), MEMORY, save_input)
MISH = defop("mish", _F.mish, lambda g, n: (_MISH_BACKWARD(g, n.saved),), MEMORY, save_input)
SOFTPLUS = defop("softplus", _softplus_forward,
                 lambda g, n: (_SOFTPLUS_BACKWARD(g, n.saved, n.attrs[0], _SOFTPLUS_THRESHOLD),),
                 MEMORY, save_input)
LOG_SIGMOID = defop("log_sigmoid", _F.logsigmoid, _log_sigmoid_rule, MEMORY, save_input)


# -- softmax variants along a dim ------------------------------------------------------------------
def _quiet_softmax_forward(x, dim):
    """``exp(x_i) / (1 + sum_j exp(x_j))``: a softmax with an extra zero logit, computed shifted
    by the constant (as Burn: detached) ``max(max_j x_j, 0)`` so that nothing overflows."""
    shift = x.detach().amax(dim, keepdim=True).clamp_(min=0.0)
    e = torch.sub(x, shift).exp_()
    return torch.div(e, e.sum(dim, keepdim=True).add_(shift.neg_().exp_()))


def _softmin_forward(x, dim):
    return torch.softmax(torch.neg(x), dim)


def _softmax_like_rule(g, n):
    """``y * (g - sum(g * y))``: the Jacobian of softmax, and of quiet softmax, from the output."""
    y = n.saved
    return (_softmax_backward(g, y, n.attrs[0], y.dtype),)


SOFTMIN = defop("softmin", _softmin_forward,
                lambda g, n: (_softmax_backward(g, n.saved, n.attrs[0], n.saved.dtype).neg_(),),
                MEMORY, save_output)
QUIET_SOFTMAX = defop("quiet_softmax", _quiet_softmax_forward, _softmax_like_rule, MEMORY,
                      save_output)


# -- a loss built on log_softmax (burn_torch.loss) -------------------------------------------------
def _rows(x):
    """The number of positions the last dim is reduced at: all elements over the last dim's size."""
    return x.numel() // x.shape[-1]


def _cross_entropy_forward(logits, target):
    """``-mean(sum(target * log_softmax(logits, -1), -1))`` as shape ``[1]``."""
    total = torch.mul(torch.log_softmax(logits, -1), target).sum()
    return total.neg_().div_(_rows(logits)).reshape(1)


def _cross_entropy_rule(g, n):
    """logits get ``(softmax * sum(target, -1) - target) * g / rows``; target gets
    ``-log_softmax * g / rows``. The log-softmax is recomputed from the saved logits."""
    pl, pt = n.parents
    logits, target = n.saved
    scale = g / _rows(logits)
    log_p = torch.log_softmax(logits, -1)
    gl = gt = None
    if pl is not None:
        gl = torch.exp(log_p).mul_(target.sum(-1, keepdim=True)).sub_(target).mul_(scale)
        gl = fit(gl, pl)
    if pt is not None:
        gt = fit(log_p.mul_(scale).neg_(), pt)
    return gl, gt


CROSS_ENTROPY_WITH_LOGITS = defop("cross_entropy_with_logits", _cross_entropy_forward,
                                  _cross_entropy_rule, COMPUTE, save_inputs)
