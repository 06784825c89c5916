"""``burn_torch.module_ops``: Burn's ``tensor::module`` functions.

Every differentiable op's values and gradients are property-tested against torch autograd
(``burn_torch.testing``, drawn shapes, options and constant operands), and its forward against
the ``torch.nn.functional`` equivalent after Burn's layout conversions (``linear``'s weight is
``[d_input, d_output]``; attention's mask is True where masked out). Burn's conventions and the
validation of options and shapes (raised before anything is recorded) are checked with explicit
cases.
"""
from __future__ import annotations

import dataclasses
import math
from dataclasses import dataclass
from typing import Callable

import numpy as np
import pytest
import torch
import torch.nn.functional as F
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import burn_torch
from burn_torch import Device, Int, Tensor
from burn_torch import module_ops
from burn_torch.ops import OPS
from burn_torch.testing import Const, assert_grads_match_torch, check_grads_numerically, covers
from burn_torch.testing.strategies import float_arrays, masks

AD = Device.cpu().autodiff()
CPU = Device.cpu()
SETTINGS = settings(deadline=None, max_examples=25,
                    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
seeds = st.integers(0, 2**16)


def leaf(values) -> Tensor:
    return Tensor.from_data(np.asarray(values, dtype=np.float64), AD).require_grad()


def plain(values) -> Tensor:
    return Tensor.from_data(np.asarray(values, dtype=np.float64), CPU)


def values(t: Tensor):
    return t.to_data().to_list()


@dataclass
class Case:
    """A drawn call: ``burn(*tensors)`` against ``ref(*torch tensors)``; ``inputs`` are float
    arrays (tracked leaves), ``Const`` floats (constants) or Int/Bool arrays (indices, masks)."""

    burn: Callable
    ref: Callable
    inputs: list


def maybe_const(draw, arr):
    return Const(arr) if draw(st.booleans()) and draw(st.booleans()) else arr


def raw(x):
    return x.value if isinstance(x, Const) else x


def assert_forward_matches(case: Case, rtol=1e-10, atol=1e-12):
    burn_args = [plain(raw(a)) if np.asarray(raw(a)).dtype.kind == "f"
                 else Tensor.from_data(np.asarray(a), CPU) for a in case.inputs]
    torch_args = [torch.from_numpy(np.asarray(raw(a))) for a in case.inputs]
    got = case.burn(*burn_args).to_torch()
    want = case.ref(*torch_args)
    torch.testing.assert_close(got, want, rtol=rtol, atol=atol)


def check_grads(case: Case, seed: int):
    assert_grads_match_torch(case.burn, *case.inputs, seed=seed)


# =========================================================================== linear ====
@st.composite
def linear_cases(draw):
    lead = draw(st.lists(st.integers(1, 3), min_size=0, max_size=2))
    d_in, d_out = draw(st.integers(1, 4)), draw(st.integers(1, 4))
    x = draw(float_arrays((*lead, d_in)))
    w = maybe_const(draw, draw(float_arrays((d_in, d_out))))
    inputs = [maybe_const(draw, x), w]
    if draw(st.booleans()):
        inputs.append(maybe_const(draw, draw(float_arrays((d_out,)))))
        return Case(module_ops.linear, lambda x, w, b: x @ w + b, inputs)
    return Case(module_ops.linear, lambda x, w: x @ w, inputs)


@covers("linear")
@SETTINGS
@given(case=linear_cases(), seed=seeds)
def test_linear_gradients_match_torch(case, seed):
    check_grads(case, seed)


@SETTINGS
@given(case=linear_cases())
def test_linear_forward_is_x_times_untransposed_weight_plus_bias(case):
    assert_forward_matches(case)


def test_linear_weight_is_d_input_by_d_output():
    weight = plain([[1.0, 0.0, 3.0], [0.0, 1.0, 1.0]])
    out = module_ops.linear(plain([[1.0, 2.0]]), weight, plain([0.5, 0.5, 0.5]))
    assert values(out) == [[1.5, 2.5, 5.5]]


def test_linear_of_a_rank_1_input_has_rank_1():
    assert module_ops.linear(plain([1.0, 2.0]), plain(np.ones((2, 3)))).dims() == [3]


def test_linear_gradients_match_finite_differences():
    rng = np.random.default_rng(0)
    check_grads_numerically(module_ops.linear, rng.standard_normal((2, 3, 2)), rng.standard_normal((2, 3)),
                            rng.standard_normal(3))


# ======================================================================== embedding ====
@st.composite
def embedding_cases(draw):
    n, d = draw(st.integers(1, 5)), draw(st.integers(1, 3))
    b, s = draw(st.integers(1, 3)), draw(st.integers(1, 4))
    idx = np.random.default_rng(draw(seeds)).integers(0, n, (b, s))
    return Case(module_ops.embedding, lambda w, i: F.embedding(i, w), [draw(float_arrays((n, d))), idx])


@covers("embedding")
@SETTINGS
@given(case=embedding_cases(), seed=seeds)
def test_embedding_gradients_match_torch(case, seed):
    check_grads(case, seed)


@SETTINGS
@given(case=embedding_cases())
def test_embedding_forward_picks_rows(case):
    assert_forward_matches(case)


def test_embedding_gradient_accumulates_repeated_indices():
    w = leaf([[1.0, 1.0], [2.0, 2.0], [3.0, 3.0]])
    out = module_ops.embedding(w, Tensor.from_data([[2, 0, 2]], AD))
    assert out.dims() == [1, 3, 2]
    assert values(w.grad(out.sum().backward())) == [[1.0, 1.0], [0.0, 0.0], [2.0, 2.0]]


# ===================================================================== convolutions ====
@st.composite
def conv_cases(draw, n: int):
    groups = draw(st.integers(1, 2))
    c_in, c_out = groups * draw(st.integers(1, 2)), groups * draw(st.integers(1, 2))
    kernel = [draw(st.integers(1, 3 if n < 3 else 2)) for _ in range(n)]
    stride = [draw(st.integers(1, 2)) for _ in range(n)]
    dilation = [draw(st.integers(1, 2)) for _ in range(n)]
    start = [draw(st.integers(0, 2)) for _ in range(n)]
    asym = n < 3 and draw(st.booleans())
    end = [draw(st.integers(0, 2)) for _ in range(n)] if asym else start
    size = [d * (k - 1) + 1 + draw(st.integers(0, 2)) for d, k in zip(dilation, kernel)]
    x = draw(float_arrays((draw(st.integers(1, 2)), c_in, *size)))
    w = draw(float_arrays((c_out, c_in // groups, *kernel)))
    bias = draw(st.sampled_from(["none", "leaf", "const"]))
    if asym:
        opts = module_ops.PaddedConvOptions.asymmetric(stride=stride, padding_start=start, padding_end=end,
                                              dilation=dilation, groups=groups)
        pads = [p for s, e in zip(reversed(start), reversed(end)) for p in (s, e)]
        pad, padding = (lambda t: F.pad(t, pads)), 0
    else:
        opts = module_ops.ConvOptions(stride=stride, padding=start, dilation=dilation, groups=groups)
        pad, padding = (lambda t: t), start
    conv = getattr(F, f"conv{n}d")
    burn_fn = getattr(module_ops, f"conv{n}d")
    inputs = [maybe_const(draw, x), maybe_const(draw, w)]

    def ref(x, w, b=None):
        return conv(pad(x), w, b, stride=stride, padding=padding, dilation=dilation, groups=groups)

    if bias == "none":
        return Case(lambda x, w: burn_fn(x, w, None, opts), ref, inputs)
    b = draw(float_arrays((c_out,)))
    inputs.append(Const(b) if bias == "const" else b)
    return Case(lambda x, w, b: burn_fn(x, w, b, opts), ref, inputs)


@st.composite
def conv_transpose_cases(draw, n: int):
    groups = draw(st.integers(1, 2))
    c_in, c_out_g = groups * draw(st.integers(1, 2)), draw(st.integers(1, 2))
    kernel = [draw(st.integers(1, 3 if n < 3 else 2)) for _ in range(n)]
    stride = [draw(st.integers(1, 2)) for _ in range(n)]
    dilation = [draw(st.integers(1, 2)) for _ in range(n)]
    padding_out = [draw(st.integers(0, max(s, d) - 1)) for s, d in zip(stride, dilation)]
    size = [draw(st.integers(1, 3)) for _ in range(n)]
    # keep every output dim >= 1: 2p <= (in - 1) s + d (k - 1) + padding_out
    padding = [min(draw(st.integers(0, 2)), ((i - 1) * s + d * (k - 1) + o) // 2)
               for i, s, d, k, o in zip(size, stride, dilation, kernel, padding_out)]
    opts = module_ops.ConvTransposeOptions(stride=stride, padding=padding, padding_out=padding_out,
                                  dilation=dilation, groups=groups)
    x = draw(float_arrays((draw(st.integers(1, 2)), c_in, *size)))
    w = draw(float_arrays((c_in, c_out_g, *kernel)))
    conv = getattr(F, f"conv_transpose{n}d")
    burn_fn = getattr(module_ops, f"conv_transpose{n}d")
    inputs = [maybe_const(draw, x), maybe_const(draw, w)]

    def ref(x, w, b=None):
        return conv(x, w, b, stride=stride, padding=padding, output_padding=padding_out,
                    groups=groups, dilation=dilation)

    if draw(st.booleans()):
        return Case(lambda x, w: burn_fn(x, w, None, opts), ref, inputs)
    inputs.append(maybe_const(draw, draw(float_arrays((c_out_g * groups,)))))
    return Case(lambda x, w, b: burn_fn(x, w, b, opts), ref, inputs)


@covers("conv1d", "conv2d", "conv3d")
@pytest.mark.parametrize("n", [1, 2, 3])
@SETTINGS
@given(data=st.data(), seed=seeds)
def test_conv_gradients_match_torch(n, data, seed):
    check_grads(data.draw(conv_cases(n)), seed)


@pytest.mark.parametrize("n", [1, 2, 3])
@SETTINGS
@given(data=st.data())
def test_conv_forward_equals_torch_conv_with_explicit_asymmetric_padding(n, data):
    assert_forward_matches(data.draw(conv_cases(n)))


@covers("conv_transpose1d", "conv_transpose2d", "conv_transpose3d")
@pytest.mark.parametrize("n", [1, 2, 3])
@SETTINGS
@given(data=st.data(), seed=seeds)
def test_conv_transpose_gradients_match_torch(n, data, seed):
    check_grads(data.draw(conv_transpose_cases(n)), seed)


@pytest.mark.parametrize("n", [1, 2, 3])
@SETTINGS
@given(data=st.data())
def test_conv_transpose_forward_equals_torch_with_channels_in_first_weight(n, data):
    assert_forward_matches(data.draw(conv_transpose_cases(n)))


def test_conv2d_gradients_match_finite_differences():
    rng = np.random.default_rng(1)
    opts = module_ops.PaddedConvOptions.asymmetric(stride=[2, 1], padding_start=[1, 0], padding_end=[0, 2],
                                          dilation=[1, 2], groups=1)
    check_grads_numerically(lambda x, w, b: module_ops.conv2d(x, w, b, opts),
                            rng.standard_normal((1, 2, 4, 4)), rng.standard_normal((2, 2, 2, 2)),
                            rng.standard_normal(2))


def test_conv_transpose1d_weight_is_channels_in_by_channels_out():
    # one input channel, two output channels: each output channel is the input times its tap
    out = module_ops.conv_transpose1d(plain([[[1.0, 2.0]]]), plain([[[10.0], [100.0]]]), None,
                             module_ops.ConvTransposeOptions(stride=[1], padding=[0], padding_out=[0],
                                                    dilation=[1], groups=1))
    assert values(out) == [[[10.0, 20.0], [100.0, 200.0]]]


def test_conv_transpose1d_with_padding_out_not_below_the_stride_runs_as_burn():
    # Burn's regression test (#4845): stride 1, padding_out 1, which torch's kernel rejects
    opts = module_ops.ConvTransposeOptions(stride=[1], padding=[0], padding_out=[1], dilation=[1],
                                           groups=1)
    with pytest.raises(RuntimeError):
        F.conv_transpose1d(torch.ones(2, 2, 4), torch.ones(2, 2, 3), output_padding=1)
    x = Tensor.from_data(torch.arange(16.0).reshape(2, 2, 4), AD).require_grad()
    w = Tensor.from_data(torch.arange(12.0).reshape(2, 2, 3), AD).require_grad()
    out = module_ops.conv_transpose1d(x, w, None, opts)
    assert out.dims() == [2, 2, (4 - 1) * 1 + 1 * (3 - 1) + 1 - 0 + 1]
    grads = out.backward()
    assert x.grad(grads).dims() == [2, 2, 4] and w.grad(grads).dims() == [2, 2, 3]


def test_conv_transpose_entries_past_the_kernels_reach_hold_the_bias():
    opts = module_ops.ConvTransposeOptions(stride=[2], padding=[0], padding_out=[3], dilation=[1],
                                           groups=1)
    out = module_ops.conv_transpose1d(plain([[[1.0, 2.0]]]), plain([[[10.0]]]), plain([0.5]), opts)
    assert values(out) == [[[10.5, 0.5, 20.5, 0.5, 0.5, 0.5]]]


def test_symmetric_padded_conv_options_are_not_asymmetric():
    opts = module_ops.PaddedConvOptions.asymmetric(stride=[1], padding_start=[2], padding_end=[2],
                                          dilation=[1], groups=1)
    assert not opts.is_asymmetric() and opts.padding_end is None


def test_conv3d_rejects_asymmetric_padding_as_burn():
    opts = module_ops.PaddedConvOptions.asymmetric(stride=[1] * 3, padding_start=[0] * 3,
                                          padding_end=[1, 0, 0], dilation=[1] * 3, groups=1)
    with pytest.raises(ValueError, match="asymmetric padding is not supported for conv3d"):
        module_ops.conv3d(plain(np.ones((1, 1, 2, 2, 2))), plain(np.ones((1, 1, 1, 1, 1))), None, opts)


# ========================================================================== pooling ====
@st.composite
def pool_geometry(draw, n: int, dilated: bool):
    kernel = [draw(st.integers(1, 3)) for _ in range(n)]
    stride = [draw(st.integers(1, 2)) for _ in range(n)]
    dilation = [draw(st.integers(1, 2)) if dilated else 1 for _ in range(n)]
    padding = [draw(st.integers(0, k // 2)) for k in kernel]
    size = [d * (k - 1) + 1 + draw(st.integers(0, 3)) for d, k in zip(dilation, kernel)]
    ceil_mode = draw(st.booleans())
    shape = (draw(st.integers(1, 2)), draw(st.integers(1, 2)), *size)
    unwrap = (lambda v: v[0]) if n == 1 else (lambda v: v)
    return shape, unwrap(kernel), unwrap(stride), unwrap(padding), unwrap(dilation), ceil_mode


@st.composite
def avg_pool_cases(draw, n: int):
    shape, k, s, p, _, ceil_mode = draw(pool_geometry(n, dilated=False))
    include = draw(st.booleans())
    burn_fn, ref_fn = getattr(module_ops, f"avg_pool{n}d"), getattr(F, f"avg_pool{n}d")
    return Case(lambda x: burn_fn(x, k, s, p, include, ceil_mode),
                lambda x: ref_fn(x, k, s, p, ceil_mode, include), [draw(float_arrays(shape))])


@st.composite
def max_pool_cases(draw, n: int):
    shape, k, s, p, d, ceil_mode = draw(pool_geometry(n, dilated=True))
    burn_fn, ref_fn = getattr(module_ops, f"max_pool{n}d"), getattr(F, f"max_pool{n}d")
    return Case(lambda x: burn_fn(x, k, s, p, d, ceil_mode),
                lambda x: ref_fn(x, k, s, p, d, ceil_mode),
                [draw(float_arrays(shape, distinct=True))])


@st.composite
def adaptive_cases(draw, n: int):
    size = [draw(st.integers(1, 6 if n < 3 else 4)) for _ in range(n)]
    out = [draw(st.integers(1, 4)) for _ in range(n)]
    arg = out[0] if n == 1 else out
    burn_fn, ref_fn = getattr(module_ops, f"adaptive_avg_pool{n}d"), getattr(F, f"adaptive_avg_pool{n}d")
    return Case(lambda x: burn_fn(x, arg), lambda x: ref_fn(x, arg),
                [draw(float_arrays((draw(st.integers(1, 2)), draw(st.integers(1, 2)), *size)))])


POOLS = {"avg_pool1d": lambda: avg_pool_cases(1), "avg_pool2d": lambda: avg_pool_cases(2),
         "max_pool1d": lambda: max_pool_cases(1), "max_pool2d": lambda: max_pool_cases(2),
         "adaptive_avg_pool1d": lambda: adaptive_cases(1),
         "adaptive_avg_pool2d": lambda: adaptive_cases(2),
         "adaptive_avg_pool3d": lambda: adaptive_cases(3)}


@covers(*POOLS)
@pytest.mark.parametrize("name", sorted(POOLS))
@SETTINGS
@given(data=st.data(), seed=seeds)
def test_pool_gradients_match_torch(name, data, seed):
    check_grads(data.draw(POOLS[name]()), seed)


@pytest.mark.parametrize("name", sorted(POOLS))
@SETTINGS
@given(data=st.data())
def test_pool_forward_equals_torch_functional(name, data):
    assert_forward_matches(data.draw(POOLS[name]()))


def test_max_pool2d_with_indices_returns_flat_int_indices_untracked():
    x = leaf([[[[1.0, 5.0, 2.0], [7.0, 0.0, 3.0]]]])
    out, idx = module_ops.max_pool2d_with_indices(x, [2, 2], [1, 1], [0, 0], [1, 1])
    assert values(out) == [[[[7.0, 5.0]]]]
    assert idx.kind is Int and values(idx) == [[[[3, 1]]]]
    assert out.is_tracked() and not idx.is_tracked() and idx.is_autodiff()


def test_max_pool1d_with_indices_index_along_the_length():
    out, idx = module_ops.max_pool1d_with_indices(plain([[[4.0, 1.0, 0.0, 9.0]]]), 2, 2, 0, 1)
    assert values(out) == [[[4.0, 9.0]]] and values(idx) == [[[0, 3]]]


def test_max_pool_gradient_flows_to_each_window_maximum():
    x = leaf([[[1.0, 5.0, 2.0, 2.5]]])
    out = module_ops.max_pool1d(x, 2, 1, 0, 1)
    assert values(x.grad(out.sum().backward())) == [[[0.0, 2.0, 0.0, 1.0]]]


def test_max_pool_padding_is_minus_infinity():
    out = module_ops.max_pool1d(plain([[[-3.0, -1.0]]]), 2, 2, 1, 1)
    assert values(out) == [[[-3.0, -1.0]]]


def test_avg_pool_count_include_pad_divides_by_the_kernel_size():
    x = plain([[[2.0, 4.0]]])
    assert values(module_ops.avg_pool1d(x, 2, 2, 1, True)) == [[[1.0, 2.0]]]
    assert values(module_ops.avg_pool1d(x, 2, 2, 1, False)) == [[[2.0, 4.0]]]


def test_max_pool2d_gradients_match_finite_differences():
    x = np.random.default_rng(2).permutation(16).reshape(1, 1, 4, 4) / 4.0
    check_grads_numerically(lambda x: module_ops.max_pool2d(x, [2, 2], [1, 2], [1, 0], [1, 1], True), x)


# ==================================================================== interpolation ====
MODES = {module_ops.InterpolateMode.NEAREST: "nearest", module_ops.InterpolateMode.BILINEAR: "bilinear",
         module_ops.InterpolateMode.BICUBIC: "bicubic"}


@st.composite
def interpolate_cases(draw):
    mode = draw(st.sampled_from(list(MODES)))
    align = draw(st.booleans())
    size = [draw(st.integers(1, 6)) for _ in range(2)]
    opts = module_ops.InterpolateOptions(mode=mode, align_corners=align)
    kw = {} if mode is module_ops.InterpolateMode.NEAREST else {"align_corners": align}
    x = draw(float_arrays((draw(st.integers(1, 2)), draw(st.integers(1, 2)),
                           draw(st.integers(1, 4)), draw(st.integers(1, 4)))))
    return Case(lambda x: module_ops.interpolate(x, size, opts),
                lambda x: F.interpolate(x, size=size, mode=MODES[mode], **kw), [x])


@covers("interpolate")
@SETTINGS
@given(case=interpolate_cases(), seed=seeds)
def test_interpolate_gradients_match_torch(case, seed):
    check_grads(case, seed)


@SETTINGS
@given(case=interpolate_cases())
def test_interpolate_forward_equals_torch_interpolate(case):
    assert_forward_matches(case)


def test_interpolate_nearest_takes_floor_of_scaled_index():
    x = plain([[[[0.0, 1.0, 2.0]]]])
    out = module_ops.interpolate(x, [1, 5], module_ops.InterpolateOptions(mode=module_ops.InterpolateMode.NEAREST))
    assert values(out) == [[[[0.0, 0.0, 1.0, 1.0, 2.0]]]]


def test_interpolate_aligns_corners_by_default():
    opts = module_ops.InterpolateOptions(mode=module_ops.InterpolateMode.BILINEAR)
    assert opts.align_corners is True
    assert values(module_ops.interpolate(plain([[[[0.0, 1.0]]]]), [1, 3], opts)) == [[[[0.0, 0.5, 1.0]]]]


def test_interpolate_bicubic_gradients_match_finite_differences():
    x = np.random.default_rng(3).standard_normal((1, 1, 3, 3))
    opts = module_ops.InterpolateOptions(mode=module_ops.InterpolateMode.BICUBIC)
    check_grads_numerically(lambda x: module_ops.interpolate(x, [4, 5], opts), x)


# ========================================================================= unfold4d ====
@st.composite
def unfold_cases(draw):
    kernel = [draw(st.integers(1, 3)) for _ in range(2)]
    stride = [draw(st.integers(1, 2)) for _ in range(2)]
    dilation = [draw(st.integers(1, 2)) for _ in range(2)]
    padding = [draw(st.integers(0, 1)) for _ in range(2)]
    size = [d * (k - 1) + 1 + draw(st.integers(0, 2)) for d, k in zip(dilation, kernel)]
    opts = module_ops.UnfoldOptions(stride=stride, padding=padding, dilation=dilation)
    x = draw(float_arrays((draw(st.integers(1, 2)), draw(st.integers(1, 3)), *size)))
    return Case(lambda x: module_ops.unfold4d(x, kernel, opts),
                lambda x: F.unfold(x, kernel, dilation=dilation, padding=padding, stride=stride),
                [x])


@covers("unfold4d")
@SETTINGS
@given(case=unfold_cases(), seed=seeds)
def test_unfold4d_gradients_match_torch(case, seed):
    check_grads(case, seed)


@SETTINGS
@given(case=unfold_cases())
def test_unfold4d_forward_is_channel_major_columns_as_torch_unfold(case):
    assert_forward_matches(case)


# ======================================================================== attention ====
@st.composite
def attention_cases(draw):
    b, h = draw(st.integers(1, 2)), draw(st.integers(1, 2))
    lq, lk, d = (draw(st.integers(1, 4)) for _ in range(3))
    dv = d if draw(st.booleans()) else draw(st.integers(1, 4))  # equal head dims: fused kernels
    q, k, v = (draw(float_arrays(s)) for s in ((b, h, lq, d), (b, h, lk, d), (b, h, lk, dv)))
    inputs = [maybe_const(draw, q), maybe_const(draw, k), maybe_const(draw, v)]
    if draw(st.booleans()):
        return Case(module_ops.attention, F.scaled_dot_product_attention, inputs)
    mshape = (draw(st.sampled_from([b, 1])), draw(st.sampled_from([h, 1])),
              draw(st.sampled_from([lq, 1])), lk)
    mask = draw(masks(mshape))
    mask[..., 0] = False  # keep a position per row (a fully masked row is NaN, tested below)
    return Case(lambda q, k, v, m: module_ops.attention(q, k, v, m),
                lambda q, k, v, m: F.scaled_dot_product_attention(q, k, v, attn_mask=~m),
                inputs + [mask])


@covers("attention")
@SETTINGS
@given(case=attention_cases(), seed=seeds)
def test_attention_gradients_match_torch(case, seed):
    check_grads(case, seed)


@SETTINGS
@given(case=attention_cases())
def test_attention_forward_equals_torch_sdpa_with_inverted_mask(case):
    assert_forward_matches(case)


@pytest.mark.parametrize("dv", [3, 2], ids=["fused_kernels", "burn_fallback"])
def test_attention_gradients_match_torch_on_both_kernel_paths(dv):
    rng = np.random.default_rng(6)
    q, k, v = (rng.standard_normal(s) for s in ((2, 2, 3, 3), (2, 2, 4, 3), (2, 2, 4, dv)))
    mask = rng.random((2, 1, 3, 4)) < 0.4
    mask[..., 0] = False
    assert_grads_match_torch(lambda q, k, v, m: module_ops.attention(q, k, v, m), q, k, v, mask)


def test_attention_mask_true_excludes_the_position():
    q, k = plain([[[[1.0]]]]), plain([[[[1.0], [1.0]]]])
    v = plain([[[[10.0], [20.0]]]])
    mask = Tensor.from_data([[[[False, True]]]], CPU)
    assert values(module_ops.attention(q, k, v, mask)) == [[[[10.0]]]]
    assert values(module_ops.attention(q, k, v)) == [[[[15.0]]]]


def test_attention_fully_masked_row_is_nan_as_burn():
    mask = Tensor.from_data([[[[True, True]]]], CPU)
    kv = plain([[[[1.0], [2.0]]]])
    out = module_ops.attention(plain([[[[1.0]]]]), kv, kv, mask)
    assert math.isnan(values(out)[0][0][0][0])


def test_attention_scales_scores_by_inverse_sqrt_head_dim():
    q = plain([[[[1.0, 1.0, 1.0, 1.0]]]])
    k = plain([[[[0.0, 0.0, 0.0, 0.0], [1.0, 1.0, 1.0, 1.0]]]])  # scores 0 and 4 / sqrt(4) = 2
    out = module_ops.attention(q, k, plain([[[[0.0], [1.0]]]]))
    assert values(out)[0][0][0][0] == pytest.approx(math.exp(2) / (1 + math.exp(2)), rel=1e-12)


def test_attention_gradients_match_finite_differences():
    rng = np.random.default_rng(4)
    q, k, v = (rng.standard_normal(s) for s in ((1, 2, 3, 2), (1, 2, 4, 2), (1, 2, 4, 3)))
    mask = Tensor.from_data(np.array([[[[False, True, False, True]]]]), AD)
    check_grads_numerically(lambda q, k, v: module_ops.attention(q, k, v, mask), q, k, v)


# ===================================================================== checkpointing ====
def _small_network(x, w, q, w_cols):
    """conv, max pool, attention and unfold4d + linear, with memory-bound ops in between (the
    swap/reshape/mul outputs and the unfold4d columns are recomputed under BALANCED)."""
    h = module_ops.conv2d(x, w, None, module_ops.ConvOptions(stride=[1, 1], padding=[1, 1], dilation=[1, 1],
                                           groups=1))
    h = module_ops.max_pool2d(h.swap_dims(2, 3), [2, 2], [2, 2], [0, 0], [1, 1])
    seq = h.reshape([1, 2, 2, 2])
    att = module_ops.attention(q, seq, seq.mul_scalar(2.0)).sum()
    cols = module_ops.unfold4d(x.mul_scalar(3.0), [2, 2], module_ops.UnfoldOptions(stride=[2, 2], padding=[0, 0],
                                                                 dilation=[1, 1]))
    return att + module_ops.linear(cols.swap_dims(1, 2), w_cols).sum()


def test_balanced_checkpointing_gives_the_same_gradients():
    rng = np.random.default_rng(5)
    arrays = [rng.standard_normal((1, 2, 4, 4)), rng.standard_normal((2, 2, 3, 3)),
              rng.standard_normal((1, 2, 3, 2)), rng.standard_normal((8, 3))]
    grads = []
    for device in (AD, AD.gradient_checkpointing()):
        leaves = [Tensor.from_data(a, device).require_grad() for a in arrays]
        g = _small_network(*leaves).backward()
        grads.append([t.grad(g).to_torch() for t in leaves])
    for a, b in zip(*grads):
        assert torch.equal(a, b)


# ======================================================================== validation ====
def _forward_calls(monkeypatch, name):
    calls = []
    forward = OPS[name].forward

    def counted(*args, **kwargs):
        calls.append(1)
        return forward(*args, **kwargs)

    monkeypatch.setattr(OPS[name], "forward", counted)
    return calls


def test_module_ops_is_exported_from_the_package():
    assert burn_torch.module_ops is module_ops


@pytest.mark.parametrize("field, kwargs, message", [
    ("stride", {"stride": [0, 1]}, "stride must be non-zero"),
    ("dilation", {"dilation": [1, 0]}, "dilation must be non-zero"),
    ("groups", {"groups": 0}, "groups must be non-zero"),
    ("padding", {"padding": [-1, 0]}, "padding must be non-negative"),
    ("length", {"padding": [0]}, "same non-zero length"),
])
def test_conv_options_reject_invalid_fields(field, kwargs, message):
    fields = {"stride": [1, 1], "padding": [0, 0], "dilation": [1, 1], "groups": 1, **kwargs}
    with pytest.raises(ValueError, match=message):
        module_ops.ConvOptions(**fields)


def test_conv_options_reject_non_integer_entries():
    with pytest.raises(TypeError, match="stride must be a list of ints"):
        module_ops.ConvOptions(stride=[1.5], padding=[0], dilation=[1], groups=1)


def test_options_are_immutable_values():
    a = module_ops.ConvOptions(stride=[1], padding=[0], dilation=[1], groups=1)
    assert a == module_ops.ConvOptions(stride=(1,), padding=(0,), dilation=(1,), groups=1)
    assert a.stride == (1,) and hash(a) == hash(module_ops.ConvOptions(stride=[1], padding=[0],
                                                               dilation=[1], groups=1))
    with pytest.raises(dataclasses.FrozenInstanceError):
        a.groups = 2


def test_options_take_keywords_only():
    with pytest.raises(TypeError):
        module_ops.UnfoldOptions([1, 1], [0, 0], [1, 1])


def test_conv_transpose_options_reject_zero_stride():
    with pytest.raises(ValueError, match="stride must be non-zero"):
        module_ops.ConvTransposeOptions(stride=[0], padding=[0], padding_out=[0], dilation=[1], groups=1)


def test_unfold_options_need_two_entries():
    with pytest.raises(ValueError, match="2 entries"):
        module_ops.UnfoldOptions(stride=[1], padding=[0], dilation=[1])


def test_interpolate_options_need_an_interpolate_mode():
    with pytest.raises(TypeError, match="InterpolateMode"):
        module_ops.InterpolateOptions(mode="bilinear")


def test_conv_channel_mismatch_raises_naming_shapes_before_recording(monkeypatch):
    calls = _forward_calls(monkeypatch, "conv2d")
    opts = module_ops.ConvOptions(stride=[1, 1], padding=[0, 0], dilation=[1, 1], groups=1)
    with pytest.raises(ValueError, match=r"x \[1, 3, 4, 4\], weight \[2, 2, 1, 1\]"):
        module_ops.conv2d(leaf(np.ones((1, 3, 4, 4))), leaf(np.ones((2, 2, 1, 1))), None, opts)
    assert not calls


def test_conv_options_of_the_wrong_arity_raise():
    opts = module_ops.ConvOptions(stride=[1, 1], padding=[0, 0], dilation=[1, 1], groups=1)
    with pytest.raises(ValueError, match="conv1d: options must have 1 entries per field"):
        module_ops.conv1d(plain(np.ones((1, 1, 4))), plain(np.ones((1, 1, 1))), None, opts)


def test_conv_rejects_a_bias_of_the_wrong_size():
    opts = module_ops.ConvOptions(stride=[1], padding=[0], dilation=[1], groups=1)
    with pytest.raises(ValueError, match=r"bias must have shape \[2\]"):
        module_ops.conv1d(plain(np.ones((1, 1, 4))), plain(np.ones((2, 1, 1))), plain([1.0]), opts)


def test_conv_needs_conv_options():
    with pytest.raises(TypeError, match="ConvOptions or PaddedConvOptions"):
        module_ops.conv1d(plain(np.ones((1, 1, 4))), plain(np.ones((1, 1, 1))), None, {"stride": [1]})


def test_conv_transpose_channel_mismatch_raises():
    opts = module_ops.ConvTransposeOptions(stride=[1], padding=[0], padding_out=[0], dilation=[1], groups=1)
    with pytest.raises(ValueError, match=r"weight \[3, 1, 1\] expects 3"):
        module_ops.conv_transpose1d(plain(np.ones((1, 2, 4))), plain(np.ones((3, 1, 1))), None, opts)


def test_linear_shape_mismatch_raises_naming_shapes_before_recording(monkeypatch):
    calls = _forward_calls(monkeypatch, "linear")
    with pytest.raises(ValueError, match=r"x \[2, 3\] and weight \[4, 5\]"):
        module_ops.linear(leaf(np.ones((2, 3))), leaf(np.ones((4, 5))))
    assert not calls


def test_linear_needs_float_tensors():
    with pytest.raises(TypeError, match="linear: x must be a Float tensor, got Int"):
        module_ops.linear(Tensor.from_data([[1, 2]], CPU), plain(np.ones((2, 2))))


def test_embedding_needs_rank_2_int_indices():
    with pytest.raises(TypeError, match="indices must be an Int Tensor"):
        module_ops.embedding(plain(np.ones((3, 2))), plain([[0.0]]))
    with pytest.raises(ValueError, match=r"rank 2 \[batch, seq\], got shape \[3\]"):
        module_ops.embedding(plain(np.ones((3, 2))), Tensor.from_data([0, 1, 2], CPU))


def test_pool_rejects_a_zero_kernel_and_the_wrong_rank():
    x = plain(np.ones((1, 1, 4, 4)))
    with pytest.raises(ValueError, match="kernel_size must be non-zero"):
        module_ops.avg_pool2d(x, [0, 1], [1, 1], [0, 0], True)
    with pytest.raises(ValueError, match=r"max_pool1d: x must have rank 3"):
        module_ops.max_pool1d(x, 2, 2, 0, 1)


def test_pool_list_arguments_need_one_entry_per_spatial_dim():
    with pytest.raises(ValueError, match=r"stride must have 2 entries, got \[1\]"):
        module_ops.max_pool2d(plain(np.ones((1, 1, 4, 4))), [2, 2], [1], [0, 0], [1, 1])


def test_attention_shape_mismatch_raises_naming_shapes():
    q, k = plain(np.ones((1, 1, 2, 3))), plain(np.ones((1, 1, 4, 2)))
    with pytest.raises(ValueError, match=r"q \[1, 1, 2, 3\], k \[1, 1, 4, 2\]"):
        module_ops.attention(q, k, plain(np.ones((1, 1, 4, 2))))
    with pytest.raises(ValueError, match="same batch and heads"):
        module_ops.attention(q, plain(np.ones((2, 1, 4, 3))), plain(np.ones((2, 1, 4, 3))))


def test_attention_mask_must_be_bool_and_broadcast_to_the_scores():
    q, kv = plain(np.ones((1, 1, 2, 3))), plain(np.ones((1, 1, 4, 3)))
    with pytest.raises(TypeError, match="mask must be a Bool Tensor"):
        module_ops.attention(q, kv, kv, plain(np.ones((1, 1, 2, 4))))
    with pytest.raises(ValueError, match=r"mask \[1, 1, 2, 3\] must broadcast to the scores "
                                         r"\[1, 1, 2, 4\]"):
        module_ops.attention(q, kv, kv, Tensor.from_data(np.zeros((1, 1, 2, 3), dtype=bool), CPU))


def test_attention_all_false_mask_masks_nothing():
    mask = Tensor.from_data(np.zeros((1, 1, 1, 1), dtype=bool), CPU)
    out = module_ops.attention(plain([[[[1.0]]]]), plain([[[[1.0]]]]), plain([[[[3.0]]]]), mask)
    assert values(out) == [[[[3.0]]]]
