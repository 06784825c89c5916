"""Normalisations, each one op with one fused backward (torch's native kernels both ways):
layer norm and RMS norm over the last dim, group norm over channel groups (instance norm is
group norm with one channel per group), batch norm's training form (batch statistics over
every dim but the channels, gradients through them) and its form with given statistics
(Burn's ``module::batch_norm``, every input differentiable).

All are applied with ``applyn`` over ``(x, gamma)`` or ``(x, gamma, beta)``: the forward gets
the storages as one tuple; an absent ``beta`` (and, for group norm, absent ``gamma`` and
``beta``) is simply not passed. Forwards return ``(out, *statistics)``: the per-row mean and
reciprocal standard deviation the backward kernels read.
"""
import torch

from .table import COMPUTE, defop
from .kernels import kernel

aten = torch.ops.aten
# forwards through torch's Python bindings (a few µs cheaper per call than aten's op overloads)
_LAYER_NORM = torch.native_layer_norm
_LAYER_NORM_BACKWARD = kernel(aten.native_layer_norm_backward.default)
_RMS_NORM = torch._fused_rms_norm
_GROUP_NORM = torch.native_group_norm
_GROUP_NORM_BACKWARD = kernel(aten.native_group_norm_backward.default)
_BATCH_NORM = torch.native_batch_norm
_BATCH_NORM_BACKWARD = kernel(aten.native_batch_norm_backward.default)


def _tracked(parents) -> list:
    return [p is not None for p in parents]


# ---- layer norm: (x - mean) / sqrt(var + epsilon) * gamma + beta over the last dim --------------
def _layer_norm_forward(datas, epsilon):
    x, gamma = datas[0], datas[1]
    beta = datas[2] if len(datas) == 3 else None
    return _LAYER_NORM(x, [x.shape[-1]], gamma, beta, epsilon)


def _layer_norm_rule(g, s, parents):
    """torch's kernel computes every tracked input's gradient in one pass; it reads the weight
    tensor whichever gradient it computes, and the bias tensor for beta's (hence the needs)."""
    x = s.x
    tracked = _tracked(parents) + [False] * (3 - len(parents))
    gx, gg, gb = _LAYER_NORM_BACKWARD(g, x, [x.shape[-1]], s.mean, s.rstd, s.gamma, s.beta,
                                      tracked)
    return (gx, gg) if len(parents) == 2 else (gx, gg, gb)


# ---- RMS norm: x / sqrt(mean(x^2) + epsilon) * gamma over the last dim --------------------------
def _rms_norm_forward(datas, epsilon):
    x, gamma = datas
    return _RMS_NORM(x, [x.shape[-1]], gamma, epsilon)


def _rms_norm_rule(g, s, parents):
    """The formula of torch's fused backward kernel (which has no CPU implementation):
    ``x`` gets ``rstd * (g gamma - x rstd^2 mean(g gamma x))``, ``gamma`` gets ``sum(g x rstd)``
    over the rows (``rstd`` is the forward's ``1 / sqrt(mean(x^2) + epsilon)``, ``[..., 1]``)."""
    x, rstd = s.x, s.rstd
    gx = gg = None
    if parents[0] is not None:
        gy = g * s.gamma
        dot = torch.mul(gy, x).mean(-1, keepdim=True).mul_(rstd).mul_(rstd)
        gx = torch.mul(x, dot).neg_().add_(gy).mul_(rstd)
    if parents[1] is not None:
        gg = torch.mul(g, x).mul_(rstd).reshape(-1, x.shape[-1]).sum(0)
    return gx, gg


# ---- group norm over [batch, channels, ...] in num_groups groups ---------------------------------
def _group_sizes(x):
    n, c = x.shape[0], x.shape[1]
    return n, c, x.numel() // max(n * c, 1)


def _group_norm_forward(datas, num_groups, epsilon):
    """``(out, mean, rstd, gamma)``: ``gamma`` (None without affine parameters) is a residual so
    that the input's gradient reads it whether or not the parameters are passed."""
    x = datas[0]
    gamma, beta = (datas[1], datas[2]) if len(datas) == 3 else (None, None)
    out, mean, rstd = _GROUP_NORM(x, gamma, beta, *_group_sizes(x), num_groups, epsilon)
    return out, mean, rstd, gamma


