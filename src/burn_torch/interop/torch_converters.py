"""``from_torch_module`` converters for the standard containers (``Sequential``, ``ModuleList``,
``ModuleDict``) and the common layers: linear, 1-D and 2-D convolutions, batch/layer/group norm,
embedding, recurrent layers, multi-head attention, activations, dropout, 2-D pools and
``Flatten``. Registered at import.
"""
from __future__ import annotations

import re
import warnings

import torch

from .. import nn
from ..device import Device
from ..module import Module
from .converter_registry import (check_padding_mode, conversion_options, from_torch_module, pair,
                                 parameterless, register_converter, unsupported, with_weights)
from .state_dict import load_torch_state_dict
from .torch_layers import Flatten, Identity, Sequential, StackedGru, StackedLstm, StackedRnn


# ================================================================ containers ==========
def _sequential(module: torch.nn.Sequential, device: Device) -> Sequential:
    # Burn-shaped children convert to layers (a container child would be a list or dict)
    return Sequential([from_torch_module(child, device) for child in module])  # type: ignore[misc]


def _module_list(module: torch.nn.ModuleList, device: Device) -> list:
    return [from_torch_module(child, device) for child in module]


def _module_dict(module: torch.nn.ModuleDict, device: Device) -> dict:
    return {name: from_torch_module(child, device) for name, child in module.items()}


# ================================================================ layers ==============
def _linear(m: torch.nn.Linear, device: Device) -> nn.Linear:
    layer = nn.LinearConfig(m.in_features, m.out_features).with_bias(m.bias is not None).init(device)
    return with_weights(layer, m)


def _conv1d(m: torch.nn.Conv1d, device: Device) -> nn.Conv1d:
    check_padding_mode(m)
    padding = (nn.PaddingConfig1d.same() if m.padding == "same" else nn.PaddingConfig1d.valid()
               if m.padding == "valid"
               else nn.PaddingConfig1d.explicit(m.padding[0]))  # type: ignore[arg-type]  # a tuple here
    config = nn.Conv1dConfig(m.in_channels, m.out_channels, m.kernel_size[0], stride=m.stride[0],
                             dilation=m.dilation[0], groups=m.groups, padding=padding,
                             bias=m.bias is not None)
    return with_weights(config.init(device), m)


def _conv2d(m: torch.nn.Conv2d, device: Device) -> nn.Conv2d:
    check_padding_mode(m)
    padding = (nn.PaddingConfig2d.same() if m.padding == "same" else nn.PaddingConfig2d.valid()
               if m.padding == "valid" else nn.PaddingConfig2d.explicit(*m.padding))
    config = nn.Conv2dConfig([m.in_channels, m.out_channels], list(m.kernel_size),
                             stride=list(m.stride), dilation=list(m.dilation), groups=m.groups,
                             padding=padding, bias=m.bias is not None)
    return with_weights(config.init(device), m)


def _batch_norm(m: torch.nn.modules.batchnorm._BatchNorm, device: Device) -> nn.BatchNorm:
    if not m.affine or not m.track_running_stats or m.momentum is None:
        raise unsupported(m, "affine=False, track_running_stats=False or momentum=None")
    choice = conversion_options().batch_norm_running_var
    if choice is None:
        raise ValueError(
            f"from_torch_module: {type(m).__name__}({m.num_features}) would change numbers once "
            f"trained: torch updates running_var with the unbiased batch variance, Burn's "
            f"BatchNorm with the biased one, so running variances and eval outputs drift apart "
            f"with every training step (inference from the loaded statistics is the same). Say "
            f"which you want: from_torch_module(..., batch_norm_running_var=\"torch\") keeps "
            f"torch's numbers (BatchNormConfig.with_unbiased_running_var(True), a burn_torch "
            f"option), batch_norm_running_var=\"burn\" follows Burn")
    config = nn.BatchNormConfig(m.num_features, epsilon=m.eps, momentum=m.momentum,
                                unbiased_running_var=choice == "torch")
    return with_weights(config.init(device), m)


