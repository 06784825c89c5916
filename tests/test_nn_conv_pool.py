"""Burn's convolution, pooling and resampling layers against their torch twins: Conv3d,
ConvTranspose1d/3d, DeformConv2d (against torchvision's formula written in plain torch, as
torchvision is not a dependency), MaxPool1d, AvgPool1d, AdaptiveAvgPool1d/3d, Interpolate1d/2d,
Unfold4d, Fold4d, PixelShuffle and PixelUnshuffle. Same weights through the state-dict adapters;
outputs and the gradients of the input and of every parameter equal within 1e-5 in float32 and
1e-10 in float64. Then Burn's config defaults, names and the cases where Burn and torch differ."""
from __future__ import annotations

import pytest
import torch
import torch.nn.functional as tf

from burn_torch import Device, Tensor, nn
from burn_torch.compat import load_torch_state_dict, to_torch_state_dict
from spec.module import deform_conv2d_ref
from test_nn_layers import BURN_DTYPE, DTYPES, Case, close, randn, run_both

CPU = Device.cpu()
P1, P2, P3 = nn.PaddingConfig1d, nn.PaddingConfig2d, nn.PaddingConfig3d
INF = float("inf")


class Fn(torch.nn.Module):
    """A parameterless torch twin written as a function (padding then a torch pool, ...)."""

    def __init__(self, fn) -> None:
        super().__init__()
        self.fn = fn

    def forward(self, *xs):
        return self.fn(*xs)


