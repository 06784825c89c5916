"""Burn's attention and transformer layers against their torch twins: CrossAttention (torch's
MultiheadAttention with kdim/vdim; grouped-query attention against torch's scaled dot product
attention with ``enable_gqa``), TransformerDecoder (torch.nn.TransformerDecoder, post-norm and
``norm_first``) and its autoregressive cache (equal to the full decode with a causal mask),
RotaryEncoding (against the complex-number formulation of Llama's reference code) and
PositionalEncoding (the sinusoid formula). Outputs and the gradients of every input and
parameter equal within 1e-5 in float32 and 1e-10 in float64."""
from __future__ import annotations

import math

import pytest
import torch
import torch.nn.functional as tf

from burn_torch import DType, Device, Tensor, nn
from burn_torch.compat import load_torch_state_dict, to_torch_state_dict
from test_nn_layers import DTYPES, Case, _Cast, close, randn, run_both

CPU = Device.cpu()
AD = CPU.autodiff()
PAD = torch.tensor([[False, False, False, True, True], [False, False, False, False, False]])


def causal(batch: int, seq: int) -> torch.Tensor:
    """Burn's causal mask ``[batch, seq, seq]`` (True above the diagonal: masked out)."""
    return torch.ones(seq, seq, dtype=torch.bool).triu(1).expand(batch, seq, seq).contiguous()


class TorchGqa(torch.nn.Module):
    """Grouped-query cross-attention in torch, with the names the CrossAttention adapter
    exports (torch's MultiheadAttention names): projections, then ``scaled_dot_product_attention``
    with ``enable_gqa`` (kv head ``i // n_rep`` serves query head ``i``)."""

    def __init__(self, d_model, d_context, n_heads, n_heads_kv, d_head) -> None:
        super().__init__()
        self.h, self.h_kv, self.d = n_heads, n_heads_kv, d_head
        self.q_proj_weight = torch.nn.Parameter(torch.randn(n_heads * d_head, d_model))
        self.k_proj_weight = torch.nn.Parameter(torch.randn(n_heads_kv * d_head, d_context))
        self.v_proj_weight = torch.nn.Parameter(torch.randn(n_heads_kv * d_head, d_context))
        self.in_proj_bias = torch.nn.Parameter(torch.randn((n_heads + 2 * n_heads_kv) * d_head))
        self.out_proj = torch.nn.Linear(n_heads * d_head, d_model)

    def forward(self, x, context, pad):
        bq, bk, bv = self.in_proj_bias.split([self.h * self.d, self.h_kv * self.d,
                                              self.h_kv * self.d])
        b, lq, lk = x.shape[0], x.shape[1], context.shape[1]
        q = (x @ self.q_proj_weight.T + bq).view(b, lq, self.h, self.d).transpose(1, 2)
        k = (context @ self.k_proj_weight.T + bk).view(b, lk, self.h_kv, self.d).transpose(1, 2)
        v = (context @ self.v_proj_weight.T + bv).view(b, lk, self.h_kv, self.d).transpose(1, 2)
        out = tf.scaled_dot_product_attention(q, k, v, attn_mask=~pad.view(b, 1, 1, lk),
                                              enable_gqa=True)
        return self.out_proj(out.transpose(1, 2).reshape(b, lq, self.h * self.d))


def mha_twin(d_model, n_heads, d_context):
    return torch.nn.MultiheadAttention(d_model, n_heads, kdim=d_context, vdim=d_context,
                                       batch_first=True, dropout=0.0)


def decoder_twin(norm_first: bool, activation: str = "gelu"):
    layer = torch.nn.TransformerDecoderLayer(8, 2, 16, dropout=0.0, activation=activation,
                                             batch_first=True, norm_first=norm_first)
    return torch.nn.TransformerDecoder(layer, 2)


def decoder(norm_first: bool, activation=None):
    config = nn.TransformerDecoderConfig(8, 16, 2, 2).with_dropout(0.0).with_norm_first(norm_first)
    return (config if activation is None else config.with_activation(activation)).init(CPU)


def decoder_inputs(dt):
    return [randn(2, 4, 8, dtype=dt, seed=1), randn(2, 5, 8, dtype=dt, seed=2), causal(2, 4),
            PAD]