def _layer_norm(m: torch.nn.LayerNorm, device: Device) -> nn.LayerNorm:
    if len(m.normalized_shape) != 1 or not m.elementwise_affine:
        raise unsupported(m, "a multi-dimensional normalized_shape or elementwise_affine=False")
    config = nn.LayerNormConfig(m.normalized_shape[0], epsilon=m.eps, bias=m.bias is not None)
    return with_weights(config.init(device), m)


def _group_norm(m: torch.nn.GroupNorm, device: Device) -> nn.GroupNorm:
    config = nn.GroupNormConfig(m.num_groups, m.num_channels, epsilon=m.eps, affine=m.affine)
    return with_weights(config.init(device), m)


def _embedding(m: torch.nn.Embedding, device: Device) -> nn.Embedding:
    if m.padding_idx is not None or m.max_norm is not None or m.scale_grad_by_freq or m.sparse:
        raise unsupported(m, "padding_idx, max_norm, scale_grad_by_freq or sparse")
    return with_weights(nn.EmbeddingConfig(m.num_embeddings, m.embedding_dim).init(device), m)


_RECURRENT = {  # torch class -> (Burn config, Bi config, stacked container)
    torch.nn.LSTM: (nn.LstmConfig, nn.BiLstmConfig, StackedLstm),
    torch.nn.GRU: (nn.GruConfig, nn.BiGruConfig, StackedGru),
    torch.nn.RNN: (nn.RnnConfig, nn.BiRnnConfig, StackedRnn),
}


def _recurrent(m: torch.nn.RNNBase, device: Device) -> Module:
    """One Burn layer (or its Bi form) per torch layer; several, or a seq-first GRU (Burn's
    ``Gru`` is batch-first), in a Stacked container keeping torch's keys and layout."""
    if getattr(m, "proj_size", 0):
        raise unsupported(m, "proj_size > 0")
    config_cls, bi_cls, stacked = _RECURRENT[type(m)]
    width = m.hidden_size * (2 if m.bidirectional else 1)
    layers = []
    for k in range(m.num_layers):
        config = (bi_cls if m.bidirectional else config_cls)(
            m.input_size if k == 0 else width, m.hidden_size, m.bias)
        if m.bidirectional or type(m) is not torch.nn.GRU:
            config = config.with_batch_first(m.batch_first)
        if type(m) is torch.nn.RNN and m.nonlinearity == "relu":
            config = config.with_hidden_activation(nn.ActivationConfig.relu())
        suffix = re.compile(f"_l{k}(_reverse)?$")
        weights = {suffix.sub(lambda mt: "_l0" + (mt.group(1) or ""), name): t
                   for name, t in m.state_dict().items() if suffix.search(name)}
        layers.append(load_torch_state_dict(config.init(device), weights)[0])
    single_ok = m.bidirectional or type(m) is not torch.nn.GRU or m.batch_first
    if m.num_layers == 1 and single_ok:
        return layers[0]
    return stacked(layers, m.dropout, batch_first=m.batch_first)


def _multihead_attention(m: torch.nn.MultiheadAttention, device: Device) -> nn.MultiHeadAttention:
    if not m._qkv_same_embed_dim or m.bias_k is not None or m.add_zero_attn:
        raise unsupported(m, "kdim/vdim, add_bias_kv or add_zero_attn")
    if not m.batch_first:
        warnings.warn("from_torch_module: burn_torch's MultiHeadAttention takes [batch, seq, d_model] "
                      "inputs (torch.nn.MultiheadAttention here has batch_first=False): swap the "
                      "first two dims of its inputs in the ported forward", stacklevel=3)
    bias = m.in_proj_bias is not None
    config = (nn.MultiHeadAttentionConfig(m.embed_dim, m.num_heads, dropout=m.dropout)
              .with_enable_query_bias(bias).with_enable_key_bias(bias)
              .with_enable_value_bias(bias).with_enable_output_bias(m.out_proj.bias is not None))
    return with_weights(config.init(device), m)


