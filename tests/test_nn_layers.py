"""burn_torch.nn layers against torch.nn: outputs and every gradient (inputs and parameters) equal
with the same weights (loaded through ``load_torch_state_dict``), within 1e-5 in float32 and
1e-10 in float64; Burn's training-state rules for Dropout and BatchNorm; state-dict layouts;
save/load round trips; BinaryCrossEntropyLoss and HuberLoss against torch.nn.functional."""
from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Callable

import pytest
import torch
import torch.nn.functional as F

from burn_torch import DType, Device, Distribution, Float, Tensor, nn, optim
from burn_torch.activation import softmax
from burn_torch.compat import load_torch_state_dict, to_torch_state_dict
from burn_torch.module import Module, ModuleMapper, Param

CPU = Device.cpu()
AD = CPU.autodiff()
DTYPES = [pytest.param(torch.float32, 1e-5, id="f32"), pytest.param(torch.float64, 1e-10, id="f64")]
BURN_DTYPE = {torch.float32: DType.F32, torch.float64: DType.F64}


def close(actual: torch.Tensor, expected: torch.Tensor, tol: float) -> None:
    torch.testing.assert_close(actual, expected.to(actual.dtype), rtol=tol, atol=tol)


def randn(*shape, dtype=torch.float32, seed=0) -> torch.Tensor:
    return torch.randn(*shape, generator=torch.Generator().manual_seed(seed), dtype=dtype)


class _Cast(ModuleMapper):
    def __init__(self, dtype: DType) -> None:
        self.dtype = dtype

    def map_float(self, param: Param) -> Param:
        return param.map(lambda t: t.cast(self.dtype))


class _Grads(ModuleMapper):
    """Replaces each Float parameter by its gradient (zeros when it has none)."""

    def __init__(self, grads) -> None:
        self.grads = grads

    def map_float(self, param: Param) -> Param:
        grad = param.val().grad(self.grads)
        return param.map(lambda t: t.zeros_like().without_autodiff() if grad is None else grad)


def from_torch(module: Module, reference: torch.nn.Module, dtype: torch.dtype) -> Module:
    """``module`` in ``dtype`` holding ``reference``'s weights, ready to train."""
    module = module.map(_Cast(BURN_DTYPE[dtype]))
    loaded, keys = load_torch_state_dict(module, reference.state_dict())
    assert (keys.missing_keys, keys.unexpected_keys) == ([], [])
    return loaded.train()


@dataclass
class Case:
    """A burn_torch layer and the torch.nn layer it must match.

    ``inputs(dtype)`` gives torch tensors (floats become differentiable inputs of both sides);
    ``burn_call``/``torch_call`` run a layer and return a list of output tensors.
    """

    burn: Callable[[], Module]
    torch: Callable[[], torch.nn.Module]
    inputs: Callable[[torch.dtype], list]
    burn_call: Callable = lambda m, *xs: [m.forward(*xs)]
    torch_call: Callable = lambda m, *xs: [m(*xs)]


def mha_burn_call(m, q, k, v, pad):
    out = m.forward(nn.MhaInput(q, k, v).mask_pad(pad))
    return [out.context, out.weights]


def mha_torch_call(m, q, k, v, pad):
    context, weights = m(q, k, v, key_padding_mask=pad, need_weights=True,
                         average_attn_weights=False)
    return [context, weights]


def lstm_burn_call(m, x, h0, c0):
    out, state = m.forward(x, nn.LstmState(c0, h0))
    return [out, state.hidden, state.cell]


def lstm_torch_call(m, x, h0, c0):
    out, (h, c) = m(x, (h0.unsqueeze(0), c0.unsqueeze(0)))
    return [out, h.squeeze(0), c.squeeze(0)]


PAD = torch.tensor([[False, False, False, True, True], [False, False, False, False, False]])
P2 = nn.PaddingConfig2d

