"""Burn's recurrent layers (``Lstm``, ``Gru``, ``Rnn`` and ``BiLstm``, ``BiGru``, ``BiRnn``) as
specifications: each equals its ``torch.nn`` twin (same weights through the state-dict adapters,
outputs and every gradient in float64 within 1e-10 and float32 within 1e-5), multi-layer torch
networks convert with their keys, the configs carry Burn's names and defaults, and a layer with
Burn's default cell runs its whole sequence as one op-table entry."""
import pytest
import torch

from burn_torch import Device, Tensor, nn
from burn_torch.compat import from_torch_module, to_torch_state_dict
from burn_torch.interop.torch_layers import StackedGru, StackedLstm, StackedRnn
from burn_torch import DType
from burn_torch.capture import capture
from burn_torch.nn.rnn.base import recurrent_sequence
from burn_torch.ops import recurrent as recurrent_ops
from test_nn_layers import DTYPES, Case, _Cast, close, randn, run_both

CPU = Device.cpu()
AD = CPU.autodiff()


def _states(dt, *shape, n=1):
    return [randn(*shape, dtype=dt, seed=1 + i) for i in range(n)]


def _x(dt, *shape):
    return randn(*shape, dtype=dt)


def lstm_call(m, x, h0, c0):
    out, state = m.forward(x, nn.LstmState(c0, h0))
    return [out, state.hidden, state.cell]


def torch_lstm_call(m, x, h0, c0):
    out, (h, c) = m(x, (h0, c0))
    return [out, h, c]


def gru_call(m, x, h0):
    return [m.forward(x, h0)]


def torch_gru_call(m, x, h0):
    return [m(x, h0.unsqueeze(0))[0]]


def bi_gru_call(m, x, h0):
    return list(m.forward(x, h0))


def rnn_call(m, x, h0):
    out, state = m.forward(x, nn.RnnState(h0))
    return [out, state.hidden]


def torch_pair_call(m, x, h0):
    return list(m(x, h0))


def torch_single_pair_call(m, x, h0):
    out, h = m(x, h0.unsqueeze(0))
    return [out, h.squeeze(0)]


def single_lstm_torch_call(m, x, h0, c0):
    return torch_lstm_call(m, x, h0.unsqueeze(0), c0.unsqueeze(0))[:1] + [
        t.squeeze(0) for t in torch_lstm_call(m, x, h0.unsqueeze(0), c0.unsqueeze(0))[1:]]


