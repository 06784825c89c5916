"""BALANCED gradient checkpointing and the memory accounting that shows its effect.

Under BALANCED a memory-bound step keeps how to recompute its output instead of the output or
its saved values; backward recomputes what a rule needs, once, and frees it after use. Gradients
must equal DISABLED's bit for bit (same kernels, same order), and every autodiff rule (consumption,
leaves, strategies) is unchanged.
"""
from __future__ import annotations

import math
import re
import subprocess
import sys
import weakref
from pathlib import Path

import pytest
import torch

from burn_torch import GraphConsumedError, Tensor
from burn_torch.activation import gelu, relu, softmax
from burn_torch.autodiff.checkpoint import Checkpoint
from burn_torch.autodiff.recorder import apply1, apply2
from burn_torch.memory import graph_bytes, track
from burn_torch.module_ops import (ConvOptions, attention, avg_pool2d, conv2d, embedding, linear,
                                   max_pool2d)
from burn_torch.ops.table import COMPUTE, MEMORY, PASS, OpDef, vjp
from helpers import AD, BALANCED, CK, DISABLED

pytestmark = pytest.mark.usefixtures("no_gc")  # a freed value is dead the moment it is dropped


# ------------------------------------------------------------------------------- helpers ----
def params(device, *shapes, seed=0):
    gen = torch.Generator().manual_seed(seed)
    return [Tensor.from_data(torch.randn(*s, generator=gen) * 0.3, device).require_grad() for s in shapes]


def data(device, *shape, seed=1):
    return Tensor.from_data(torch.randn(*shape, generator=torch.Generator().manual_seed(seed)), device)


def layer_norm(h, dim, gamma, beta):
    c = h - h.mean_dim(dim)
    return c / (h.var_bias(dim) + 1e-5).sqrt() * gamma + beta


def mlp(device, layers=4, width=16, batch=6, residual=True):
    """Blocks of layer norm, linear, gelu, scale and (optionally) a residual add."""
    ps = params(device, *[s for _ in range(layers) for s in ((width,), (width,), (width, width), (width,))])
    h = data(device, batch, width)
    for i in range(layers):
        gamma, beta, w, b = ps[4 * i:4 * i + 4]
        f = gelu(layer_norm(h, 1, gamma, beta) @ w + b).mul_scalar(0.5)
        h = h + f if residual else f
    return h.square().mean(), ps


def cnn(device):
    """Two convolutions (relu, gelu), a channel norm, average pooling and a linear head."""
    w1, b1, w2, b2, head = params(device, (4, 3, 3, 3), (4,), (4, 4, 3, 3), (4,), (64, 5))
    opts = ConvOptions(stride=[1, 1], padding=[1, 1], dilation=[1, 1], groups=1)
    x = data(device, 2, 3, 8, 8)
    h = relu(conv2d(x, w1, b1, opts))
    h = gelu(conv2d(h, w2, b2, opts))
    h = (h - h.mean_dim(1)) * 0.5
    h = avg_pool2d(h, [2, 2], [2, 2], [0, 0], True).flatten(1, 3)
    return softmax(h @ head, 1).log().mean(), [w1, b1, w2, b2, head]


def transformer_block(device, batch=2, seq=5, d=8):
    """Pre-norm attention (matmul/softmax) and a gelu MLP, each with a residual add."""
    ps = params(device, (d,), (d,), (d, d), (d, d), (d, d), (d, d), (d,), (d,), (d,), (d, 2 * d),
                (2 * d,), (2 * d, d))
    g1, b1, wq, wk, wv, wo, bo, g2, b2, w1, c1, w2 = ps
    x = data(device, batch, seq, d)
    n = layer_norm(x, 2, g1, b1)
    q, k, v = linear(n, wq), linear(n, wk), linear(n, wv)
    attn = softmax(q.matmul(k.swap_dims(1, 2)).mul_scalar(1 / math.sqrt(d)), 2)
    h = x + linear(attn.matmul(v), wo, bo)
    h = h + linear(gelu(linear(layer_norm(h, 2, g2, b2), w1, c1)), w2)
    return h.square().mean(), ps