CASES = {
    "conv1d": Case(lambda: nn.Conv1dConfig(4, 6, 3).with_stride(2).with_groups(2)
                   .with_padding(nn.PaddingConfig1d.explicit(1)).init(CPU),
                   lambda: torch.nn.Conv1d(4, 6, 3, stride=2, padding=1, groups=2),
                   lambda dt: [randn(2, 4, 9, dtype=dt)]),
    "conv1d_same": Case(lambda: nn.Conv1dConfig(3, 2, 5).with_padding(nn.PaddingConfig1d.same())
                        .init(CPU),
                        lambda: torch.nn.Conv1d(3, 2, 5, padding="same"),
                        lambda dt: [randn(2, 3, 11, dtype=dt)]),
    "conv2d": Case(lambda: nn.Conv2dConfig([4, 6], [3, 2]).with_stride([2, 1]).with_dilation([1, 2])
                   .with_groups(2).with_padding(P2.explicit(1, 0)).init(CPU),
                   lambda: torch.nn.Conv2d(4, 6, (3, 2), stride=(2, 1), padding=(1, 0),
                                           dilation=(1, 2), groups=2),
                   lambda dt: [randn(2, 4, 7, 6, dtype=dt)]),
    "conv2d_same": Case(lambda: nn.Conv2dConfig([3, 4], [3, 5]).with_padding(P2.same()).init(CPU),
                        lambda: torch.nn.Conv2d(3, 4, (3, 5), padding="same"),
                        lambda dt: [randn(2, 3, 6, 7, dtype=dt)]),
    "conv_transpose2d": Case(
        lambda: nn.ConvTranspose2dConfig([4, 6], [3, 3]).with_stride([2, 2]).with_padding([1, 1])
        .with_padding_out([1, 0]).with_groups(2).init(CPU),
        lambda: torch.nn.ConvTranspose2d(4, 6, 3, stride=2, padding=1, output_padding=(1, 0),
                                         groups=2),
        lambda dt: [randn(2, 4, 5, 4, dtype=dt)]),
    "embedding": Case(lambda: nn.EmbeddingConfig(10, 4).init(CPU), lambda: torch.nn.Embedding(10, 4),
                      lambda dt: [torch.tensor([[1, 3, 3, 9], [0, 1, 7, 3]])]),
    "layer_norm": Case(lambda: nn.LayerNormConfig(8).init(CPU), lambda: torch.nn.LayerNorm(8),
                       lambda dt: [randn(3, 5, 8, dtype=dt)]),
    "layer_norm_no_bias": Case(lambda: nn.LayerNormConfig(8).with_bias(False).with_epsilon(1e-3).init(CPU),
                               lambda: torch.nn.LayerNorm(8, eps=1e-3, bias=False),
                               lambda dt: [randn(4, 8, dtype=dt)]),
    "batch_norm_2d": Case(lambda: nn.BatchNormConfig(4).init(CPU), lambda: torch.nn.BatchNorm2d(4),
                          lambda dt: [randn(6, 4, 3, 3, dtype=dt)]),
    "batch_norm_1d": Case(lambda: nn.BatchNormConfig(5).with_epsilon(1e-3).init(CPU),
                          lambda: torch.nn.BatchNorm1d(5, eps=1e-3),
                          lambda dt: [randn(7, 5, dtype=dt)]),
    "group_norm": Case(lambda: nn.GroupNormConfig(2, 6).init(CPU), lambda: torch.nn.GroupNorm(2, 6),
                       lambda dt: [randn(3, 6, 4, 2, dtype=dt)]),
    "group_norm_no_affine": Case(lambda: nn.GroupNormConfig(3, 6).with_affine(False).init(CPU),
                                 lambda: torch.nn.GroupNorm(3, 6, affine=False),
                                 lambda dt: [randn(3, 6, 5, dtype=dt)]),
    "max_pool2d": Case(lambda: nn.MaxPool2dConfig([3, 3]).with_strides([2, 2])
                       .with_padding(P2.explicit(1, 1)).with_ceil_mode(True).init(),
                       lambda: torch.nn.MaxPool2d(3, stride=2, padding=1, ceil_mode=True),
                       lambda dt: [randn(2, 3, 8, 7, dtype=dt)]),
    "max_pool2d_default_strides": Case(lambda: nn.MaxPool2dConfig([2, 2]).init(),
                                       lambda: torch.nn.MaxPool2d(2),
                                       lambda dt: [randn(2, 3, 8, 6, dtype=dt)]),
    "avg_pool2d": Case(lambda: nn.AvgPool2dConfig([3, 3]).with_strides([2, 1])
                       .with_padding(P2.explicit(1, 1)).with_count_include_pad(False).init(),
                       lambda: torch.nn.AvgPool2d(3, stride=(2, 1), padding=1, count_include_pad=False),
                       lambda dt: [randn(2, 3, 7, 6, dtype=dt)]),
    "avg_pool2d_count_pad": Case(lambda: nn.AvgPool2dConfig([2, 3]).with_padding(P2.explicit(1, 1)).init(),
                                 lambda: torch.nn.AvgPool2d((2, 3), padding=1),
                                 lambda dt: [randn(2, 3, 7, 6, dtype=dt)]),
    "adaptive_avg_pool2d": Case(lambda: nn.AdaptiveAvgPool2dConfig([3, 2]).init(),
                                lambda: torch.nn.AdaptiveAvgPool2d((3, 2)),
                                lambda dt: [randn(2, 3, 7, 5, dtype=dt)]),
    "relu": Case(nn.Relu, torch.nn.ReLU, lambda dt: [randn(3, 4, dtype=dt)]),
    "gelu": Case(nn.Gelu, torch.nn.GELU, lambda dt: [randn(3, 4, dtype=dt)]),
    "gelu_approximate": Case(nn.Gelu.new_approximate, lambda: torch.nn.GELU("tanh"),
                             lambda dt: [randn(3, 4, dtype=dt)]),
    "sigmoid": Case(nn.Sigmoid, torch.nn.Sigmoid, lambda dt: [randn(3, 4, dtype=dt)]),
    "tanh": Case(nn.Tanh, torch.nn.Tanh, lambda dt: [randn(3, 4, dtype=dt)]),
    "leaky_relu": Case(lambda: nn.LeakyReluConfig(0.2).init(), lambda: torch.nn.LeakyReLU(0.2),
                       lambda dt: [randn(3, 4, dtype=dt)]),
    "prelu": Case(lambda: nn.PReluConfig(3).init(CPU), lambda: torch.nn.PReLU(3),
                  lambda dt: [randn(2, 3, 4, dtype=dt)]),
    "multi_head_attention": Case(
        lambda: nn.MultiHeadAttentionConfig(8, 2).with_dropout(0.0).init(CPU),
        lambda: torch.nn.MultiheadAttention(8, 2, batch_first=True),
        lambda dt: [randn(2, 3, 8, dtype=dt, seed=1), randn(2, 5, 8, dtype=dt, seed=2),
                    randn(2, 5, 8, dtype=dt, seed=3), PAD],
        mha_burn_call, mha_torch_call),
    "transformer_encoder": Case(
        lambda: nn.TransformerEncoderConfig(8, 16, 2, 2).with_dropout(0.0).init(CPU),
        lambda: torch.nn.TransformerEncoder(torch.nn.TransformerEncoderLayer(
            8, 2, 16, dropout=0.0, activation="gelu", batch_first=True), 2,
            enable_nested_tensor=False),
        lambda dt: [randn(2, 5, 8, dtype=dt), PAD],
        lambda m, x, pad: [m.forward(nn.TransformerEncoderInput(x).mask_pad(pad))],
        lambda m, x, pad: [m(x, src_key_padding_mask=pad)]),
    "transformer_encoder_norm_first": Case(
        lambda: nn.TransformerEncoderConfig(8, 12, 4, 2).with_dropout(0.0).with_norm_first(True)
        .with_activation(nn.ActivationConfig.relu()).init(CPU),
        lambda: torch.nn.TransformerEncoder(torch.nn.TransformerEncoderLayer(
            8, 4, 12, dropout=0.0, batch_first=True, norm_first=True), 2,
            enable_nested_tensor=False),
        lambda dt: [randn(2, 5, 8, dtype=dt)],
        lambda m, x: [m.forward(nn.TransformerEncoderInput(x))]),
    "lstm": Case(lambda: nn.LstmConfig(3, 5, True).init(CPU),
                 lambda: torch.nn.LSTM(3, 5, batch_first=True),
                 lambda dt: [randn(2, 4, 3, dtype=dt), randn(2, 5, dtype=dt, seed=1),
                             randn(2, 5, dtype=dt, seed=2)],
                 lstm_burn_call, lstm_torch_call),
    "lstm_seq_first_no_bias": Case(
        lambda: nn.LstmConfig(3, 4, False).with_batch_first(False).init(CPU),
        lambda: torch.nn.LSTM(3, 4, bias=False),
        lambda dt: [randn(5, 2, 3, dtype=dt)],
        lambda m, x: [m.forward(x)[0]], lambda m, x: [m(x)[0]]),
}