def decoder_burn_call(m, target, memory, mask, pad):
    inp = nn.TransformerDecoderInput(target, memory).target_mask_attn(mask).memory_mask_pad(pad)
    return [m.forward(inp)]


def decoder_torch_call(m, target, memory, mask, pad):
    return [m(target, memory, tgt_mask=mask[0], memory_key_padding_mask=pad)]


CASES = {
    "cross_attention": Case(
        lambda: nn.CrossAttentionConfig(8, 6, 2, 2, 4).with_dropout(0.0).init(CPU),
        lambda: mha_twin(8, 2, 6),
        lambda dt: [randn(2, 3, 8, dtype=dt, seed=1), randn(2, 5, 6, dtype=dt, seed=2), PAD],
        lambda m, x, c, pad: [m.forward(x, c, pad)],
        lambda m, x, c, pad: [m(x, c, c, key_padding_mask=pad, need_weights=False)[0]]),
    "cross_attention_same_width": Case(
        lambda: nn.CrossAttentionConfig(8, 8, 4, 4, 2).with_dropout(0.0).init(CPU),
        lambda: mha_twin(8, 4, 8),
        lambda dt: [randn(2, 3, 8, dtype=dt, seed=1), randn(2, 5, 8, dtype=dt, seed=2)],
        lambda m, x, c: [m.forward(x, c)],
        lambda m, x, c: [m(x, c, c, need_weights=False)[0]]),
    "cross_attention_grouped_query": Case(
        lambda: nn.CrossAttentionConfig(6, 5, 4, 2, 3).with_dropout(0.0).init(CPU),
        lambda: TorchGqa(6, 5, 4, 2, 3),
        lambda dt: [randn(2, 3, 6, dtype=dt, seed=1), randn(2, 5, 5, dtype=dt, seed=2), PAD],
        lambda m, x, c, pad: [m.forward(x, c, pad)]),
    "transformer_decoder": Case(lambda: decoder(False), lambda: decoder_twin(False),
                                decoder_inputs, decoder_burn_call, decoder_torch_call),
    "transformer_decoder_norm_first_relu": Case(
        lambda: decoder(True, nn.ActivationConfig.relu()), lambda: decoder_twin(True, "relu"),
        decoder_inputs, decoder_burn_call, decoder_torch_call),
}


@pytest.mark.parametrize("dtype, tol", DTYPES)
@pytest.mark.parametrize("name", list(CASES))
def test_layer_output_and_gradients_equal_torch(name, dtype, tol):
    outs_t, outs_b, grads_t, grads_b, inputs = run_both(CASES[name], dtype)
    for o_t, o_b in zip(outs_t, outs_b, strict=True):
        close(o_b.to_torch(), o_t.detach(), tol)
    assert inputs
    for g_t, g_b in inputs:
        close(g_b.to_torch(), g_t, tol)
    assert sorted(grads_b) == sorted(grads_t)
    for key, g_t in grads_t.items():
        close(grads_b[key], g_t, tol)


@pytest.mark.parametrize("name", list(CASES))
def test_state_dict_keeps_torch_names_and_values(name):
    reference = CASES[name].torch()
    loaded, _ = load_torch_state_dict(CASES[name].burn(), reference.state_dict())
    exported = to_torch_state_dict(loaded)
    assert sorted(exported) == sorted(reference.state_dict())
    for key, value in reference.state_dict().items():
        assert torch.equal(exported[key], value), key


# ---- the autoregressive cache -------------------------------------------------------------------
@pytest.mark.parametrize("norm_first", [False, True])
def test_decoder_autoregressive_cache_equals_the_full_decode(norm_first):
    """Burn's test: feeding the target one more position at a time through the cache gives, at
    every step, the full decode of that prefix with a causal mask."""
    CPU.seed(0)
    layer = decoder(norm_first).map(_Cast(DType.F64)).no_grad()
    target = Tensor.from_data(randn(2, 6, 8, dtype=torch.float64), CPU)
    memory = Tensor.from_data(randn(2, 5, 8, dtype=torch.float64, seed=1), CPU)
    full = layer.forward(nn.TransformerDecoderInput(target, memory).target_mask_attn(
        nn.generate_autoregressive_mask(2, 6, CPU))).to_torch()
    cache = layer.new_autoregressive_cache()
    for i in range(1, 7):
        step = nn.TransformerDecoderInput(target.slice([(0, 2), (0, i)]), memory)
        step = step.target_mask_attn(nn.generate_autoregressive_mask(2, i, CPU))
        out = layer.forward_autoregressive_inference(step, cache).to_torch()
        assert list(out.shape) == [2, i, 8]
        close(out, full[:, :i], 1e-10)
        assert cache.layers[1].self_attn.key.cache.value.dims() == [2, 2, i, 4]  # kept per step