def _group_norm_rule(g, s, parents):
    x = s.x
    mask = _tracked(parents) + [False] * (3 - len(parents))
    gx, gg, gb = _GROUP_NORM_BACKWARD(g.contiguous(), x, s.mean, s.rstd, s.weight, *_group_sizes(x),
                                      s.num_groups, mask)
    return (gx,) if len(parents) == 1 else (gx, gg, gb)


# ---- batch norm, training form: (x - mean) / sqrt(var + epsilon) * gamma + beta per channel ------
# (dim 1), mean and biased variance over every other dim, the gradient through them (torch's
# kernels). attrs (epsilon, batch): ``batch`` is None or two [channels] buffers the forward fills
# with the batch mean and unbiased variance (the kernel's running-statistics update with
# momentum 1), from which nn.BatchNorm updates its running statistics, Burn's way
def _batch_norm_forward(datas, epsilon, batch):
    x, gamma, beta = datas
    mean, var = (None, None) if batch is None else batch
    return _BATCH_NORM(x, gamma, beta, mean, var, True, 1.0, epsilon)


def _batch_norm_rule(g, s, parents):
    return _BATCH_NORM_BACKWARD(g, s.x, s.gamma, None, None, s.mean, s.invstd, True, s.epsilon,
                                _tracked(parents))


# ---- batch norm with given statistics (Burn's ``module::batch_norm``): (x - mean) /
# sqrt(variance + epsilon) * gamma + beta per channel (dim 1), every input differentiable, as
# Burn's composition of tensor ops is. torch's eval-form kernels give x's, gamma's and beta's
# gradients; mean's and variance's follow from the last two
def _batch_norm_stats_forward(datas, epsilon):
    x, gamma, beta, mean, var = datas
    return _BATCH_NORM(x, gamma, beta, mean, var, False, 0.0, epsilon)[0]


def _batch_norm_stats_rule(g, s, parents):
    """``d mean = -gamma invstd sum(g)`` (``sum(g)`` is beta's gradient) and ``d var =
    -gamma invstd^2 sum(g (x - mean) invstd) / 2`` (the sum is gamma's gradient), with
    ``invstd = 1 / sqrt(var + epsilon)``; the sums run over every dim but the channels."""
    tx, tg, tb, tm, tv = _tracked(parents)
    gx, gg, gb = _BATCH_NORM_BACKWARD(g, s.x, s.gamma, s.mean, s.var, None, None, False,
                                      s.epsilon, [tx, tg or tv, tb or tm])
    invstd = torch.add(s.var, s.epsilon).rsqrt_()
    gmean = torch.mul(s.gamma, invstd).mul_(gb).neg_() if tm else None
    gvar = torch.mul(s.gamma, invstd.square()).mul_(gg).mul_(-0.5) if tv else None
    return gx, gg if tg else None, gb if tb else None, gmean, gvar


_STATS = ("x", "mean", "rstd")
LAYER_NORM = defop("layer_norm", _layer_norm_forward, COMPUTE, inputs=("x", "gamma", "beta"),
                   attrs=("epsilon",), residuals=("mean", "rstd"), fused=_layer_norm_rule,
                   needs=((*_STATS, "gamma"), (*_STATS, "gamma"), (*_STATS, "gamma", "beta")))
RMS_NORM = defop("rms_norm", _rms_norm_forward, COMPUTE, inputs=("x", "gamma"),
                 attrs=("epsilon",), residuals=("rstd",), fused=_rms_norm_rule,
                 needs=(("x", "rstd", "gamma"), ("x", "rstd")))
GROUP_NORM = defop("group_norm", _group_norm_forward, COMPUTE, inputs=("x", "gamma", "beta"),
                   attrs=("num_groups", "epsilon"), residuals=("mean", "rstd", "weight"),
                   fused=_group_norm_rule, needs=((*_STATS, "weight"),) * 3)
BATCH_NORM = defop("batch_norm", _batch_norm_forward, COMPUTE, inputs=("x", "gamma", "beta"),
                   attrs=("epsilon", "batch"), residuals=("mean", "invstd"),
                   fused=_batch_norm_rule,
                   needs=(("x", "gamma", "mean", "invstd"),) * 3)
BATCH_NORM_STATS = defop("batch_norm_stats", _batch_norm_stats_forward, COMPUTE,
                         inputs=("x", "gamma", "beta", "mean", "var"), attrs=("epsilon",),
                         fused=_batch_norm_stats_rule,
                         needs=(("x", "gamma", "mean", "var"),) * 5)
