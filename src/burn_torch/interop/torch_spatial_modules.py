"""``from_torch_module`` converters for torch's 3-D and transposed convolutions, 1-D and
adaptive pools, ``Upsample``, ``PixelShuffle``/``PixelUnshuffle``, ``Unfold``/``Fold`` and the
transformer decoder (registered into ``.converter_registry`` when ``.torch_modules`` loads).

``torch.nn.Upsample`` does not know the rank of its input; it converts to ``Upsample``,
which resizes a rank-3 input with ``Interpolate1d`` and a rank-4 one with ``Interpolate2d``.
A scale factor converts when it gives torch's coordinates: an integer factor, or
``recompute_scale_factor=True`` (Burn resizes to ``floor(size * factor)`` and maps coordinates
with the size ratio, as torch does then).
"""
from __future__ import annotations

import torch

from .. import nn
from ..device import Device
from ..module import Module
from ..tensor import Tensor
from .converter_registry import (check_padding_mode, pair, register_converter, unsupported,
                                 with_weights)


def _triple(value) -> list[int]:
    return list(value) if isinstance(value, (tuple, list)) else [value] * 3


def _single(value) -> int:
    return value[0] if isinstance(value, (tuple, list)) else value


def _conv3d(m: torch.nn.Conv3d, device: Device) -> nn.Conv3d:
    check_padding_mode(m)
    padding = (nn.PaddingConfig3d.same() if m.padding == "same" else nn.PaddingConfig3d.valid()
               if m.padding == "valid" else nn.PaddingConfig3d.explicit(*m.padding))
    config = nn.Conv3dConfig([m.in_channels, m.out_channels], list(m.kernel_size),
                             stride=list(m.stride), dilation=list(m.dilation), groups=m.groups,
                             padding=padding, bias=m.bias is not None)
    return with_weights(config.init(device), m)


_TRANSPOSED = {torch.nn.ConvTranspose1d: nn.ConvTranspose1dConfig,
               torch.nn.ConvTranspose2d: nn.ConvTranspose2dConfig,
               torch.nn.ConvTranspose3d: nn.ConvTranspose3dConfig}


def _conv_transpose(m: torch.nn.modules.conv._ConvTransposeNd, device: Device) -> Module:
    check_padding_mode(m)
    config_class = next(c for t, c in _TRANSPOSED.items() if isinstance(m, t))
    one = config_class is nn.ConvTranspose1dConfig
    pick = (lambda v: v[0]) if one else list
    config = config_class([m.in_channels, m.out_channels], pick(m.kernel_size),
                          stride=pick(m.stride), dilation=pick(m.dilation), groups=m.groups,
                          padding=pick(m.padding), padding_out=pick(m.output_padding),
                          bias=m.bias is not None)
    return with_weights(config.init(device), m)


def _max_pool1d(m: torch.nn.MaxPool1d, device: Device) -> nn.MaxPool1d:
    if m.return_indices:
        raise unsupported(m, "return_indices=True")
    return nn.MaxPool1dConfig(_single(m.kernel_size), stride=_single(m.stride or m.kernel_size),
                              padding=nn.PaddingConfig1d.explicit(_single(m.padding)),
                              dilation=_single(m.dilation), ceil_mode=m.ceil_mode).init()


def _avg_pool1d(m: torch.nn.AvgPool1d, device: Device) -> nn.AvgPool1d:
    return nn.AvgPool1dConfig(_single(m.kernel_size), stride=_single(m.stride or m.kernel_size),
                              padding=nn.PaddingConfig1d.explicit(_single(m.padding)),
                              count_include_pad=m.count_include_pad, ceil_mode=m.ceil_mode).init()


def _adaptive_avg_pool1d(m: torch.nn.AdaptiveAvgPool1d, device: Device) -> nn.AdaptiveAvgPool1d:
    size = _single(m.output_size)
    if size is None:
        raise unsupported(m, "an output_size of None")
    return nn.AdaptiveAvgPool1dConfig(size).init()


def _adaptive_avg_pool3d(m: torch.nn.AdaptiveAvgPool3d, device: Device) -> nn.AdaptiveAvgPool3d:
    size = _triple(m.output_size)
    if None in size:
        raise unsupported(m, "an output_size of None")
    return nn.AdaptiveAvgPool3dConfig(size).init()


class Upsample(Module):
    """``torch.nn.Upsample``: ``interpolate_1d`` for ``[batch, channels, length]`` inputs,
    ``interpolate_2d`` for ``[batch, channels, h, w]`` (either None where the mode has no such
    rank: ``linear`` is 1-D, ``bilinear``/``bicubic`` 2-D)."""

    def __init__(self, interpolate_1d: nn.Interpolate1d | None,
                 interpolate_2d: nn.Interpolate2d | None) -> None:
        super().__init__()
        self.interpolate_1d = interpolate_1d
        self.interpolate_2d = interpolate_2d

    def forward(self, input: Tensor) -> Tensor:
        """The resized input; ValueError for a rank the mode does not resize."""
        layer = {3: self.interpolate_1d, 4: self.interpolate_2d}.get(input.rank())
        if layer is None:
            raise ValueError(f"Upsample: cannot resize a rank-{input.rank()} input in this mode")
        return layer.forward(input)


