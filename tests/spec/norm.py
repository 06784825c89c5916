"""Spec rows: normalisations (``ops/norm.py``), each one op with a fused backward, through
``burn_torch.module_ops`` (batch norm's training op directly: ``nn.BatchNorm`` records it;
``batch_norm_stats`` is ``module_ops.batch_norm``, the statistics given),
against references written with plain torch (Burn's formulas:
biased variance, epsilon inside the square root)."""

import torch.nn.functional as tf

from burn_torch import module_ops as mo
from burn_torch.autodiff.recorder import apply3
from burn_torch.ops.norm import BATCH_NORM
from spec import F, K, P, Row

X = F(2, 3, 6)


def _layer_norm(x, gamma, beta, eps):
    mean = x.mean(-1, keepdim=True)
    var = (x - mean).square().mean(-1, keepdim=True)
    out = (x - mean) / (var + eps).sqrt() * gamma
    return out if beta is None else out + beta


def _rms_norm(x, gamma, eps):
    return x / (x.square().mean(-1, keepdim=True) + eps).sqrt() * gamma


def _group_norm(x, gamma, beta, groups, eps):
    n, c = x.shape[:2]
    g = x.reshape(n, groups, -1)
    mean = g.mean(-1, keepdim=True)
    var = (g - mean).square().mean(-1, keepdim=True)
    out = ((g - mean) / (var + eps).sqrt()).reshape(x.shape)
    if gamma is None:
        return out
    shape = [1, c] + [1] * (x.dim() - 2)
    return out * gamma.reshape(shape) + beta.reshape(shape)


def _batch_norm(x, gamma, beta):
    """BatchNorm's training step (the op ``nn.BatchNorm`` records), epsilon 1e-5."""
    return apply3(BATCH_NORM, x, gamma, beta, (1e-5, None))


def _batch_norm_ref(x, gamma, beta):
    return tf.batch_norm(x, None, None, gamma, beta, training=True, eps=1e-5)


def _given_stats(x, gamma, beta, mean, var, eps=1e-5):
    """Burn's module::batch_norm, with the statistics given."""
    shape = [1, x.shape[1]] + [1] * (x.dim() - 2)
    return ((x - mean.reshape(shape)) / (var.reshape(shape) + eps).sqrt() * gamma.reshape(shape)
            + beta.reshape(shape))


def _batch_norm_stats(x, gamma, beta, mean, var):
    return mo.batch_norm(x, gamma, beta, mean, var, 1e-5)


ROWS = [
    Row("batch_norm_stats", _batch_norm_stats, _given_stats, (F(2, 3, 4), F(3), F(3), F(3), P(3))),
    Row("batch_norm_stats", _batch_norm_stats, _given_stats, (F(4, 3), F(3), F(3), F(3), P(3)),
        variant="[batch, features]"),
    Row("batch_norm_stats", _batch_norm_stats, _given_stats,
        (F(2, 3, 2, 3), K(3), K(3), F(3), P(3)),
        variant="[batch, channels, h, w], affine constant"),
    Row("batch_norm_stats", _batch_norm_stats, _given_stats,
        (K(2, 3, 4), F(3), K(3), K(3), P(3, lo=0.1, hi=0.5)),
        variant="only gamma and variance tracked"),
    Row("batch_norm_stats", _batch_norm_stats, _given_stats,
        (F(2, 3, 4), K(3), F(3), K(3), K(3, lo=0.5, hi=2.0)),
        variant="running statistics constant"),
    Row("batch_norm", _batch_norm, _batch_norm_ref, (F(5, 3), F(3), F(3)),
        variant="[batch, features]"),
    Row("batch_norm", _batch_norm, _batch_norm_ref, (F(2, 3, 4, 2), F(3), F(3)),
        variant="[batch, channels, height, width]"),
    Row("batch_norm", _batch_norm, _batch_norm_ref, (K(2, 3, 5), F(3), F(3)),
        variant="x constant"),
    Row("batch_norm", _batch_norm, _batch_norm_ref, (F(2, 3, 5), K(3), K(3)),
        variant="parameters constant"),
    Row("layer_norm", lambda x, g, b: mo.layer_norm(x, g, b, 1e-5),
        lambda x, g, b: _layer_norm(x, g, b, 1e-5), (X, F(6), F(6))),
    Row("layer_norm", lambda x, g: mo.layer_norm(x, g, None, 1e-3),
        lambda x, g: _layer_norm(x, g, None, 1e-3), (X, F(6)), variant="no beta"),
    Row("layer_norm", lambda x, g, b: mo.layer_norm(x, g, b, 1e-5),
        lambda x, g, b: _layer_norm(x, g, b, 1e-5), (K(2, 3, 6), F(6), F(6)),
        variant="x constant (parameters only)"),
    Row("rms_norm", lambda x, g: mo.rms_norm(x, g, 1e-5), lambda x, g: _rms_norm(x, g, 1e-5),
        (X, F(6))),
    Row("group_norm", lambda x, g, b: mo.group_norm(x, g, b, 3, 1e-5),
        lambda x, g, b: _group_norm(x, g, b, 3, 1e-5), (F(2, 6, 4), F(6), F(6))),
    Row("group_norm", lambda x: mo.group_norm(x, None, None, 2, 1e-5),
        lambda x: _group_norm(x, None, None, 2, 1e-5), (F(2, 4, 3, 2),), variant="no affine"),
    Row("group_norm", lambda x, g, b: mo.group_norm(x, g, b, 4, 1e-5),
        lambda x, g, b: _group_norm(x, g, b, 4, 1e-5), (F(3, 4, 5), F(4), F(4)),
        variant="instance norm"),
    Row("rms_norm", lambda x, g: mo.rms_norm(x, g, 1e-5), lambda x, g: _rms_norm(x, g, 1e-5),
        (K(2, 3, 6), F(6)), variant="x constant"),
    Row("group_norm", lambda x, g, b: mo.group_norm(x, g, b, 3, 1e-5),
        lambda x, g, b: _group_norm(x, g, b, 3, 1e-5), (K(2, 6, 4), F(6), F(6)),
        variant="x constant"),
    Row("group_norm", lambda x, g, b: mo.group_norm(x, g, b, 3, 1e-5),
        lambda x, g, b: _group_norm(x, g, b, 3, 1e-5), (F(2, 6, 4), K(6), K(6)),
        variant="parameters constant"),
]