CASES = {
    "gru": Case(lambda: nn.GruConfig(3, 5, True).init(CPU),
                lambda: torch.nn.GRU(3, 5, batch_first=True),
                lambda dt: [_x(dt, 2, 4, 3), *_states(dt, 2, 5)], gru_call, torch_gru_call),
    "gru_no_bias": Case(lambda: nn.GruConfig(3, 4, False).init(CPU),
                        lambda: torch.nn.GRU(3, 4, bias=False, batch_first=True),
                        lambda dt: [_x(dt, 2, 5, 3), *_states(dt, 2, 4)], gru_call, torch_gru_call),
    "rnn": Case(lambda: nn.RnnConfig(3, 5, True).init(CPU),
                lambda: torch.nn.RNN(3, 5, batch_first=True),
                lambda dt: [_x(dt, 2, 4, 3), *_states(dt, 2, 5)], rnn_call, torch_single_pair_call),
    "rnn_seq_first_no_bias": Case(
        lambda: nn.RnnConfig(3, 4, False).with_batch_first(False).init(CPU),
        lambda: torch.nn.RNN(3, 4, bias=False),
        lambda dt: [_x(dt, 5, 2, 3), *_states(dt, 2, 4)], rnn_call, torch_single_pair_call),
    "rnn_relu": Case(
        lambda: nn.RnnConfig(3, 4, True).with_hidden_activation(nn.ActivationConfig.relu()).init(CPU),
        lambda: torch.nn.RNN(3, 4, nonlinearity="relu", batch_first=True),
        lambda dt: [_x(dt, 2, 5, 3), *_states(dt, 2, 4)], rnn_call, torch_single_pair_call),
    "bilstm": Case(lambda: nn.BiLstmConfig(3, 5, True).init(CPU),
                   lambda: torch.nn.LSTM(3, 5, batch_first=True, bidirectional=True),
                   lambda dt: [_x(dt, 2, 4, 3), *_states(dt, 2, 2, 5, n=2)],
                   lstm_call, torch_lstm_call),
    "bilstm_seq_first_no_bias": Case(
        lambda: nn.BiLstmConfig(3, 4, False).with_batch_first(False).init(CPU),
        lambda: torch.nn.LSTM(3, 4, bias=False, bidirectional=True),
        lambda dt: [_x(dt, 5, 2, 3), *_states(dt, 2, 2, 4, n=2)], lstm_call, torch_lstm_call),
    "bigru": Case(lambda: nn.BiGruConfig(3, 5, True).init(CPU),
                  lambda: torch.nn.GRU(3, 5, batch_first=True, bidirectional=True),
                  lambda dt: [_x(dt, 2, 4, 3), *_states(dt, 2, 2, 5)], bi_gru_call, torch_pair_call),
    "bigru_seq_first": Case(lambda: nn.BiGruConfig(3, 4, True).with_batch_first(False).init(CPU),
                            lambda: torch.nn.GRU(3, 4, bidirectional=True),
                            lambda dt: [_x(dt, 5, 2, 3), *_states(dt, 2, 2, 4)],
                            bi_gru_call, torch_pair_call),
    "birnn": Case(lambda: nn.BiRnnConfig(3, 5, True).init(CPU),
                  lambda: torch.nn.RNN(3, 5, batch_first=True, bidirectional=True),
                  lambda dt: [_x(dt, 2, 4, 3), *_states(dt, 2, 2, 5)], rnn_call, torch_pair_call),
    "stacked_bilstm": Case(
        lambda: from_torch_module(torch.nn.LSTM(3, 4, 2, batch_first=True, bidirectional=True), CPU),
        lambda: torch.nn.LSTM(3, 4, 2, batch_first=True, bidirectional=True),
        lambda dt: [_x(dt, 2, 5, 3)], lambda m, x: [m.forward(x)[0]], lambda m, x: [m(x)[0]]),
    "stacked_gru_seq_first": Case(
        lambda: from_torch_module(torch.nn.GRU(3, 4, 3), CPU),
        lambda: torch.nn.GRU(3, 4, 3),
        lambda dt: [_x(dt, 5, 2, 3)], lambda m, x: [m.forward(x)[0]], lambda m, x: [m(x)[0]]),
    "stacked_birnn": Case(
        lambda: from_torch_module(torch.nn.RNN(3, 4, 2, bidirectional=True), CPU),
        lambda: torch.nn.RNN(3, 4, 2, bidirectional=True),
        lambda dt: [_x(dt, 5, 2, 3)], lambda m, x: [m.forward(x)[0]], lambda m, x: [m(x)[0]]),
}


@pytest.mark.parametrize("dtype, tol", DTYPES)
@pytest.mark.parametrize("name", list(CASES))
def test_layer_output_and_gradients_equal_torch(name, dtype, tol):
    outs_t, outs_b, grads_t, grads_b, inputs = run_both(CASES[name], dtype)
    assert len(outs_t) == len(outs_b)
    for o_t, o_b in zip(outs_t, outs_b):
        close(o_b.to_torch(), o_t.detach(), tol)
    for g_t, g_b in inputs:
        close(g_b.to_torch(), g_t, tol)
    assert set(grads_b) == set(grads_t)
    for key, g_t in grads_t.items():
        close(grads_b[key], g_t, tol)


def _reversed_sequence(layer_reverse, layer_forward, x):
    """Runs ``layer_reverse`` on ``x`` and ``layer_forward`` on ``x`` flipped in time."""
    out_r = layer_reverse.forward(x)
    out_f = layer_forward.forward(x.flip([1]))
    return out_r, out_f


@pytest.mark.parametrize("config", [nn.LstmConfig(2, 3, True), nn.RnnConfig(2, 3, True)],
                         ids=["lstm", "rnn"])