def gradients(model, device):
    loss, ps = model(device)
    grads = loss.backward()
    return loss.to_torch(), [p.grad(grads).to_torch() for p in ps]


def assert_same_gradients(model):
    loss_d, grads_d = gradients(model, AD)
    loss_b, grads_b = gradients(model, CK)
    assert torch.equal(loss_d, loss_b)
    for i, (a, b) in enumerate(zip(grads_d, grads_b, strict=True)):
        assert torch.equal(a, b), f"gradient of parameter {i} differs by {(a - b).abs().max()}"


class Spy:
    """A memory-bound exp (its rule needs its output) that keeps a weakref to every output."""

    def __init__(self):
        self.outputs = []
        self.op = OpDef("spy_exp", self.forward, MEMORY, vjp=(vjp(lambda g, s: g * s.out, "out"),))

    def forward(self, x):
        out = torch.exp(x)
        self.outputs.append(weakref.ref(out))
        return out

    def __call__(self, x):
        return apply1(self.op, x)


# ==================================================================== gradients are exact ====
def test_mlp_gradients_under_balanced_equal_disabled_bit_for_bit():
    assert_same_gradients(mlp)


def test_cnn_gradients_under_balanced_equal_disabled_bit_for_bit():
    assert_same_gradients(cnn)


def test_transformer_block_gradients_under_balanced_equal_disabled_bit_for_bit():
    assert_same_gradients(transformer_block)


def _shape_ops(device):
    a, b = params(device, (3, 4), (3, 4))
    e = Tensor.cat([a.exp(), b.sin()], 0).slice([slice(1, 5), slice(0, 3)])
    s = Tensor.stack([e, e.tanh()], 1).permute([2, 0, 1]).reshape([3, 8]).swap_dims(0, 1)
    return s.expand([2, 8, 3]).square().mean(), [a, b]


def _index_ops(device):
    (a,) = params(device, (4, 5))
    e = a.exp()
    mask = Tensor.from_bools([[True, False, False, True, False]] * 4, device)
    picked = e.select(0, [2, 0, 2]).gather(1, Tensor.from_ints([[0, 4], [1, 1], [3, 2]], device))
    return picked.sin().sum() + e.mask_fill(mask, 0.5).mask_where(mask, e.cos()).square().mean(), [a]


def _module_ops(device):
    x, w, k = params(device, (2, 3, 6, 6), (3, 3, 3, 3), (12, 5))
    opts = ConvOptions(stride=[1, 1], padding=[1, 1], dilation=[1, 1], groups=1)
    h = max_pool2d(conv2d(x.exp(), w, None, opts).tanh(), [2, 2], [2, 2], [0, 0], [1, 1])
    q = embedding(k, Tensor.from_ints([[0, 3], [11, 3]], device)).sin().reshape([2, 1, 2, 5])
    return h.square().mean() + attention(q.exp(), q.cos(), q * 2.0).tanh().sum(), [x, w, k]


@pytest.mark.parametrize("model", [_shape_ops, _index_ops, _module_ops],
                         ids=["shape", "index", "module"])
def test_op_family_gradients_under_balanced_equal_disabled_bit_for_bit(model):
    assert_same_gradients(model)


def test_graph_recorded_partly_balanced_backpropagates_from_a_disabled_root():
    def model(device):
        loss, ps = mlp(device, layers=2)
        return (loss.with_gradient_checkpointing_strategy(DISABLED).exp() * 2.0).sum(), ps

    loss_b, grads_b = gradients(model, CK)
    loss_d, grads_d = gradients(model, AD)
    assert torch.equal(loss_b, loss_d)
    assert all(torch.equal(a, b) for a, b in zip(grads_b, grads_d, strict=True))


# ========================================================================= memory held ====
def test_balanced_holds_at_most_0_6x_disabled_bytes_on_a_16_layer_mlp():
    disabled = graph_bytes(mlp(AD, layers=16, width=64, batch=32)[0])
    balanced = graph_bytes(mlp(CK, layers=16, width=64, batch=32)[0])
    assert balanced <= 0.6 * disabled, f"BALANCED holds {balanced} B, DISABLED {disabled} B"