_MODES = {"nearest": (nn.InterpolateMode.NEAREST, (1, 2)),
          "linear": (nn.InterpolateMode.LINEAR, (1,)),
          "bilinear": (nn.InterpolateMode.LINEAR, (2,)),
          "bicubic": (nn.InterpolateMode.CUBIC, (2,))}


def _upsample(m: torch.nn.Upsample, device: Device) -> Upsample:
    if m.mode not in _MODES:
        raise unsupported(m, f"mode={m.mode!r}")
    mode, ranks = _MODES[m.mode]
    scales = m.scale_factor
    if scales is not None and not m.recompute_scale_factor:
        values = scales if isinstance(scales, (tuple, list)) else [scales]
        if any(float(s) != int(s) for s in values):
            raise unsupported(m, "a fractional scale_factor without recompute_scale_factor=True")
    align = bool(m.align_corners)

    def layer(n: int):
        if n not in ranks:
            return None
        size, scale = m.size, m.scale_factor
        if isinstance(size, (tuple, list)) and len(size) != n or \
                isinstance(scale, (tuple, list)) and len(scale) != n:
            return None
        if n == 1:
            return nn.Interpolate1dConfig(_single(size), None if scale is None else
                                          float(_single(scale)), mode, align).init()
        return nn.Interpolate2dConfig(
            None if size is None else pair(size),
            None if scale is None else [float(s) for s in pair(scale)], mode, align).init()

    return Upsample(layer(1), layer(2))


def _unfold(m: torch.nn.Unfold, device: Device) -> nn.Unfold4d:
    return nn.Unfold4dConfig(pair(m.kernel_size), stride=pair(m.stride),
                             dilation=pair(m.dilation), padding=pair(m.padding)).init()


def _fold(m: torch.nn.Fold, device: Device) -> nn.Fold4d:
    return nn.Fold4dConfig(pair(m.output_size), pair(m.kernel_size), stride=pair(m.stride),
                           dilation=pair(m.dilation), padding=pair(m.padding)).init()


def _decoder_config(layer: torch.nn.TransformerDecoderLayer, n_layers: int):
    if not layer.self_attn.batch_first:
        raise unsupported(layer, "batch_first=False (burn_torch's decoder is batch-first)")
    act = layer.activation
    if act in (torch.nn.functional.relu, torch.relu) or type(act) is torch.nn.ReLU:
        activation = nn.ActivationConfig.relu()
    elif act is torch.nn.functional.gelu or (type(act) is torch.nn.GELU
                                              and act.approximate == "none"):
        activation = nn.ActivationConfig.gelu()
    else:
        raise unsupported(layer, f"activation={act!r} (relu and exact gelu convert)")
    if layer.linear1.bias is None:
        raise unsupported(layer, "bias=False")
    return nn.TransformerDecoderConfig(
        layer.self_attn.embed_dim, layer.linear1.out_features, layer.self_attn.num_heads,
        n_layers, dropout=layer.dropout.p, norm_first=layer.norm_first,
        activation=activation, layer_norm_eps=layer.norm1.eps)


def _decoder_layer(m: torch.nn.TransformerDecoderLayer,
                   device: Device) -> nn.TransformerDecoderLayer:
    layer = nn.TransformerDecoderLayer.new(_decoder_config(m, 1), device)
    return with_weights(layer, m)


def _decoder(m: torch.nn.TransformerDecoder, device: Device) -> nn.TransformerDecoder:
    if m.norm is not None:
        raise unsupported(m, "a final norm (Burn's TransformerDecoder has none)")
    return with_weights(_decoder_config(m.layers[0], len(m.layers)).init(device), m)


for _cls, _converter in {
    torch.nn.Conv3d: _conv3d, torch.nn.ConvTranspose1d: _conv_transpose,
    torch.nn.ConvTranspose2d: _conv_transpose, torch.nn.ConvTranspose3d: _conv_transpose,
    torch.nn.MaxPool1d: _max_pool1d, torch.nn.AvgPool1d: _avg_pool1d,
    torch.nn.AdaptiveAvgPool1d: _adaptive_avg_pool1d,
    torch.nn.AdaptiveAvgPool3d: _adaptive_avg_pool3d, torch.nn.Upsample: _upsample,
    torch.nn.PixelShuffle: lambda m, d: nn.PixelShuffleConfig(m.upscale_factor).init(),
    torch.nn.PixelUnshuffle: lambda m, d: nn.PixelUnshuffleConfig(m.downscale_factor).init(),
    torch.nn.Unfold: _unfold, torch.nn.Fold: _fold,
    torch.nn.TransformerDecoderLayer: _decoder_layer, torch.nn.TransformerDecoder: _decoder,
}.items():
    # mypy joins the converters' differing signatures to 'function'
    register_converter(_cls, _converter)  # type: ignore[arg-type]