def test_reverse_equals_the_forward_pass_over_the_flipped_sequence(config):
    CPU.seed(0)
    forward = config.init(CPU).map(_Cast(DType.F64))
    backward = config.with_reverse(True).init(CPU).map(_Cast(DType.F64)).load_record(
        forward.into_record())
    x = Tensor.from_data(randn(2, 4, 2, dtype=torch.float64), CPU)
    (out_r, state_r), (out_f, state_f) = _reversed_sequence(backward, forward, x)
    close(out_r.to_torch(), out_f.flip([1]).to_torch(), 1e-12)
    close(state_r.hidden.to_torch(), state_f.hidden.to_torch(), 1e-12)


def _composed_and_fused(make, call):
    """Outputs and input gradient of a layer forced onto the composed path (a clip that never
    binds) and of the same weights on the fused op."""
    CPU.seed(0)
    fused = make(None).init(AD).map(_Cast(DType.F64))
    composed = make(1e9).init(AD).map(_Cast(DType.F64)).load_record(fused.into_record()).train()
    fused = fused.train()
    results = []
    for layer in (fused, composed):
        x = Tensor.from_data(randn(2, 4, 3, dtype=torch.float64), AD).require_grad()
        out = call(layer, x)
        grads = (out * out).sum().backward()
        w = layer.named_params()[0][1].val()
        results.append((out.to_torch(), x.grad(grads).to_torch(), w.grad(grads).to_torch()))
    return results


@pytest.mark.parametrize("make, call", [
    (lambda clip: nn.LstmConfig(3, 4, True).with_clip(clip), lambda m, x: m.forward(x)[0]),
    (lambda clip: nn.GruConfig(3, 4, True).with_clip(clip), lambda m, x: m.forward(x)),
    (lambda clip: nn.RnnConfig(3, 4, True).with_clip(clip), lambda m, x: m.forward(x)[0]),
], ids=["lstm", "gru", "rnn"])
def test_the_fused_op_and_burns_step_by_step_equations_agree(make, call):
    (fused, composed) = _composed_and_fused(make, call)
    for a, b in zip(fused, composed):
        close(a, b, 1e-12)


def test_gru_reset_before_applies_the_reset_gate_to_the_hidden_state_before_its_transform():
    CPU.seed(0)
    gru = nn.GruConfig(2, 3, True).with_reset_after(False).init(CPU).map(_Cast(DType.F64))
    x = randn(2, 3, 2, dtype=torch.float64)
    w = {k: p.val().to_torch().double() for k, p in gru.named_params()}
    h = torch.zeros(2, 3, dtype=torch.float64)

    def lin(gate, side, v):
        return v @ w[f"{gate}.{side}_transform.weight"] + w[f"{gate}.{side}_transform.bias"]
    for t in range(3):
        z = torch.sigmoid(lin("update_gate", "input", x[:, t]) + lin("update_gate", "hidden", h))
        r = torch.sigmoid(lin("reset_gate", "input", x[:, t]) + lin("reset_gate", "hidden", h))
        n = torch.tanh(lin("new_gate", "input", x[:, t]) + lin("new_gate", "hidden", r * h))
        h = (1 - z) * n + z * h
    out = gru.forward(Tensor.from_data(x, CPU))
    close(out.to_torch()[:, -1], h, 1e-12)


@pytest.mark.parametrize("layer, op", [
    (lambda: nn.LstmConfig(3, 4, True).init(AD), "lstm"),
    (lambda: nn.GruConfig(3, 4, True).init(AD), "gru"),
    (lambda: nn.RnnConfig(3, 4, False).init(AD), "rnn"),
], ids=["lstm", "gru", "rnn"])
def test_a_default_layer_runs_its_whole_sequence_as_one_op(layer, op):
    out = layer().forward(Tensor.ones([2, 6, 3], AD).require_grad())
    out = out if isinstance(out, Tensor) else out[0]
    node = out._node
    ops = []
    while node is not None and node.op is not None:
        ops.append(node.op.name)
        node = node.parents[0]
    assert ops.count(op) == 1 and len(ops) <= 2


