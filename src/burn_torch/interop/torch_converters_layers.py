"""``from_torch_module`` converters for the activations, normalisations and distance layers of
``burn_torch.nn`` that ``torch.nn`` has twins of. A torch setting the burn_torch layer computes
differently (an even ``LocalResponseNorm`` window, running statistics in an instance norm)
raises ValueError naming it."""
from __future__ import annotations

import torch

from .. import nn
from ..device import Device
from ..module import Module
from .converter_registry import (Converter, parameterless, register_converter, unsupported,
                                 with_weights)


def _instance_norm(m: torch.nn.modules.instancenorm._InstanceNorm, device: Device) -> nn.InstanceNorm:
    if m.track_running_stats:
        raise unsupported(m, "track_running_stats=True")
    config = nn.InstanceNormConfig(m.num_features, m.eps, m.affine)
    return with_weights(config.init(device), m)


def _rms_norm(m: torch.nn.RMSNorm, device: Device) -> nn.RmsNorm:
    if len(m.normalized_shape) != 1 or not m.elementwise_affine:
        raise unsupported(m, "a normalized_shape of several dims or elementwise_affine=False")
    eps = m.eps if m.eps is not None else torch.finfo(torch.get_default_dtype()).eps
    return with_weights(nn.RmsNormConfig(m.normalized_shape[0], eps).init(device), m)


def _local_response_norm(m: torch.nn.LocalResponseNorm, device: Device) -> nn.LocalResponseNorm:
    if m.size % 2 == 0:
        raise unsupported(m, "an even size (Burn's window leans the other way)")
    return nn.LocalResponseNormConfig(m.size, m.alpha, m.beta, m.k).init()


def _softplus(m: torch.nn.Softplus, device: Device) -> nn.Softplus:
    if m.threshold != 20:
        raise unsupported(m, "a threshold other than 20")
    return nn.SoftplusConfig(m.beta).init()


def _pairwise_distance(m: torch.nn.PairwiseDistance, device: Device) -> nn.PairwiseDistance:
    if m.keepdim:
        raise unsupported(m, "keepdim=True")
    return nn.PairwiseDistanceConfig(m.norm, m.eps).init()


def _configured(make) -> Converter:
    def convert(m: torch.nn.Module, device: Device) -> Module:
        return make(m)
    return convert


for _cls, _converter in {
    torch.nn.ELU: _configured(lambda m: nn.EluConfig(m.alpha).init()),
    torch.nn.CELU: _configured(lambda m: nn.CeluConfig(m.alpha).init()),
    torch.nn.Hardshrink: _configured(lambda m: nn.HardShrinkConfig(m.lambd).init()),
    torch.nn.Softshrink: _configured(lambda m: nn.SoftShrinkConfig(m.lambd).init()),
    torch.nn.Hardsigmoid: _configured(lambda m: nn.HardSigmoidConfig(1.0 / 6.0, 0.5).init()),
    torch.nn.Hardtanh: _configured(lambda m: nn.HardtanhConfig(m.min_val, m.max_val).init()),
    torch.nn.Threshold: _configured(lambda m: nn.ThresholdConfig(m.threshold, m.value).init()),
    torch.nn.RReLU: _configured(lambda m: nn.RReluConfig(m.lower, m.upper).init()),
    torch.nn.GLU: _configured(lambda m: nn.GLU(m.dim)),
    torch.nn.CosineSimilarity: _configured(lambda m: nn.CosineSimilarityConfig(m.dim, m.eps).init()),
    torch.nn.Softplus: _softplus, torch.nn.PairwiseDistance: _pairwise_distance,
    torch.nn.InstanceNorm1d: _instance_norm, torch.nn.InstanceNorm2d: _instance_norm,
    torch.nn.InstanceNorm3d: _instance_norm, torch.nn.RMSNorm: _rms_norm,
    torch.nn.LocalResponseNorm: _local_response_norm,
    torch.nn.SELU: parameterless(nn.Selu), torch.nn.Hardswish: parameterless(nn.HardSwish),
    torch.nn.ReLU6: parameterless(nn.Relu6), torch.nn.LogSigmoid: parameterless(nn.LogSigmoid),
    torch.nn.Mish: parameterless(nn.Mish), torch.nn.SiLU: parameterless(nn.SiLU),
    torch.nn.Softsign: parameterless(nn.Softsign), torch.nn.Tanhshrink: parameterless(nn.Tanhshrink),
}.items():
    register_converter(_cls, _converter)