def run_both(case: Case, dtype: torch.dtype):
    """(torch outputs, torch grads by state-dict name, burn outputs, burn grads likewise)."""
    torch.manual_seed(0)
    CPU.seed(0)
    reference = case.torch().to(dtype).train()
    layer = from_torch(case.burn(), reference, dtype)
    raw = case.inputs(dtype)
    xs_t = [x.clone().requires_grad_(True) if x.is_floating_point() else x for x in raw]
    xs_b = [Tensor.from_data(x, AD) for x in raw]
    xs_b = [x.require_grad() if x.kind is Float else x for x in xs_b]
    outs_t = case.torch_call(reference, *xs_t)
    outs_b = case.burn_call(layer, *xs_b)
    cotangents = [randn(*o.shape, dtype=dtype, seed=10 + i) for i, o in enumerate(outs_t)]
    sum(((o * c).sum() for o, c in zip(outs_t, cotangents))).backward()
    loss = sum((o * Tensor.from_data(c, AD)).sum() for o, c in zip(outs_b, cotangents))
    grads = loss.backward()
    grads_t = {n: p.grad for n, p in reference.named_parameters()}
    grads_b = to_torch_state_dict(layer.map(_Grads(grads)))
    inputs = [(xt.grad, xb.grad(grads)) for xt, xb in zip(xs_t, xs_b) if xt.is_floating_point()]
    return outs_t, outs_b, grads_t, grads_b, inputs


@pytest.mark.parametrize("dtype, tol", DTYPES)
@pytest.mark.parametrize("name", list(CASES))
def test_layer_output_and_gradients_equal_torch(name, dtype, tol):
    outs_t, outs_b, grads_t, grads_b, inputs = run_both(CASES[name], dtype)
    assert len(outs_t) == len(outs_b)
    for o_t, o_b in zip(outs_t, outs_b):
        assert o_b.dtype() == BURN_DTYPE[dtype]
        close(o_b.to_torch(), o_t.detach(), tol)
    for g_t, g_b in inputs:
        close(g_b.to_torch(), g_t, tol)
    for key, g_t in grads_t.items():
        close(grads_b[key], g_t, tol)