def test_memory_bound_chain_holds_only_its_kept_input():
    x, w = params(CK, (8, 16), (16, 32))
    mm = x @ w
    y = (mm.exp() * 2.0).sin().tanh()
    # DISABLED would hold x, w, exp's output, the product (sin's input) and tanh's output
    assert graph_bytes(y) == (8 * 16 + 16 * 32 + 8 * 32) * 4  # x, w (matmul) and mm


def test_graph_bytes_counts_a_storage_saved_twice_once():
    (x,) = params(AD, (10,))
    y = x.exp().sin()  # exp saves its output, sin saves it again as its input
    assert graph_bytes(y) == 10 * 4


def test_graph_bytes_is_zero_once_backward_consumed_the_graph():
    loss, _ = mlp(CK, layers=2)
    loss.backward()
    assert graph_bytes(loss) == 0


def test_graph_bytes_rejects_non_tensors():
    with pytest.raises(TypeError, match="graph_bytes expects burn_torch Tensors, got list"):
        graph_bytes([1.0])


def test_track_starts_from_what_the_graph_held():
    loss, _ = mlp(CK, layers=3)
    held = graph_bytes(loss)
    with track() as m:
        loss.backward()
    assert (m.start_bytes, m.passes) == (held, 1)
    assert m.peak_bytes >= held


def test_balanced_backward_peaks_lower_than_disabled():
    peaks = {}
    for device in (AD, CK):
        loss, _ = mlp(device, layers=8, width=64, batch=32, residual=False)
        with track() as m:
            loss.backward()
        peaks[device.gradient_checkpointing_strategy()] = m.peak_bytes
    assert peaks[BALANCED] < 0.8 * peaks[DISABLED], peaks


def test_track_measures_only_backward_passes_inside_the_block():
    first, _ = mlp(CK, layers=2)
    second, _ = mlp(CK, layers=2)
    first.backward()
    with track() as m:
        second.backward()
    third, _ = mlp(CK, layers=2)
    third.backward()
    assert m.passes == 1


# ======================================================================== recomputation ====
def test_output_read_by_several_rules_is_recomputed_once():
    spy = Spy()
    x, w, w2, w3 = params(CK, (4, 6), (6, 6), (6, 3), (6, 3))
    h = spy(x @ w)  # read by its own rule and by both matmuls' rules
    loss = (h @ w2 + h @ w3).sum()
    loss.backward()
    assert len(spy.outputs) == 2  # the forward, then one recomputation


def test_recomputed_value_is_freed_before_backward_reaches_earlier_steps():
    spy = Spy()
    alive = []

    def probe_rule(g, s):  # x's matmul, whose rule runs after every step downstream of it
        alive.append(spy.outputs[1]() is not None)
        return s.a.t() @ g

    probe = OpDef("probe_matmul", torch.matmul, COMPUTE, inputs=("a", "b"),
                  vjp=(None, vjp(probe_rule, "a")))
    w, w2 = params(CK, (6, 6), (6, 3))
    h = spy(apply2(probe, data(CK, 4, 6), w))  # recomputed for w2's matmul rule and its own
    (h @ w2).sum().backward()
    assert len(spy.outputs) == 2
    assert alive == [False]


def test_recomputed_values_are_freed_when_a_step_gets_no_gradient():
    spy = Spy()
    stop = OpDef("stop_gradient", torch.clone, MEMORY, vjp=(vjp(lambda g, s: None, "out"),))
    x, w = params(CK, (4, 6), (6, 6))
    m = x @ w
    s = apply1(stop, spy(m))  # the spy's step is reached but gets no gradient
    (s * m).sum().backward()
    assert len(spy.outputs) == 2
    assert spy.outputs[1]() is None