def test_configs_have_burns_fields_and_defaults():
    gru = nn.GruConfig(2, 3, True)
    assert (gru.reset_after, gru.clip, gru.initializer) == (True, None, nn.Initializer.xavier_normal(1.0))
    assert gru.gate_activation == nn.ActivationConfig.sigmoid()
    assert gru.hidden_activation == nn.ActivationConfig.tanh()
    rnn = nn.RnnConfig(2, 3, False)
    assert (rnn.batch_first, rnn.reverse, rnn.clip) == (True, False, None)
    assert rnn.hidden_activation == nn.ActivationConfig.tanh()
    bi = nn.BiLstmConfig(2, 3, True)
    assert (bi.batch_first, bi.clip, bi.input_forget) == (True, None, False)
    assert not hasattr(bi, "reverse")
    assert nn.BiGruConfig(2, 3, True).with_reset_after(False).reset_after is False
    assert nn.BiRnnConfig(2, 3, True).with_batch_first(False).batch_first is False


def test_records_use_burns_field_names():
    names = [n for n, _ in nn.BiGruConfig(2, 3, True).init(CPU).named_params()]
    assert names[0] == "forward.update_gate.input_transform.weight"
    assert "reverse.new_gate.hidden_transform.bias" in names
    assert [n for n, _ in nn.RnnConfig(2, 3, True).init(CPU).named_params()] == [
        "gate.input_transform.weight", "gate.input_transform.bias",
        "gate.hidden_transform.weight", "gate.hidden_transform.bias"]


def test_a_bi_layer_forward_is_the_method_and_its_forward_field_the_layer():
    bi = nn.BiLstmConfig(2, 3, True).init(CPU)
    assert isinstance(bi.forward_layer, nn.Lstm) and isinstance(bi.reverse, nn.Lstm)
    out, state = bi.forward(Tensor.zeros([1, 4, 2], CPU))
    assert out.dims() == [1, 4, 6] and state.hidden.dims() == [2, 1, 3]


@pytest.mark.parametrize("torch_layer, stacked", [
    (torch.nn.LSTM(3, 4, 2, bidirectional=True), StackedLstm),
    (torch.nn.GRU(3, 4, 2), StackedGru),
    (torch.nn.RNN(3, 4, 3, bidirectional=True), StackedRnn),
], ids=["lstm", "gru", "rnn"])
def test_multi_layer_torch_keys_round_trip_through_the_stacked_layers(torch_layer, stacked):
    converted = from_torch_module(torch_layer, CPU)
    assert isinstance(converted, stacked)
    exported = to_torch_state_dict(converted)
    expected = torch_layer.state_dict()
    assert sorted(exported) == sorted(expected)
    for key, value in expected.items():
        assert torch.equal(exported[key], value), key


def test_bi_layer_state_must_have_two_directions():
    bi = nn.BiGruConfig(2, 3, True).init(CPU)
    with pytest.raises(ValueError, match=r"\[2, batch, d_hidden\]"):
        bi.forward(Tensor.zeros([1, 4, 2], CPU), Tensor.zeros([1, 1, 3], CPU))


@pytest.mark.parametrize("layer", [lambda: nn.GruConfig(2, 3, True).init(CPU),
                                   lambda: nn.RnnConfig(2, 3, True).init(CPU),
                                   lambda: nn.BiLstmConfig(2, 3, True).init(CPU)],
                         ids=["gru", "rnn", "bilstm"])
def test_a_recurrent_layer_rejects_an_input_that_is_not_rank_3(layer):
    with pytest.raises(ValueError, match=r"expected input \[batch, seq, 2\]"):
        layer().forward(Tensor.zeros([4, 2], CPU))


@pytest.mark.skipif(not torch.cuda.is_available(), reason="needs CUDA (torch's fused cell kernels)")
@pytest.mark.parametrize("name", ["bilstm", "bigru"])
def test_on_cuda_the_fused_cell_kernels_equal_torch(name):
    case = CASES[name]
    cuda = Device.cuda()
    torch.manual_seed(0)
    reference = case.torch().double()
    layer = from_torch_module(reference, cuda.autodiff()).map(_Cast(DType.F64)).train()
    raw = case.inputs(torch.float64)
    xs_t = [x.clone().requires_grad_(True) for x in raw]
    xs_b = [Tensor.from_data(x.cuda(), cuda.autodiff()).require_grad() for x in raw]
    outs_t = case.torch_call(reference, *xs_t)
    outs_b = case.burn_call(layer, *xs_b)
    sum(o.sum() for o in outs_t).backward()
    grads = sum(o.sum() for o in outs_b).backward()
    for o_t, o_b in zip(outs_t, outs_b):
        close(o_b.to_torch().cpu(), o_t.detach(), 1e-10)
    for x_t, x_b in zip(xs_t, xs_b):
        close(x_b.grad(grads).to_torch().cpu(), x_t.grad, 1e-10)