STATEFUL = [n for n in CASES if CASES[n].torch().state_dict()]


@pytest.mark.parametrize("name", STATEFUL)
def test_state_dict_round_trip_keeps_torch_names_and_values(name):
    reference = CASES[name].torch()
    loaded, _ = load_torch_state_dict(CASES[name].burn(), reference.state_dict())
    exported = to_torch_state_dict(loaded)
    expected = reference.state_dict()
    assert sorted(exported) == sorted(expected)
    for key, value in expected.items():
        if key.endswith("num_batches_tracked"):
            continue
        assert torch.equal(exported[key], value), key


@pytest.mark.parametrize("name", list(CASES))
def test_save_and_load_file_round_trips_bit_exactly(name, tmp_path):
    CPU.seed(1)
    layer = CASES[name].burn()
    path = layer.save_file(tmp_path / name)
    CPU.seed(2)
    fresh = CASES[name].burn()
    loaded = fresh.load_file(path)
    assert [n for n, _ in loaded.named_params()] == [n for n, _ in layer.named_params()]
    for (_, a), (_, b) in zip(layer.named_params(), loaded.named_params()):
        assert a.id == b.id and torch.equal(a.val().to_torch(), b.val().to_torch())


# ------------------------------------------------------------------------- configs / shapes ----
def test_layers_have_burns_parameter_layouts():
    assert nn.Conv2dConfig([4, 6], [3, 2]).with_groups(2).init(CPU).weight.val().dims() == [6, 2, 3, 2]
    assert nn.ConvTranspose2dConfig([4, 6], [3, 3]).with_groups(2).init(CPU).weight.val().dims() == [4, 3, 3, 3]
    mha = nn.MultiHeadAttentionConfig(8, 2).init(CPU)
    assert [n for n, _ in mha.named_params()] == [
        f"{lin}.{p}" for lin in ("query", "key", "value", "output") for p in ("weight", "bias")]
    lstm = nn.LstmConfig(3, 5, True).init(CPU)
    assert lstm.input_gate.input_transform.weight.val().dims() == [3, 5]
    assert lstm.input_gate.hidden_transform.weight.val().dims() == [5, 5]


def test_configs_have_burns_defaults():
    assert nn.Conv2dConfig([1, 1], [3, 3]).padding == nn.PaddingConfig2d.valid()
    assert nn.MaxPool2dConfig([3, 2]).strides == [3, 2]
    assert nn.AvgPool2dConfig([2, 2]).count_include_pad is True
    assert nn.BatchNormConfig(3).momentum == 0.1 and nn.BatchNormConfig(3).epsilon == 1e-5
    assert nn.EmbeddingConfig(2, 3).initializer == nn.Initializer.normal(0.0, 1.0)
    assert nn.LstmConfig(2, 3, True).initializer == nn.Initializer.xavier_normal(1.0)
    mha = nn.MultiHeadAttentionConfig(8, 2)
    assert (mha.dropout, mha.min_float, mha.quiet_softmax) == (0.1, -1.0e4, False)
    enc = nn.TransformerEncoderConfig(8, 16, 2, 2)
    assert (enc.dropout, enc.norm_first, enc.activation) == (0.1, False, nn.ActivationConfig.gelu())
    assert nn.BinaryCrossEntropyLossConfig().logits is False


@pytest.mark.parametrize("make, message", [
    (lambda: nn.Conv2dConfig([3, 4], [3, 3]).with_groups(2).init(CPU), "divisible by the number of groups"),
    (lambda: nn.Conv1dConfig(2, 2, 4).with_padding(nn.PaddingConfig1d.same()).init(CPU), "even kernel"),
    (lambda: nn.GroupNormConfig(4, 6).init(CPU), "divisible by the number of groups"),
    (lambda: nn.DropoutConfig(1.5).init(), "between 0 and 1"),
    (lambda: nn.MultiHeadAttentionConfig(6, 4).init(CPU), "divisible by n_heads"),
    (lambda: nn.HuberLossConfig(-1.0).init(), "non-negative"),
])
def test_invalid_configs_raise(make, message):
    with pytest.raises(ValueError, match=message):
        make()


def test_wrong_input_shapes_raise_with_the_shapes():
    with pytest.raises(ValueError, match=r"\[batch, 4, \.\.\.\], got \[2, 3\]"):
        nn.BatchNormConfig(4).init(CPU).forward(Tensor.zeros([2, 3], CPU))
    with pytest.raises(ValueError, match=r"\[\.\.\., 8\], got \[2, 7\]"):
        nn.LayerNormConfig(8).init(CPU).forward(Tensor.zeros([2, 7], CPU))


def test_same_padding_with_an_even_pool_kernel_pads_at_the_end():
    x = randn(1, 2, 5, 6)
    out = nn.MaxPool2dConfig([2, 2]).with_strides([1, 1]).with_padding(P2.same()).init().forward(
        Tensor.from_data(x, CPU))
    expected = F.max_pool2d(F.pad(x, (0, 1, 0, 1), value=float("-inf")), 2, 1)
    assert torch.equal(out.to_torch(), expected)