def test_cross_attention_cache_reuses_the_first_context():
    CPU.seed(0)
    layer = nn.CrossAttentionConfig(4, 3, 2, 1, 2).init(CPU).no_grad()
    x = Tensor.from_data(randn(1, 2, 4), CPU)
    context = Tensor.from_data(randn(1, 5, 3, seed=1), CPU)
    cache = nn.CrossAttentionCache()
    first = layer.forward_cache(x, context, None, cache).to_torch()
    close(first, layer.forward(x, context).to_torch(), 1e-6)
    other = Tensor.from_data(randn(1, 5, 3, seed=2), CPU)
    close(layer.forward_cache(x, other, None, cache).to_torch(), first, 0)


# ---- position encodings -------------------------------------------------------------------------
def llama_rope(x: torch.Tensor, theta: float, start: int = 0) -> torch.Tensor:
    """Llama's reference RoPE: consecutive pairs as complex numbers times ``e^(i pos theta_k)``."""
    d, seq = x.shape[-1], x.shape[-2]
    freqs = 1.0 / theta ** (torch.arange(0, d, 2, dtype=torch.float64) / d)
    angles = torch.outer(torch.arange(start, start + seq, dtype=torch.float64), freqs)
    rot = torch.polar(torch.ones_like(angles), angles)
    pairs = torch.view_as_complex(x.double().reshape(*x.shape[:-1], d // 2, 2).contiguous())
    return torch.view_as_real(pairs * rot).reshape(x.shape).to(x.dtype)


@pytest.mark.parametrize("dtype, tol", DTYPES)
def test_rotary_encoding_equals_llama_and_its_gradient_is_the_inverse_rotation(dtype, tol):
    rope = nn.RotaryEncodingConfig(16, 8).init(AD)
    x_t = randn(2, 3, 5, 8, dtype=dtype).requires_grad_(True)
    x_b = Tensor.from_data(x_t.detach(), AD).require_grad()
    out_t, out_b = llama_rope(x_t, 10000.0), rope.forward(x_b)
    close(out_b.to_torch(), out_t.detach(), tol)
    cot = randn(2, 3, 5, 8, dtype=dtype, seed=3)
    (out_t * cot).sum().backward()
    grads = (out_b * Tensor.from_data(cot, AD)).sum().backward()
    close(x_b.grad(grads).to_torch(), x_t.grad, tol)


def test_rotary_encoding_is_one_step_unless_its_table_is_tracked():
    """One ``rotary`` step over the input; a table the user made tracked keeps Burn's composed
    ops, so that its gradient is computed too."""
    rope = nn.RotaryEncodingConfig(4, 4).init(AD)
    x = Tensor.from_data(randn(1, 3, 4, dtype=torch.float64), AD).require_grad()
    assert rope.forward(x)._node.op.name == "rotary"
    rope.freq_complex = rope.freq_complex.require_grad()
    grads = rope.forward(x).sum().backward()
    assert rope.freq_complex.grad(grads) is not None and x.grad(grads) is not None


def test_rotary_apply_starts_at_the_given_position_and_shift_moves_the_window():
    rope = nn.RotaryEncodingConfig(8, 4, 500.0).init(CPU)
    x = randn(1, 3, 4, dtype=torch.float64)
    xb = Tensor.from_data(x, CPU)
    close(rope.apply(xb, 2).to_torch(), llama_rope(x, 500.0, 2), 1e-10)
    rope.shift(5)
    close(rope.apply(xb, 0).to_torch(), llama_rope(x, 500.0, 5), 1e-10)
    with pytest.raises(ValueError, match="monotonically"):
        rope.shift(5)


def test_rotary_frequency_scaling_applies_to_theta():
    base = nn.RotaryEncodingConfig(4, 4).init(CPU)
    scaled = nn.RotaryEncodingConfig(4, 4).init_with_frequency_scaling(lambda t: t * 0.5, CPU)
    close(scaled.theta.to_torch(), base.theta.to_torch() * 0.5, 0)


def test_rotary_refuses_an_odd_d_model():
    with pytest.raises(ValueError, match="even"):
        nn.RotaryEncodingConfig(4, 5).init(CPU)


@pytest.mark.parametrize("dtype, tol", DTYPES)
def test_positional_encoding_adds_burns_sinusoids(dtype, tol):
    layer = nn.PositionalEncodingConfig(6).with_max_sequence_size(10).init(AD)
    assert (layer.max_sequence_size, layer.max_timescale) == (10, 10000)
    x_b = Tensor.from_data(randn(2, 7, 6, dtype=dtype), AD).require_grad()
    out = layer.forward(x_b)
    pos = torch.arange(7, dtype=torch.float64).view(-1, 1)
    div = torch.exp(torch.arange(0, 6, 2, dtype=torch.float64) * (-math.log(10000.0) / 6))
    table = torch.stack(((pos * div).sin(), (pos * div).cos()), -1).reshape(7, 6)
    close(out.to_torch(), (x_b.to_torch().double() + table).to(dtype), 1e-6)
    grads = (out * 3.0).sum().backward()
    close(x_b.grad(grads).to_torch(), torch.full((2, 7, 6), 3.0, dtype=dtype), tol)


def test_positional_encoding_refuses_a_sequence_longer_than_its_table():
    layer = nn.PositionalEncodingConfig(4).with_max_sequence_size(3).init(CPU)
    with pytest.raises(ValueError, match="max_sequence_size"):
        layer.forward(Tensor.from_data(randn(1, 4, 4), CPU))


def test_decoder_config_defaults_follow_burn():
    config = nn.TransformerDecoderConfig(8, 16, 2, 1)
    assert (config.dropout, config.norm_first, config.quiet_softmax, config.layer_norm_eps) == (
        0.1, False, False, 1e-5)
    layer = config.init(CPU).layers[0]
    assert [name for name, _ in layer.named_params()][:2] == ["cross_attn.query.weight",
                                                              "cross_attn.query.bias"]


@pytest.mark.parametrize("norm_first", [False, True])
def test_from_torch_module_converts_a_transformer_decoder(norm_first):
    from burn_torch.compat import from_torch_module
    torch.manual_seed(0)
    reference = decoder_twin(norm_first, "relu").eval()
    layer = from_torch_module(reference, CPU)
    target, memory, mask, pad = decoder_inputs(torch.float32)
    out = decoder_burn_call(layer, *(Tensor.from_data(t, CPU) for t in (target, memory, mask,
                                                                        pad)))[0]
    close(out.to_torch(), decoder_torch_call(reference, target, memory, mask, pad)[0].detach(),
          1e-5)


# ---- mask helpers -------------------------------------------------------------------------------
def test_generate_padding_mask_pads_to_the_longest_list_and_marks_the_padding():
    out = nn.generate_padding_mask(0, [[3, 4, 5], [6]], None, CPU)
    assert out.tensor.to_data().to_list() == [[3, 4, 5], [6, 0, 0]]
    assert out.mask.to_data().to_list() == [[False, False, False], [False, True, True]]


def test_generate_padding_mask_lengths_follow_seq_length_option():
    tokens = [[1, 2, 3, 4], [5]]
    assert nn.generate_padding_mask(9, tokens, 2, CPU).tensor.dims() == [2, 2]
    assert nn.generate_padding_mask(9, tokens, 10, CPU).tensor.dims() == [2, 4]
    fixed = nn.generate_padding_mask(9, tokens, nn.SeqLengthOption.fixed(6), CPU)
    assert fixed.tensor.to_data().to_list()[1] == [5, 9, 9, 9, 9, 9]


def test_generate_autoregressive_mask_masks_the_future():
    assert nn.generate_autoregressive_mask(1, 3, CPU).to_data().to_list() == [
        [[False, True, True], [False, False, True], [False, False, False]]]