# ================================================= float32 LSTM (oneDNN kernel on CPU) ====
def _lstm_f32_args(device, seed, bias=True, d=3, h=4):
    """x, h0, c0 and one weight (and bias) per gate, float32, tracked (``d`` inputs, ``h`` wide)."""
    gen = torch.Generator().manual_seed(seed)
    shapes = [(2, 5, d), (2, h), (2, h)] + [(d, h)] * 4 + [(h, h)] * 4 + ([(h,)] * 8 if bias else [])
    return [Tensor.from_data(torch.randn(*s, generator=gen), device).require_grad() for s in shapes]


def _lstm_f32_step(x, h0, c0, *w):
    """The op's packed output, weighted so every part (outputs, final cell) gets a gradient;
    every input's gradient."""
    out = recurrent_sequence(recurrent_ops.LSTM, x, [h0, c0], w[:4], w[4:8], w[8:12], w[12:])
    grads = (out * out.sin()).sum().backward()
    return [t.grad(grads) for t in (x, h0, c0, *w)]


@pytest.mark.parametrize("width", [4, 64], ids=["narrow", "wide"])  # wide: shared gate gradients
@pytest.mark.parametrize("bias", [True, False], ids=["bias", "no_bias"])
def test_the_float32_lstm_replays_bit_equal_under_capture(bias, width):
    step = capture(_lstm_f32_step)
    step(*_lstm_f32_args(AD, 0, bias, width, width))
    second = _lstm_f32_args(AD, 1, bias, width, width)
    replayed = step(*second)
    assert step.eager_reason is None and step.replayed == 1, step.eager_reason
    for a, b in zip(replayed, _lstm_f32_step(*second)):
        assert torch.equal(a.to_torch(), b.to_torch())


def test_the_float32_lstm_gradients_under_balanced_equal_disabled_bit_for_bit():
    disabled = _lstm_f32_step(*_lstm_f32_args(AD, 0))
    balanced = _lstm_f32_step(*_lstm_f32_args(AD.gradient_checkpointing(), 0))
    for a, b in zip(disabled, balanced):
        assert torch.equal(a.to_torch(), b.to_torch())


def test_the_float32_lstm_gradients_equal_the_float64_ones():
    f32 = _lstm_f32_step(*_lstm_f32_args(AD, 0))
    f64 = _lstm_f32_step(*[Tensor.from_data(t.to_torch().double(), AD).require_grad()
                           for t in _lstm_f32_args(AD, 0)])
    for a, b in zip(f32, f64):
        torch.testing.assert_close(a.to_torch().double(), b.to_torch(), rtol=1e-4, atol=1e-5)


@pytest.mark.parametrize("wide", [False, True], ids=["kernel_buffer", "transposed_copy"])
@pytest.mark.parametrize("untracked", [None, 3, 8], ids=["all_tracked", "input_gate_constant",
                                                         "hidden_gate_constant"])
def test_the_float32_lstm_gate_gradients_hold_no_bytes_beyond_their_own(untracked, wide):
    # when all are tracked, a weight's gate gradients are parts of one buffer: the kernel's own
    # gradient (narrow gates) or one contiguous copy of it (gates this wide)
    width = int((recurrent_ops._SHARED_MIN / 4) ** 0.5) if wide else 4
    args = _lstm_f32_args(AD, 0, d=width, h=width)
    if untracked is not None:  # that gate's weight a constant: its part must not be kept alive
        args[untracked] = Tensor.from_data(args[untracked].to_torch(), AD)
    grads = [g.to_torch() for g in _lstm_f32_step(*args) if g is not None]
    storages = {g.untyped_storage().data_ptr(): g.untyped_storage().nbytes() for g in grads}
    assert sum(storages.values()) == sum(g.numel() * g.element_size() for g in grads)