def test_asymmetric_average_pool_padding_counts_the_zeros_as_burn():
    x = randn(1, 2, 5, 6)
    layer = nn.AvgPool2dConfig([3, 3]).with_strides([1, 1]).with_padding(P2.explicit(1, 0, 2, 1))
    out = layer.with_count_include_pad(False).init().forward(Tensor.from_data(x, CPU))
    expected = F.avg_pool2d(F.pad(x, (0, 1, 1, 2)), 3, 1)
    close(out.to_torch(), expected, 1e-6)


def test_mha_attention_mask_fills_scores_with_min_float():
    mha = nn.MultiHeadAttentionConfig(4, 1).with_dropout(0.0).init(CPU)
    x = Tensor.from_data(randn(1, 3, 4), CPU)
    mask = Tensor.from_bools([[[False, True, True], [False, False, True], [False, False, False]]], CPU)
    weights = mha.forward(nn.MhaInput.self_attn(x).mask_attn(mask)).weights.to_torch()
    assert weights[0, 0, 0].tolist() == [1.0, 0.0, 0.0] and weights[0, 0, 1, 2].item() == 0.0


def test_mha_dropout_applies_to_scores_before_softmax():
    mha = nn.MultiHeadAttentionConfig(4, 2).with_dropout(0.5).init(AD).train()
    x = Tensor.from_data(randn(2, 6, 4), AD)
    weights = mha.forward(nn.MhaInput.self_attn(x)).weights.to_torch()
    torch.testing.assert_close(weights.sum(-1), torch.ones(2, 2, 6))  # rows still sum to one


def test_mha_weights_are_one_step_with_burns_dropout_draws_and_values():
    """The weights are one ``mha_weights`` step, with dropout too: its mask is drawn as Burn's
    module draws it (the scores' shape, the device generator), so the weights equal Burn's
    composed ops (scale, dropout, mask, softmax) bit for bit, and so do the gradients."""
    x = Tensor.from_data(randn(2, 3, 4), AD).require_grad()
    causal = [[False, True, True], [False, False, True], [False, False, False]]
    mask = Tensor.from_bools([causal] * 2, AD)
    mha = nn.MultiHeadAttentionConfig(4, 2).with_dropout(0.5).init(AD).train()
    AD.seed(11)
    weights = mha.forward(nn.MhaInput.self_attn(x).mask_attn(mask)).weights
    assert weights._node.op.name == "mha_weights"
    AD.seed(11)
    q, k = mha._heads(mha.query, x), mha._heads(mha.key, x)
    scores = mha.dropout.forward(q.matmul(k.transpose()) / math.sqrt(mha.d_k))
    burns = softmax(scores.mask_fill(mask.reshape([2, 1, 3, 3]), mha.min_float), 3)
    assert torch.equal(weights.to_torch(), burns.to_torch())
    cot = Tensor.from_data(randn(2, 2, 3, 3, seed=4), AD)
    ours, theirs = (weights * cot).sum().backward(), (burns * cot).sum().backward()
    gw = mha.query.weight.val()
    torch.testing.assert_close(gw.grad(ours).to_torch(), gw.grad(theirs).to_torch(), rtol=1e-6,
                               atol=1e-7)


def test_lstm_reverse_processes_the_sequence_backwards():
    CPU.seed(3)
    forward = nn.LstmConfig(2, 3, True).init(CPU)
    backward = nn.LstmConfig(2, 3, True).with_reverse(True).init(CPU).load_record(forward.into_record())
    x = randn(1, 4, 2)
    out_fwd, _ = forward.forward(Tensor.from_data(x.flip(1), CPU))
    out_rev, _ = backward.forward(Tensor.from_data(x, CPU))
    close(out_rev.to_torch(), out_fwd.to_torch().flip(1), 1e-6)


def test_lstm_input_forget_couples_the_forget_gate_to_the_input_gate():
    lstm = nn.LstmConfig(1, 1, False).with_input_forget(True).with_initializer(nn.Initializer.ones()).init(CPU)
    _, state = lstm.forward(Tensor.from_floats([[[0.5], [0.5]]], CPU))
    i1 = torch.sigmoid(torch.tensor(0.5))
    c1 = i1 * torch.tanh(torch.tensor(0.5))
    h1 = i1 * torch.tanh(c1)
    i2 = torch.sigmoid(0.5 + h1)
    c2 = (1 - i2) * c1 + i2 * torch.tanh(0.5 + h1)
    close(state.cell.to_torch().reshape([]), c2, 1e-6)


# -------------------------------------------------------------------------------- dropout ----
def test_dropout_in_training_zeroes_entries_and_scales_the_rest():
    AD.seed(0)
    x = Tensor.ones([100, 100], AD).require_grad()
    out = nn.DropoutConfig(0.25).init().forward(x)
    values = out.to_torch()
    kept = values != 0
    assert torch.all(values[kept] == 1 / 0.75) and abs(kept.float().mean().item() - 0.75) < 0.02
    assert torch.equal(x.grad(out.sum().backward()).to_torch(), kept.float() / 0.75)