def test_random_step_is_recomputed_with_the_generator_state_of_its_forward():
    calls = []

    def noisy(x, gen):
        calls.append(1)
        return x + torch.randn(x.shape, generator=gen)

    noise = OpDef("noise", noisy, MEMORY, attrs=("generator",), vjp=(PASS,))

    def model(device, gen):
        x, w, w2 = params(device, (4, 6), (6, 6), (6, 3))
        h = apply1(noise, x @ w, (gen,)).exp()  # exp's rule needs its output: noise is replayed
        return (h @ w2).sum(), [x, w, w2]

    results = {}
    for device in (AD, CK):
        gen = torch.Generator().manual_seed(5)
        loss, ps = model(device, gen)
        grads = loss.backward()
        results[device] = ([p.grad(grads).to_torch() for p in ps], gen.get_state())
    assert len(calls) == 3  # DISABLED forward, BALANCED forward, one recomputation
    (grads_d, state_d), (grads_b, state_b) = results[AD], results[CK]
    assert all(torch.equal(a, b) for a, b in zip(grads_d, grads_b, strict=True))
    assert torch.equal(state_d, state_b)  # replaying did not advance the caller's generator


# ================================================================ untracked-parent fallback ====
def test_step_with_an_untracked_parent_keeps_its_output_for_its_children():
    x, w = params(CK, (4, 6), (6, 6))
    const = data(CK, 4, 6)
    c = (x @ w).sin() * const  # memory-bound with an untracked parent: kept, as in Burn
    d = c.exp()  # recomputable, from c's kept output
    assert d._node.saved.inputs[0] is c.to_torch()
    assert not isinstance(c._node.saved, Checkpoint)  # c saves what it saves under DISABLED
    assert graph_bytes(d) == (24 + 36 + 24 + 24 + 24) * 4  # x, w, x @ w, const, c


def test_gradients_through_an_untracked_parent_fallback_equal_disabled():
    def model(device):
        x, w = params(device, (4, 6), (6, 6))
        c = (x @ w).sin() * data(device, 4, 6) + data(device, 4, 6, seed=2).without_autodiff()
        return c.exp().tanh().sum(), [x, w]

    loss_d, grads_d = gradients(model, AD)
    loss_b, grads_b = gradients(model, CK)
    assert torch.equal(loss_d, loss_b)
    assert all(torch.equal(a, b) for a, b in zip(grads_d, grads_b, strict=True))


# ============================================================ consumption rules unchanged ====
def test_second_backward_under_balanced_raises():
    loss, _ = mlp(CK, layers=2)
    loss.backward()
    with pytest.raises(GraphConsumedError, match="already consumed"):
        loss.backward()


def test_backward_through_an_intermediate_consumed_under_balanced_raises():
    x, w = params(CK, (3, 4), (4, 4))
    h = gelu(x @ w)
    h.sum().backward()
    with pytest.raises(GraphConsumedError, match="earlier backward consumed"):
        (h * 2.0).sum().backward()


def test_leaves_are_reusable_in_a_fresh_balanced_forward():
    (w,) = params(CK, (4, 4))
    x = data(CK, 3, 4)
    first = gelu(x @ w).exp().sum().backward()
    second = gelu(x @ w).exp().sum().backward()
    assert torch.equal(w.grad(first).to_torch(), w.grad(second).to_torch())


def test_balanced_results_keep_the_strategy_and_tracking():
    x, w = params(CK, (3, 4), (4, 4))
    h = gelu(x @ w)
    assert h.gradient_checkpointing_strategy() is BALANCED
    assert (h.is_tracked(), h.is_require_grad()) == (True, False)


def test_readme_checkpointing_example_prints_as_documented():
    readme = (Path(__file__).resolve().parent.parent / "README.md").read_text(encoding="utf-8")
    section = readme.split("## Gradient checkpointing and memory", 1)[1]
    block = re.search(r"^```python\n(.*?)^```", section, re.S | re.M).group(1)
    out = subprocess.run([sys.executable, "-c", block], capture_output=True, text=True, check=True)
    assert out.stdout.splitlines() == ["DISABLED 90112 106496", "BALANCED 57344 98304"]
