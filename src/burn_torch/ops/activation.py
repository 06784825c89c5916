"""Activation functions (and the cross-entropy loss built on log-softmax): forward kernels and
backward rules, with torch's own backward kernels where they give Burn's gradients."""
import torch

from .table import COMPUTE, MEMORY, defop, vjp
from .kernels import kernel

aten = torch.ops.aten
_F = torch.nn.functional
_THRESHOLD_BACKWARD = kernel(aten.threshold_backward.default)
_SIGMOID_BACKWARD = kernel(aten.sigmoid_backward.default)
_GELU_BACKWARD = kernel(aten.gelu_backward.default)
_SILU_BACKWARD = kernel(aten.silu_backward.default)
_MISH_BACKWARD = kernel(aten.mish_backward.default)
_SOFTPLUS_BACKWARD = kernel(aten.softplus_backward.default)
_LOG_SIGMOID_FORWARD = kernel(aten.log_sigmoid_forward.default)
_LOG_SIGMOID_BACKWARD = kernel(aten.log_sigmoid_backward.default)
_softmax_backward = torch._softmax_backward_data
_log_softmax_backward = torch._log_softmax_backward_data

def _unary(name, forward, rule, need, attrs=()):
    """A one-input activation whose rule reads its input (``need="x"``) or output (``"out"``)."""
    return defop(name, forward, MEMORY, attrs=attrs, vjp=(vjp(rule, need),))


RELU = _unary("relu", torch.relu, lambda g, s: _THRESHOLD_BACKWARD(g, s.out, 0), "out")
SIGMOID = _unary("sigmoid", torch.sigmoid, lambda g, s: _SIGMOID_BACKWARD(g, s.out), "out")
GELU = _unary("gelu", torch.nn.functional.gelu,
              lambda g, s: _GELU_BACKWARD(g, s.x, approximate="none"), "x")
SOFTMAX = _unary("softmax", torch.softmax,
                 lambda g, s: _softmax_backward(g, s.out, s.dim, s.out.dtype), "out", ("dim",))
LOG_SOFTMAX = _unary("log_softmax", torch.log_softmax,
                     lambda g, s: _log_softmax_backward(g, s.out, s.dim, s.out.dtype), "out",
                     ("dim",))


# -- Burn composes these from masks and clamps; their gradients at the kinks follow that ---------
def _leaky_relu_rule(g, s):
    """Burn's ``mask_where(x, x < 0, x * slope)``: slope below 0, 1 from 0 up (aten's kernel
    would give the slope at exactly 0)."""
    return torch.where(s.x < 0, g * s.slope, g)


def _hard_sigmoid_forward(x, alpha, beta):
    return torch.mul(x, alpha).add_(beta).clamp_(0.0, 1.0)


def _hard_sigmoid_rule(g, s):
    """``clamp(alpha * x + beta, 0, 1)``: the gradient passes inside the range, bounds included."""
    z = torch.mul(s.x, s.alpha).add_(s.beta)
    return torch.where((z >= 0) & (z <= 1), g * s.alpha, 0.0)


def _prelu_weight(x, alpha):
    """``alpha`` ([1] or [channels]) viewed to broadcast over dim 1 of ``x``."""
    shape = [1] * x.dim()
    if alpha.shape[0] != 1:
        shape[1] = alpha.shape[0]
    return alpha.view(shape)


def _prelu_forward(x, alpha):
    return torch.where(x < 0, x * _prelu_weight(x, alpha), x)


def _prelu_x(g, s):
    """``mask_where(x, x < 0, x * alpha)``: x gets alpha below 0 and 1 from 0 up."""
    return torch.where(s.x < 0, g * _prelu_weight(s.x, s.alpha), g)


def _prelu_alpha(g, s):
    """alpha gets x below 0, summed over everything but the channel."""
    x, alpha = s.x, s.alpha
    return torch.where(x < 0, g * x, 0.0).sum_to_size(_prelu_weight(x, alpha).shape).reshape(alpha.shape)


LEAKY_RELU = _unary("leaky_relu", _F.leaky_relu, _leaky_relu_rule, "x", ("slope",))
HARD_SIGMOID = _unary("hard_sigmoid", _hard_sigmoid_forward, _hard_sigmoid_rule, "x",
                      ("alpha", "beta"))
PRELU = defop("prelu", _prelu_forward, MEMORY, inputs=("x", "alpha"),
              vjp=(vjp(_prelu_x, "x", "alpha"), vjp(_prelu_alpha, "x", "alpha")))