def test_dropout_is_one_step_with_burns_values_bit_for_bit():
    """``input * (mask * scale)``, one recorded step, equals Burn's ``input * mask * scale`` and
    its gradient, for signed, infinite and NaN entries alike."""
    x = Tensor.from_data(torch.tensor([[-1.5, 2.0, -0.0, float("inf"), float("nan"), 3.25]] * 8),
                         AD).require_grad()
    AD.seed(3)
    out = nn.DropoutConfig(0.4).init().forward(x)
    AD.seed(3)
    burns = x * x.random_like(Distribution.bernoulli(0.6)) * (1.0 / 0.6)
    assert torch.equal(out.to_torch().view(torch.int32), burns.to_torch().view(torch.int32))
    assert out._node.parents[0] is x._node  # one step between input and output
    grads, burn_grads = out.sum().backward(), burns.sum().backward()
    assert torch.equal(x.grad(grads).to_torch().view(torch.int32),
                       x.grad(burn_grads).to_torch().view(torch.int32))


def test_dropout_is_inactive_in_valid():
    x = Tensor.from_data(randn(4, 5), CPU)
    layer = nn.DropoutConfig(0.5).init().valid()
    assert not layer.training.is_training()
    assert torch.equal(layer.forward(x).to_torch(), x.to_torch())


def test_dropout_is_inactive_on_a_non_autodiff_input():
    x = Tensor.from_data(randn(4, 5), CPU)
    assert torch.equal(nn.DropoutConfig(0.5).init().forward(x).to_torch(), x.to_torch())


def test_frozen_dropout_stays_inactive_on_autodiff_input_after_train():
    x = Tensor.from_data(randn(4, 5), AD)
    layer = nn.DropoutConfig(0.5).init().no_grad().train()
    assert torch.equal(layer.forward(x).to_torch(), x.to_torch())


def test_dropout_is_active_again_after_valid_then_train():
    AD.seed(0)
    layer = nn.DropoutConfig(0.5).init().valid().train()
    out = layer.forward(Tensor.ones([50, 50], AD)).to_torch()
    assert (out == 0).any()


def test_dropout_masks_come_from_the_device_generator():
    layer = nn.DropoutConfig(0.5).init()
    x = Tensor.ones([20, 20], AD)
    AD.seed(7)
    first = layer.forward(x).to_torch()
    AD.seed(7)
    assert torch.equal(layer.forward(x).to_torch(), first)
    AD.seed(8)
    assert not torch.equal(layer.forward(x).to_torch(), first)


# ----------------------------------------------------------------------------- batch norm ----
BN_X = randn(6, 3, 4, seed=5) * 2 + 1


def test_batch_norm_training_running_mean_follows_torchs_momentum_convention():
    layer = nn.BatchNormConfig(3).with_momentum(0.3).init(AD)
    reference = torch.nn.BatchNorm1d(3, momentum=0.3)
    for _ in range(2):
        layer.forward(Tensor.from_data(BN_X, AD))
        reference(BN_X)
    close(layer.running_mean.val().to_torch(), reference.running_mean, 1e-6)


def test_batch_norm_running_var_uses_the_biased_batch_variance_unlike_torch():
    layer = nn.BatchNormConfig(3).with_momentum(0.3).init(AD)
    layer.forward(Tensor.from_data(BN_X, AD))
    biased = BN_X.var(dim=(0, 2), unbiased=False)
    close(layer.running_var.val().to_torch(), 0.7 * torch.ones(3) + 0.3 * biased, 1e-6)
    reference = torch.nn.BatchNorm1d(3, momentum=0.3)
    reference(BN_X)
    assert not torch.allclose(layer.running_var.val().to_torch(), reference.running_var)


def test_batch_norm_training_forward_is_one_step_through_the_batch_statistics():
    """In training the normalisation is one ``batch_norm`` step (torch's kernels, gradients
    through the batch mean and variance, checked against torch by the layer table above)."""
    x = Tensor.from_data(BN_X, AD).require_grad()
    out = nn.BatchNormConfig(3).init(AD).forward(x)
    assert out._node.op.name == "batch_norm" and out._node.parents[0] is x._node


def test_batch_norm_of_one_value_per_channel_gives_beta_and_a_zero_batch_variance():
    """One value per channel (no unbiased variance exists): Burn's composed formula, the biased
    variance 0 entering the running statistics."""
    layer = nn.BatchNormConfig(3).with_momentum(0.5).init(AD)
    out = layer.forward(Tensor.from_data(torch.tensor([[1.0, -2.0, 3.0]]), AD))
    assert torch.equal(out.to_torch(), torch.zeros(1, 3))
    assert torch.equal(layer.running_var.val().to_torch(), torch.full((3,), 0.5))