class TorchDeformConv2d(torch.nn.Module):
    """torchvision's ``DeformConv2d`` (same parameter names), its forward written in plain
    torch (``spec.module.deform_conv2d_ref``)."""

    def __init__(self, c_in, c_out, kernel, stride=1, padding=0, dilation=1, weight_groups=1,
                 offset_groups=1) -> None:
        super().__init__()
        self.weight = torch.nn.Parameter(torch.randn(c_out, c_in // weight_groups, *kernel))
        self.bias = torch.nn.Parameter(torch.randn(c_out))
        pair = lambda v: list(v) if isinstance(v, (list, tuple)) else [v] * 2  # noqa: E731
        self.kw = dict(stride=pair(stride), padding=pair(padding), dilation=pair(dilation),
                       weight_groups=weight_groups, offset_groups=offset_groups)

    def forward(self, x, offset, mask=None):
        return deform_conv2d_ref(x, offset, self.weight, mask, self.bias, **self.kw)


def offsets(*shape, dtype):
    """Offsets away from whole pixels, where bilinear sampling has kinks."""
    o = randn(*shape, dtype=dtype, seed=5)
    return o + 0.1 * torch.sign(o) * (o - o.round()).abs().lt(0.05)


CASES = {
    "conv3d": Case(lambda: nn.Conv3dConfig([4, 6], [3, 2, 2]).with_stride([2, 1, 1])
                   .with_dilation([1, 2, 1]).with_groups(2).with_padding(P3.explicit(1, 0, 1))
                   .init(CPU),
                   lambda: torch.nn.Conv3d(4, 6, (3, 2, 2), stride=(2, 1, 1), padding=(1, 0, 1),
                                           dilation=(1, 2, 1), groups=2),
                   lambda dt: [randn(2, 4, 5, 6, 4, dtype=dt)]),
    "conv3d_same_no_bias": Case(lambda: nn.Conv3dConfig([2, 3], [3, 3, 1]).with_bias(False)
                                .with_padding(P3.same()).init(CPU),
                                lambda: torch.nn.Conv3d(2, 3, (3, 3, 1), padding="same",
                                                        bias=False),
                                lambda dt: [randn(1, 2, 4, 5, 3, dtype=dt)]),
    "conv_transpose1d": Case(lambda: nn.ConvTranspose1dConfig([4, 6], 3).with_stride(2)
                             .with_padding(1).with_padding_out(1).with_dilation(1).with_groups(2)
                             .init(CPU),
                             lambda: torch.nn.ConvTranspose1d(4, 6, 3, stride=2, padding=1,
                                                              output_padding=1, groups=2),
                             lambda dt: [randn(2, 4, 7, dtype=dt)]),
    "conv_transpose3d": Case(lambda: nn.ConvTranspose3dConfig([2, 4], [2, 3, 2])
                             .with_stride([2, 1, 2]).with_padding([0, 1, 1])
                             .with_padding_out([1, 0, 1]).with_dilation([1, 2, 1]).init(CPU),
                             lambda: torch.nn.ConvTranspose3d(2, 4, (2, 3, 2), stride=(2, 1, 2),
                                                              padding=(0, 1, 1),
                                                              output_padding=(1, 0, 1),
                                                              dilation=(1, 2, 1)),
                             lambda dt: [randn(1, 2, 3, 4, 3, dtype=dt)]),
    "deform_conv2d": Case(lambda: nn.DeformConv2dConfig([4, 6], [3, 3]).with_weight_groups(2)
                          .with_offset_groups(2).with_padding(P2.explicit(1, 1)).init(CPU),
                          lambda: TorchDeformConv2d(4, 6, (3, 3), padding=1, weight_groups=2,
                                                    offset_groups=2),
                          lambda dt: [randn(2, 4, 5, 4, dtype=dt),
                                      offsets(2, 36, 5, 4, dtype=dt),
                                      randn(2, 18, 5, 4, dtype=dt, seed=6).sigmoid()]),
    "deform_conv2d_strided_no_mask": Case(
        lambda: nn.DeformConv2dConfig([2, 3], [2, 3]).with_stride([2, 1])
        .with_dilation([1, 2]).init(CPU),
        lambda: TorchDeformConv2d(2, 3, (2, 3), stride=[2, 1], dilation=[1, 2]),
        lambda dt: [randn(1, 2, 6, 7, dtype=dt), offsets(1, 12, 3, 3, dtype=dt)]),
    "max_pool1d": Case(lambda: nn.MaxPool1dConfig(3).with_stride(2).with_padding(P1.explicit(1))
                       .with_dilation(2).with_ceil_mode(True).init(),
                       lambda: torch.nn.MaxPool1d(3, stride=2, padding=1, dilation=2,
                                                  ceil_mode=True),
                       lambda dt: [randn(2, 3, 10, dtype=dt)]),
    "max_pool1d_same_even_kernel": Case(
        lambda: nn.MaxPool1dConfig(4).with_stride(1).with_padding(P1.same()).init(),
        lambda: Fn(lambda x: tf.max_pool1d(tf.pad(x, (1, 2), value=-INF), 4, 1)),
        lambda dt: [randn(2, 3, 7, dtype=dt)]),
    "avg_pool1d": Case(lambda: nn.AvgPool1dConfig(3).with_padding(P1.explicit(1))
                       .with_count_include_pad(False).init(),
                       lambda: torch.nn.AvgPool1d(3, padding=1, count_include_pad=False),
                       lambda dt: [randn(2, 3, 10, dtype=dt)]),
    "avg_pool1d_asymmetric": Case(
        lambda: nn.AvgPool1dConfig(2).with_stride(1).with_padding(P1.explicit(0, 1)).init(),
        lambda: Fn(lambda x: tf.avg_pool1d(tf.pad(x, (0, 1)), 2, 1)),
        lambda dt: [randn(2, 3, 6, dtype=dt)]),
    "adaptive_avg_pool1d": Case(lambda: nn.AdaptiveAvgPool1dConfig(4).init(),
                                lambda: torch.nn.AdaptiveAvgPool1d(4),
                                lambda dt: [randn(2, 3, 9, dtype=dt)]),
    "adaptive_avg_pool3d": Case(lambda: nn.AdaptiveAvgPool3dConfig([2, 3, 2]).init(),
                                lambda: torch.nn.AdaptiveAvgPool3d((2, 3, 2)),
                                lambda dt: [randn(2, 3, 5, 7, 4, dtype=dt)]),
    "interpolate1d_nearest": Case(lambda: nn.Interpolate1dConfig().with_output_size(7).init(),
                                  lambda: torch.nn.Upsample(size=7, mode="nearest"),
                                  lambda dt: [randn(2, 3, 4, dtype=dt)]),
    "interpolate1d_linear_scale": Case(
        lambda: nn.Interpolate1dConfig().with_scale_factor(2.5)
        .with_mode(nn.InterpolateMode.LINEAR).init(),
        lambda: torch.nn.Upsample(scale_factor=2.5, mode="linear", align_corners=True,
                                  recompute_scale_factor=True),
        lambda dt: [randn(2, 3, 5, dtype=dt)]),
    "interpolate1d_cubic": Case(
        lambda: nn.Interpolate1dConfig(6, None, nn.InterpolateMode.CUBIC, False).init(),
        lambda: Fn(lambda x: tf.interpolate(x.unsqueeze(2), size=(1, 6), mode="bicubic",
                                            align_corners=False).squeeze(2)),
        lambda dt: [randn(2, 3, 4, dtype=dt)]),
    "interpolate2d_bilinear": Case(
        lambda: nn.Interpolate2dConfig().with_output_size([5, 3])
        .with_mode(nn.InterpolateMode.LINEAR).with_align_corners(False).init(),
        lambda: torch.nn.Upsample(size=(5, 3), mode="bilinear", align_corners=False),
        lambda dt: [randn(2, 3, 4, 6, dtype=dt)]),
    "interpolate2d_cubic_scale": Case(
        lambda: nn.Interpolate2dConfig(None, [1.5, 2.0], nn.InterpolateMode.CUBIC).init(),
        lambda: torch.nn.Upsample(scale_factor=(1.5, 2.0), mode="bicubic", align_corners=True,
                                  recompute_scale_factor=True),
        lambda dt: [randn(1, 2, 4, 3, dtype=dt)]),
    "interpolate2d_nearest_down": Case(
        lambda: nn.Interpolate2dConfig().with_output_size([2, 3]).init(),
        lambda: torch.nn.Upsample(size=(2, 3), mode="nearest"),
        lambda dt: [randn(1, 2, 5, 7, dtype=dt)]),
    "unfold4d": Case(lambda: nn.Unfold4dConfig([2, 3]).with_stride([1, 2]).with_dilation([2, 1])
                     .with_padding([1, 0]).init(),
                     lambda: torch.nn.Unfold((2, 3), dilation=(2, 1), padding=(1, 0),
                                             stride=(1, 2)),
                     lambda dt: [randn(2, 3, 5, 7, dtype=dt)]),
    "fold4d": Case(lambda: nn.Fold4dConfig([5, 7], [2, 3]).with_stride([1, 2])
                   .with_dilation([2, 1]).with_padding([1, 0]).init(),
                   lambda: torch.nn.Fold((5, 7), (2, 3), dilation=(2, 1), padding=(1, 0),
                                         stride=(1, 2)),
                   lambda dt: [randn(2, 18, 15, dtype=dt)]),
    "pixel_shuffle": Case(lambda: nn.PixelShuffleConfig(3).init(),
                          lambda: torch.nn.PixelShuffle(3),
                          lambda dt: [randn(2, 18, 2, 3, dtype=dt)]),
    "pixel_unshuffle": Case(lambda: nn.PixelUnshuffleConfig(2).init(),
                            lambda: torch.nn.PixelUnshuffle(2),
                            lambda dt: [randn(2, 3, 4, 6, dtype=dt)]),
}


@pytest.mark.parametrize("dtype, tol", DTYPES)
@pytest.mark.parametrize("name", list(CASES))
def test_layer_output_and_gradients_equal_torch(name, dtype, tol):
    outs_t, outs_b, grads_t, grads_b, inputs = run_both(CASES[name], dtype)
    for o_t, o_b in zip(outs_t, outs_b, strict=True):
        assert o_b.dtype() == BURN_DTYPE[dtype]
        close(o_b.to_torch(), o_t.detach(), tol)
    assert inputs
    for g_t, g_b in inputs:
        close(g_b.to_torch(), g_t, tol)
    assert sorted(grads_b) == sorted(grads_t)
    for key, g_t in grads_t.items():
        close(grads_b[key], g_t, tol)


STATEFUL = [n for n in CASES if CASES[n].torch().state_dict()]


@pytest.mark.parametrize("name", STATEFUL)
def test_state_dict_keeps_torch_names_and_values(name):
    reference = CASES[name].torch()
    loaded, _ = load_torch_state_dict(CASES[name].burn(), reference.state_dict())
    exported = to_torch_state_dict(loaded)
    assert list(exported) == list(reference.state_dict())
    for key, value in reference.state_dict().items():
        assert torch.equal(exported[key], value), key


# ---- Burn's configs: defaults, positional new(...) order, field names ----------------------------
def test_pool1d_stride_defaults_to_kernel_size():
    assert nn.MaxPool1dConfig(3).init().stride == 3
    assert nn.AvgPool1dConfig(4).stride == 4
    assert nn.AvgPool1dConfig(4).count_include_pad is True


def test_conv3d_config_defaults_follow_burn():
    config = nn.Conv3dConfig([2, 4], [3, 3, 3])
    assert (config.stride, config.dilation, config.groups, config.bias) == ((1, 1, 1), (1, 1, 1),
                                                                              1, True)
    assert config.padding == P3.valid()


def test_conv_transpose1d_positional_fields_are_burns():
    layer = nn.ConvTranspose1dConfig([2, 4], 3, 2, 1, 2, 1, 1, False).init(CPU)
    assert (layer.stride, layer.kernel_size, layer.dilation, layer.groups, layer.padding,
            layer.padding_out, layer.channels) == (2, 3, 1, 2, 1, 1, [2, 4])
    assert layer.bias is None
    assert layer.weight.val().dims() == [2, 2, 3]  # [channels_in, channels_out / groups, k]


def test_deform_conv2d_keeps_its_offset_groups():
    layer = nn.DeformConv2dConfig([4, 2], [3, 3]).with_offset_groups(4).init(CPU)
    assert (layer.weight_groups, layer.offset_groups) == (1, 4)


def test_interpolate_config_defaults_follow_burn():
    config = nn.Interpolate2dConfig()
    assert (config.output_size, config.scale_factor, config.mode, config.align_corners) == (
        None, None, nn.InterpolateMode.NEAREST, True)


def test_fold4d_inverts_unfold4d_where_blocks_do_not_overlap():
    x = Tensor.from_data(randn(1, 2, 4, 6), CPU)
    unfold = nn.Unfold4dConfig([2, 3]).with_stride([2, 3]).init()
    fold = nn.Fold4dConfig([4, 6], [2, 3]).with_stride([2, 3]).init()
    assert torch.equal(fold.forward(unfold.forward(x)).to_torch(), x.to_torch())


# ---- where Burn and torch differ ---------------------------------------------------------------
def test_conv_transpose1d_computes_padding_out_not_smaller_than_stride():
    """torch's kernel rejects output_padding >= stride; Burn computes it: the output grows by
    ``padding_out`` and the positions past the kernel's reach hold only the bias."""
    layer = nn.ConvTranspose1dConfig([2, 3], 3).with_padding_out(2).init(CPU)
    x = Tensor.from_data(randn(1, 2, 4), CPU)
    out = layer.forward(x).to_torch()
    full = tf.conv_transpose1d(x.to_torch(), layer.weight.val().to_torch(),
                               layer.bias.val().to_torch())
    assert list(out.shape) == [1, 3, 8]
    close(out[..., :6], full, 1e-6)
    close(out[..., 6:], layer.bias.val().to_torch().view(1, 3, 1).expand(1, 3, 2), 0)


def test_interpolate_lanczos_is_refused_with_value_error():
    layer = nn.Interpolate2dConfig([4, 4], None, nn.InterpolateMode.LANCZOS).init()
    with pytest.raises(ValueError, match="Lanczos"):
        layer.forward(Tensor.from_data(randn(1, 1, 2, 2), CPU))


def test_interpolate_needs_exactly_one_of_size_and_scale():
    with pytest.raises(ValueError, match="output_size or scale_factor"):
        nn.Interpolate1dConfig().init().forward(Tensor.from_data(randn(1, 1, 3), CPU))


def test_conv3d_same_padding_with_even_kernel_is_refused():
    with pytest.raises(ValueError, match="even kernel"):
        nn.Conv3dConfig([1, 1], [2, 3, 3]).with_padding(P3.same()).init(CPU)


def test_pixel_shuffle_refuses_channels_not_divisible_by_factor_squared():
    with pytest.raises(ValueError, match="divisible"):
        nn.PixelShuffleConfig(2).init().forward(Tensor.from_data(randn(1, 6, 2, 2), CPU))


def test_deform_conv2d_refuses_offsets_of_the_wrong_shape():
    layer = nn.DeformConv2dConfig([2, 2], [3, 3]).init(CPU)
    with pytest.raises(ValueError, match="offset must have shape"):
        layer.forward(Tensor.from_data(randn(1, 2, 5, 5), CPU),
                      Tensor.from_data(randn(1, 18, 5, 5), CPU))


# ---- from_torch_module -------------------------------------------------------------------------
CONVERTED = {
    "Conv3d": (lambda: torch.nn.Conv3d(2, 4, (3, 1, 2), padding=(1, 0, 1), groups=2),
               (1, 2, 4, 3, 5)),
    "ConvTranspose1d": (lambda: torch.nn.ConvTranspose1d(2, 3, 3, stride=2, output_padding=1),
                        (2, 2, 5)),
    "ConvTranspose2d": (lambda: torch.nn.ConvTranspose2d(2, 4, (2, 3), stride=(2, 1), groups=2,
                                                         bias=False), (1, 2, 3, 4)),
    "ConvTranspose3d": (lambda: torch.nn.ConvTranspose3d(2, 2, 2, padding=1, dilation=2),
                        (1, 2, 3, 3, 3)),
    "MaxPool1d": (lambda: torch.nn.MaxPool1d(3, 2, padding=1, ceil_mode=True), (2, 3, 8)),
    "AvgPool1d": (lambda: torch.nn.AvgPool1d(2, count_include_pad=False, padding=1), (2, 3, 7)),
    "AdaptiveAvgPool1d": (lambda: torch.nn.AdaptiveAvgPool1d(3), (2, 3, 8)),
    "AdaptiveAvgPool3d": (lambda: torch.nn.AdaptiveAvgPool3d((2, 1, 3)), (1, 2, 4, 3, 5)),
    "Upsample 2d nearest": (lambda: torch.nn.Upsample(scale_factor=2), (1, 2, 3, 4)),
    "Upsample 1d nearest": (lambda: torch.nn.Upsample(scale_factor=3), (1, 2, 4)),
    "Upsample bilinear": (lambda: torch.nn.Upsample(size=(5, 7), mode="bilinear"), (1, 2, 3, 4)),
    "Upsample linear recomputed": (lambda: torch.nn.Upsample(
        scale_factor=1.5, mode="linear", align_corners=True, recompute_scale_factor=True),
        (1, 2, 5)),
    "PixelShuffle": (lambda: torch.nn.PixelShuffle(2), (1, 8, 2, 3)),
    "PixelUnshuffle": (lambda: torch.nn.PixelUnshuffle(2), (1, 2, 4, 6)),
    "Unfold": (lambda: torch.nn.Unfold(2, stride=2), (1, 2, 4, 6)),
    "Fold": (lambda: torch.nn.Fold((4, 6), 2, stride=2), (1, 8, 6)),
}


@pytest.mark.parametrize("name", list(CONVERTED))
def test_from_torch_module_converts_to_the_same_function(name):
    from burn_torch.compat import from_torch_module
    make, shape = CONVERTED[name]
    torch.manual_seed(0)
    reference = make()
    x = randn(*shape)
    layer = from_torch_module(reference, CPU)
    close(layer.forward(Tensor.from_data(x, CPU)).to_torch(), reference(x).detach(), 1e-5)


def test_from_torch_module_refuses_a_fractional_scale_factor():
    from burn_torch.compat import from_torch_module
    with pytest.raises(ValueError, match="fractional scale_factor"):
        from_torch_module(torch.nn.Upsample(scale_factor=2.5), CPU)