# -- smooth activations, with torch's backward kernels ---------------------------------------------
def _gelu_tanh_forward(x):
    return _F.gelu(x, approximate="tanh")


# torch's softplus is linear once beta * x exceeds the threshold; there exp overflows in Burn's
# log(1 + exp(beta * x)) / beta, and the two agree to far below float precision.
_SOFTPLUS_THRESHOLD = 20.0


def _softplus_forward(x, beta):
    return _F.softplus(x, beta, _SOFTPLUS_THRESHOLD)


def _log_sigmoid_rule(g, s):
    return _LOG_SIGMOID_BACKWARD(g, s.x, _LOG_SIGMOID_FORWARD(s.x)[1])


GELU_TANH = _unary("gelu_tanh", _gelu_tanh_forward,
                   lambda g, s: _GELU_BACKWARD(g, s.x, approximate="tanh"), "x")
SILU = _unary("silu", _F.silu, lambda g, s: _SILU_BACKWARD(g, s.x), "x")
MISH = _unary("mish", _F.mish, lambda g, s: _MISH_BACKWARD(g, s.x), "x")
SOFTPLUS = _unary("softplus", _softplus_forward,
                  lambda g, s: _SOFTPLUS_BACKWARD(g, s.x, s.beta, _SOFTPLUS_THRESHOLD), "x",
                  ("beta",))
LOG_SIGMOID = _unary("log_sigmoid", _F.logsigmoid, _log_sigmoid_rule, "x")


# -- softmax variants along a dim ------------------------------------------------------------------
def _quiet_softmax_forward(x, dim):
    """``exp(x_i) / (1 + sum_j exp(x_j))``: a softmax with an extra zero logit, computed shifted
    by the constant (as Burn: detached) ``max(max_j x_j, 0)`` so that nothing overflows."""
    shift = x.detach().amax(dim, keepdim=True).clamp_(min=0.0)
    e = torch.sub(x, shift).exp_()
    return torch.div(e, e.sum(dim, keepdim=True).add_(shift.neg_().exp_()))


def _softmin_forward(x, dim):
    return torch.softmax(torch.neg(x), dim)


def _softmax_like_rule(g, s):
    """``y * (g - sum(g * y))``: the Jacobian of softmax, and of quiet softmax, from the output."""
    return _softmax_backward(g, s.out, s.dim, s.out.dtype)


SOFTMIN = _unary("softmin", _softmin_forward,
                 lambda g, s: _softmax_backward(g, s.out, s.dim, s.out.dtype).neg_(), "out", ("dim",))
QUIET_SOFTMAX = _unary("quiet_softmax", _quiet_softmax_forward, _softmax_like_rule, "out", ("dim",))


# -- a loss built on log_softmax (burn_torch.loss) -------------------------------------------------
def _rows(x):
    """The number of positions the last dim is reduced at: all elements over the last dim's size."""
    return x.numel() // x.shape[-1]


def _cross_entropy_forward(logits, target):
    """``-mean(sum(target * log_softmax(logits, -1), -1))`` as shape ``[1]``."""
    total = torch.mul(torch.log_softmax(logits, -1), target).sum()
    return total.neg_().div_(_rows(logits)).reshape(1)


def _cross_entropy_rule(g, s, parents):
    """logits get ``(softmax * sum(target, -1) - target) * g / rows``; target gets
    ``-log_softmax * g / rows``. The log-softmax is recomputed from the saved logits (one
    log-softmax for both gradients: a fused rule)."""
    logits, target = s.logits, s.target
    scale = g / _rows(logits)
    log_p = torch.log_softmax(logits, -1)
    gl = gt = None
    if parents[0] is not None:
        gl = torch.exp(log_p).mul_(target.sum(-1, keepdim=True)).sub_(target).mul_(scale)
    if parents[1] is not None:
        gt = log_p.mul_(scale).neg_()
    return gl, gt


CROSS_ENTROPY_WITH_LOGITS = defop("cross_entropy_with_logits", _cross_entropy_forward, COMPUTE,
                                  inputs=("logits", "target"), fused=_cross_entropy_rule,
                                  needs=(("logits", "target"), ("logits", "target")))