@pytest.mark.parametrize("dtype", [torch.float16, torch.bfloat16, torch.float64])
def test_batch_norm_of_another_dtype_than_its_parameters_promotes_as_burns_ops(dtype):
    """Torch's batch-norm kernel wants one dtype: an input of another float dtype than the
    float32 parameters takes Burn's composed ops, which promote (the gradient keeps its dtype)."""
    layer = nn.BatchNormConfig(3).init(AD)
    x = Tensor.from_data(BN_X.to(dtype), AD).require_grad()
    out = layer.forward(x)
    assert out.to_torch().dtype == torch.promote_types(dtype, torch.float32)
    assert x.grad(out.sum().backward()).to_torch().dtype == dtype


def test_batch_norm_in_valid_uses_and_keeps_the_running_statistics():
    layer = nn.BatchNormConfig(3).init(AD)
    layer.forward(Tensor.from_data(BN_X, AD))
    inference = layer.valid()
    mean, var = inference.running_mean.val().to_torch(), inference.running_var.val().to_torch()
    out = inference.forward(Tensor.from_data(BN_X, CPU)).to_torch()
    close(out, (BN_X - mean[:, None]) / torch.sqrt(var[:, None] + 1e-5), 1e-6)
    assert torch.equal(inference.running_mean.val().to_torch(), mean)


def test_frozen_batch_norm_uses_running_statistics_on_autodiff_input():
    layer = nn.BatchNormConfig(3).init(AD).no_grad().train()
    out = layer.forward(Tensor.from_data(BN_X, AD))
    close(out.to_torch(), BN_X / math.sqrt(1 + 1e-5), 1e-6)
    assert torch.equal(layer.running_mean.val().to_torch(), torch.zeros(3))


def test_batch_norm_running_statistics_are_saved_but_never_trained():
    layer = nn.BatchNormConfig(3).init(AD).train()
    assert [n for n, p in layer.named_params() if p.is_trainable()] == ["gamma", "beta"]
    grads = layer.forward(Tensor.from_data(BN_X, AD)).sum().backward()
    gp = optim.GradientsParams.from_grads(grads, layer)
    assert len(gp) == 2
    stepped = optim.SgdConfig().init().step(0.1, layer, gp)
    assert torch.equal(stepped.running_mean.val().to_torch(), layer.running_mean.val().to_torch())
    assert "running_var" in layer.into_record()


def test_batch_norm_train_after_valid_updates_statistics_again():
    layer = nn.BatchNormConfig(3).init(AD).valid().train()
    layer.forward(Tensor.from_data(BN_X, AD))
    assert not torch.equal(layer.running_mean.val().to_torch(), torch.zeros(3))


def test_batch_norm_with_only_gamma_frozen_keeps_training_behaviour():
    layer = nn.BatchNormConfig(3).init(AD).train()
    layer.gamma = layer.gamma.set_require_grad(False)
    grads = layer.forward(Tensor.from_data(BN_X, AD)).sum().backward()
    assert layer.gamma.val().grad(grads) is None and layer.beta.val().grad(grads) is not None
    close(layer.running_mean.val().to_torch(), 0.1 * BN_X.mean(dim=(0, 2)), 1e-6)


def test_batch_norm_running_statistics_survive_save_and_load(tmp_path):
    layer = nn.BatchNormConfig(3).init(AD)
    layer.forward(Tensor.from_data(BN_X, AD))
    loaded = nn.BatchNormConfig(3).init(CPU).load_file(layer.save_file(tmp_path / "bn"))
    for name in ("running_mean", "running_var"):
        stat = getattr(loaded, name)
        assert torch.equal(stat.val().to_torch(), getattr(layer, name).val().to_torch())
        assert not stat.is_trainable()


def test_batch_norm_state_dict_has_torchs_buffers():
    sd = to_torch_state_dict(nn.BatchNormConfig(3).init(CPU))
    assert list(sd) == ["weight", "bias", "running_mean", "running_var", "num_batches_tracked"]


def test_transformer_state_dict_keys_are_torchs():
    burn = nn.TransformerEncoderConfig(8, 16, 2, 1).with_norm_first(True).init(CPU)
    reference = torch.nn.TransformerEncoder(torch.nn.TransformerEncoderLayer(8, 2, 16, norm_first=True),
                                            1, enable_nested_tensor=False)
    assert sorted(to_torch_state_dict(burn)) == sorted(reference.state_dict())
    layer = burn.layers[0]
    sd = to_torch_state_dict(burn)
    assert torch.equal(sd["layers.0.norm1.weight"], layer.norm_2.gamma.val().to_torch())
    assert torch.equal(sd["layers.0.self_attn.in_proj_weight"][8:16], layer.mha.key.weight.val().to_torch().t())


def test_lstm_state_dict_stacks_the_gates_in_torchs_order():
    lstm = nn.LstmConfig(3, 2, True).init(CPU)
    sd = to_torch_state_dict(lstm)
    assert sorted(sd) == sorted(torch.nn.LSTM(3, 2).state_dict())
    gates = [lstm.input_gate, lstm.forget_gate, lstm.cell_gate, lstm.output_gate]
    expected = torch.cat([g.hidden_transform.weight.val().to_torch().t() for g in gates])
    assert torch.equal(sd["weight_hh_l0"], expected)