def _gelu(m: torch.nn.GELU, device: Device) -> nn.Gelu:
    return nn.Gelu(m.approximate == "tanh")


def _leaky_relu(m: torch.nn.LeakyReLU, device: Device) -> nn.LeakyRelu:
    return nn.LeakyReluConfig(m.negative_slope).init()


def _prelu(m: torch.nn.PReLU, device: Device) -> nn.PRelu:
    return with_weights(nn.PReluConfig(m.num_parameters).init(device), m)


def _dropout(m: torch.nn.Dropout, device: Device) -> nn.Dropout:
    return nn.DropoutConfig(m.p).init()


def _max_pool2d(m: torch.nn.MaxPool2d, device: Device) -> nn.MaxPool2d:
    if m.return_indices:
        raise unsupported(m, "return_indices=True")
    padding = nn.PaddingConfig2d.explicit(*pair(m.padding))
    return nn.MaxPool2dConfig(pair(m.kernel_size), strides=pair(m.stride or m.kernel_size),
                              padding=padding, dilation=pair(m.dilation),
                              ceil_mode=m.ceil_mode).init()


def _avg_pool2d(m: torch.nn.AvgPool2d, device: Device) -> nn.AvgPool2d:
    if m.divisor_override is not None:
        raise unsupported(m, "divisor_override")
    padding = nn.PaddingConfig2d.explicit(*pair(m.padding))
    return nn.AvgPool2dConfig(pair(m.kernel_size), strides=pair(m.stride or m.kernel_size),
                              padding=padding, count_include_pad=m.count_include_pad,
                              ceil_mode=m.ceil_mode).init()


def _adaptive_avg_pool2d(m: torch.nn.AdaptiveAvgPool2d, device: Device) -> nn.AdaptiveAvgPool2d:
    size = pair(m.output_size)
    if None in size:
        raise unsupported(m, "an output_size of None")
    return nn.AdaptiveAvgPool2dConfig(size).init()


def _flatten(m: torch.nn.Flatten, device: Device) -> Flatten:
    return Flatten(m.start_dim, m.end_dim)


for _cls, _converter in {
    torch.nn.Sequential: _sequential, torch.nn.ModuleList: _module_list,
    torch.nn.ModuleDict: _module_dict, torch.nn.Linear: _linear, torch.nn.Conv1d: _conv1d,
    torch.nn.Conv2d: _conv2d, torch.nn.BatchNorm1d: _batch_norm, torch.nn.BatchNorm2d: _batch_norm,
    torch.nn.LayerNorm: _layer_norm, torch.nn.GroupNorm: _group_norm,
    torch.nn.Embedding: _embedding, torch.nn.LSTM: _recurrent, torch.nn.GRU: _recurrent,
    torch.nn.RNN: _recurrent,
    torch.nn.MultiheadAttention: _multihead_attention, torch.nn.GELU: _gelu,
    torch.nn.LeakyReLU: _leaky_relu, torch.nn.PReLU: _prelu, torch.nn.Dropout: _dropout,
    torch.nn.MaxPool2d: _max_pool2d,
    torch.nn.AvgPool2d: _avg_pool2d, torch.nn.AdaptiveAvgPool2d: _adaptive_avg_pool2d,
    torch.nn.Flatten: _flatten, torch.nn.ReLU: parameterless(nn.Relu),
    torch.nn.Sigmoid: parameterless(nn.Sigmoid), torch.nn.Tanh: parameterless(nn.Tanh),
    torch.nn.Identity: parameterless(Identity),
}.items():
    # mypy joins the converters' differing signatures to 'function'
    register_converter(_cls, _converter)  # type: ignore[arg-type]