# -- Burn's piecewise and exponential activations (``burn_tensor::activation``) --------------------
# Burn composes these from masks (``mask_where``/``mask_fill`` on ``x <= t``); torch's kernels
# compute the same values, and their backward kernels the same gradients except where noted.
_ELU_BACKWARD = kernel(aten.elu_backward.default)
_GLU_BACKWARD = kernel(aten.glu_backward.default)
_HARDSHRINK_BACKWARD = kernel(aten.hardshrink_backward.default)
SELU_ALPHA = 1.6732632423543772848170429916717
SELU_GAMMA = 1.0507009873554804934193349852946


def _elu_rule(g, s):
    """``alpha * exp(x)`` where ``x <= 0`` (Burn's mask includes 0, as torch's kernel), 1 above."""
    return _ELU_BACKWARD(g, s.alpha, 1.0, 1.0, False, s.x)


def _celu_rule(g, s):
    """``exp(x / alpha)`` where ``x <= 0``, 1 above."""
    return _ELU_BACKWARD(g, s.alpha, 1.0, 1.0 / s.alpha, False, s.x)


def _selu_rule(g, s):
    """``gamma`` from 0 up (Burn's mask is ``x >= 0``; torch's kernel gives the negative branch's
    ``gamma * alpha`` at exactly 0), ``gamma * alpha * exp(x)`` below."""
    x = s.x
    return torch.where(x == 0, g * SELU_GAMMA, _ELU_BACKWARD(g, SELU_ALPHA, SELU_GAMMA, 1.0, False, x))


def _softsign_forward(x):
    return torch.abs(x).add_(1).reciprocal_().mul_(x)


def _softsign_rule(g, s):
    """``1 / (1 + |x|)^2`` (1 at 0: Burn's ``abs`` has gradient ``sign(x)``)."""
    return torch.abs(s.x).add_(1).square_().reciprocal_().mul_(g)


def _tanhshrink_rule(g, s):
    """``tanh(x)^2``."""
    return torch.tanh(s.x).square_().mul_(g)


_HARD_SWISH_ALPHA = 1.0 / 6.0


def _hard_swish_forward(x):
    """``x * clamp(x / 6 + 1/2, 0, 1)``, Burn's ``x * hard_sigmoid(x, 1/6, 0.5)``."""
    return _hard_sigmoid_forward(x, _HARD_SWISH_ALPHA, 0.5).mul_(x)


def _hard_swish_rule(g, s):
    """``hard_sigmoid(x) + x / 6`` where the clamp passes (bounds included, as Burn's clamp)."""
    x = s.x
    z = torch.mul(x, _HARD_SWISH_ALPHA).add_(0.5)
    inside = (z >= 0) & (z <= 1)
    return torch.where(inside, x * _HARD_SWISH_ALPHA, 0.0).add_(z.clamp_(0.0, 1.0)).mul_(g)


def _shrink_forward(x, lambd, bias):
    """0 where ``|x| <= lambda``, ``x - sign(x) * bias`` elsewhere: torch's hardshrink
    (``bias == 0``) or softshrink (``bias == lambda >= 0``) kernel when one applies."""
    if bias == 0.0:
        return _F.hardshrink(x, lambd)
    if bias == lambd and lambd >= 0.0:
        return _F.softshrink(x, lambd)
    return torch.where(torch.abs(x) <= lambd, 0.0, x - torch.sign(x) * bias)


def _shrink_rule(g, s):
    """1 where ``|x| > lambda`` (the sign's gradient is 0), 0 elsewhere."""
    return _HARDSHRINK_BACKWARD(g, s.x, s.lambd)


def _threshold_rule(g, s):
    """1 where ``x > threshold``, 0 where Burn's mask ``x <= threshold`` fills ``value``."""
    return _THRESHOLD_BACKWARD(g, s.x, s.threshold)


ELU = _unary("elu", _F.elu, _elu_rule, "x", ("alpha",))
CELU = _unary("celu", torch.celu, _celu_rule, "x", ("alpha",))
SELU = _unary("selu", torch.selu, _selu_rule, "x")
SOFTSIGN = _unary("softsign", _softsign_forward, _softsign_rule, "x")
TANHSHRINK = _unary("tanhshrink", _F.tanhshrink, _tanhshrink_rule, "x")
HARD_SWISH = _unary("hard_swish", _hard_swish_forward, _hard_swish_rule, "x")
SHRINK = _unary("shrink", _shrink_forward, _shrink_rule, "x", ("lambd", "bias"))
THRESHOLD = _unary("threshold", torch.threshold, _threshold_rule, "x", ("threshold", "value"))
GLU = _unary("glu", _F.glu, lambda g, s: _GLU_BACKWARD(g, s.x, s.dim), "x", ("dim",))