# --------------------------------------------------------------------------------- losses ----
PROBS = torch.sigmoid(randn(4, 3, dtype=torch.float64, seed=6))
TARGETS = torch.tensor([[1, 0, 1], [0, 0, 1], [1, 1, 0], [0, 1, 0]])


def bce_grad(config, x: torch.Tensor, targets: torch.Tensor):
    xb = Tensor.from_data(x, AD).require_grad()
    loss = config.init(AD).forward(xb, Tensor.from_data(targets, AD))
    return loss, xb.grad(loss.backward()).to_torch()


@pytest.mark.parametrize("smoothing", [None, 0.1])
@pytest.mark.parametrize("logits", [False, True])
def test_binary_cross_entropy_multi_label_equals_torch(logits, smoothing):
    x = PROBS.logit() if logits else PROBS
    config = nn.BinaryCrossEntropyLossConfig().with_logits(logits).with_smoothing(smoothing)
    config = config.with_weights((3.0, 7.0, 0.9))
    loss, grad = bce_grad(config, x, TARGETS)
    t = TARGETS.double() * (1 - (smoothing or 0)) + (smoothing or 0) / 3
    xt = x.clone().requires_grad_(True)
    fn = F.binary_cross_entropy_with_logits if logits else F.binary_cross_entropy
    expected = fn(xt, t, weight=torch.tensor([3.0, 7.0, 0.9], dtype=torch.float64))
    expected.backward()
    close(loss.to_torch(), expected.reshape(1), 1e-10)
    close(grad, xt.grad, 1e-10)


def test_binary_cross_entropy_over_logits_is_one_step():
    x = Tensor.from_data(PROBS.logit(), AD).require_grad()
    loss = nn.BinaryCrossEntropyLossConfig().with_logits(True).init(AD).forward(
        x, Tensor.from_data(TARGETS, AD))
    assert loss._node.op.name == "binary_cross_entropy_with_logits"
    assert loss._node.parents[0] is x._node


def test_binary_cross_entropy_binary_weights_are_picked_by_target():
    x, t = PROBS[:, 0], TARGETS[:, 0]
    loss, _ = bce_grad(nn.BinaryCrossEntropyLossConfig().with_weights((3.0, 7.0)), x, t)
    expected = F.binary_cross_entropy(x, t.double(), weight=torch.tensor([3.0, 7.0]).double()[t])
    close(loss.to_torch(), expected.reshape(1), 1e-10)


def test_binary_cross_entropy_clamps_the_log_at_minus_100():
    loss, _ = bce_grad(nn.BinaryCrossEntropyLossConfig(), torch.tensor([0.0, 1.0]), torch.tensor([1, 0]))
    assert loss.to_torch().tolist() == [100.0]


def test_binary_cross_entropy_needs_int_targets():
    with pytest.raises(TypeError, match="Int"):
        nn.BinaryCrossEntropyLossConfig().init(CPU).forward(Tensor.zeros([2], CPU), Tensor.zeros([2], CPU))


def test_huber_loss_is_one_step_except_at_delta_zero_which_torch_refuses():
    """A positive delta reduces in one ``huber_loss`` step; ``delta = 0`` (Burn allows it, torch's
    kernel does not) takes Burn's composed ops: a loss of 0."""
    p = Tensor.from_data(torch.tensor([-2.0, 0.5, 3.0], dtype=torch.float64), AD).require_grad()
    t = Tensor.from_data(torch.zeros(3, dtype=torch.float64), AD)
    assert nn.HuberLossConfig(1.0).init().forward(p, t)._node.op.name == "huber_loss"
    zero = nn.HuberLossConfig(0.0).init().forward(p, t)
    assert zero._node.op.name == "mean" and zero.to_torch().tolist() == [0.0]


@pytest.mark.parametrize("reduction, name", [(nn.Reduction.MEAN, "mean"), (nn.Reduction.SUM, "sum"),
                                             (nn.Reduction.AUTO, "mean")])
def test_huber_loss_equals_torch(reduction, name):
    pred = torch.tensor([-2.0, -0.5, 0.0, 0.3, 1.0, 0.5], dtype=torch.float64)
    target = torch.tensor([0.0, 0.0, 0.0, 0.0, 0.0, 1.0], dtype=torch.float64)
    pb = Tensor.from_data(pred, AD).require_grad()
    loss = nn.HuberLossConfig(0.5).init().forward(pb, Tensor.from_data(target, AD), reduction)
    pt = pred.clone().requires_grad_(True)
    expected = F.huber_loss(pt, target, delta=0.5, reduction=name)
    expected.backward()
    close(loss.to_torch(), expected.reshape(1), 1e-12)
    close(pb.grad(loss.backward()).to_torch(), pt.grad, 1e-12)
