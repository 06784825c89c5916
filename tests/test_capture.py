"""``burn_torch.capture``: a recorded step replays bit-equal to eager on the benchmark models,
records again whenever the key changes (never a stale plan), raises eager's errors, guards host
reads, and reports divergence of hidden control flow when asked to check."""
import dataclasses
import functools
import pathlib
import random
import sys
from typing import NamedTuple

import numpy as np
import pytest
import torch

from burn_torch import (Device, GradientCheckpointingStrategy, Gradients, GraphConsumedError, Tensor,
                        nn)
from burn_torch.activation import relu
from burn_torch.capture import CaptureDivergenceError, capture
from burn_torch.module import Module, Param, ParamId
from burn_torch.module.tying import TiedParamError
from burn_torch.optim import GradientsParams, SgdConfig

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent.parent / "benchmarks"))
import cnn_step, gpt_step, mlp_step, mnist_cnn_step, rnn_step  # noqa: E402
import sequence_loop_step, transformer_step  # noqa: E402

CPU = Device.cpu()
AD = CPU.autodiff()


def _leaf(*shape, seed=0, device=AD, dtype=torch.float32):
    gen = torch.Generator().manual_seed(seed)
    return Tensor.from_data(torch.randn(*shape, generator=gen, dtype=dtype), device).require_grad()


def _const(*shape, seed=0):
    gen = torch.Generator().manual_seed(seed)
    return Tensor.from_data(torch.randn(*shape, generator=gen), CPU)


def _bits(xs, ys) -> bool:
    return len(xs) == len(ys) and all(torch.equal(a.to_torch(), b.to_torch()) for a, b in zip(xs, ys))


def mlp_loss_grads(x, w, b):
    grads = relu(x @ w + b).square().mean().backward()
    return [w.grad(grads), b.grad(grads)]


def _replays_bit_equal(fn, make_args) -> None:
    """Records on one set of argument values, replays on another, compares with eager."""
    step = capture(fn)
    step(*make_args(0))
    second = make_args(1)
    replayed = step(*second)
    assert step.eager_reason is None and step.replayed == 1, step.eager_reason
    assert _bits(replayed, fn(*second))


# ================================================================= benchmark models ====
def test_mlp_benchmark_step_replays_bit_equal():
    def args(seed):
        ws, bs = mlp_step.make_params(16, 3, seed)
        return (_const(8, 16, seed=seed), _const(8, 16, seed=seed + 7),
                [Tensor.from_data(w, AD).require_grad() for w in ws],
                [Tensor.from_data(b, AD).require_grad() for b in bs])
    _replays_bit_equal(mlp_step.burn_step, args)


def test_cnn_benchmark_step_replays_bit_equal():
    def args(seed):
        gen = torch.Generator().manual_seed(seed)
        params = cnn_step.make_params(3, 8, 4, seed)
        params = params[:4] + [params[4].t().contiguous(), params[5]]
        return (Tensor.from_data(torch.randn(2, 3, 8, 8, generator=gen), CPU),
                Tensor.from_data(torch.randint(0, cnn_step.CLASSES, (2,), generator=gen), CPU),
                [Tensor.from_data(p, AD).require_grad() for p in params])
    _replays_bit_equal(cnn_step.burn_step, args)


def test_transformer_benchmark_step_replays_bit_equal():
    def args(seed):
        gen = torch.Generator().manual_seed(seed)
        params = transformer_step.make_params(8, 11, seed)
        return (Tensor.from_data(torch.randn(2, 4, 8, generator=gen), CPU),
                Tensor.from_data(torch.randint(0, 11, (8,), generator=gen), CPU),
                [Tensor.from_data(p.t().contiguous() if i % 2 == 0 else p, AD).require_grad()
                 for i, p in enumerate(params)])
    _replays_bit_equal(lambda x, y, p: transformer_step.burn_step(x, y, p, 2), args)


def test_gpt_benchmark_step_replays_bit_equal():
    def args(seed):
        gen = torch.Generator().manual_seed(seed)
        params, linear = gpt_step.make_params(6, 8, 13, seed)
        idx = torch.randint(0, 13, (2, 6), generator=gen)
        return gpt_step.burn_inputs(idx, torch.randint(0, 13, (2, 6), generator=gen), params, linear)
    _replays_bit_equal(lambda *a: gpt_step.burn_step(*a, 2), args)


def test_mnist_benchmark_step_replays_bit_equal():
    def args(seed):
        gen = torch.Generator().manual_seed(seed)
        return mnist_cnn_step.burn_inputs(torch.randn(2, 1, 28, 28, generator=gen),
                                          torch.randint(0, 10, (2,), generator=gen),
                                          mnist_cnn_step.make_params(2, 3, 4, seed))
    _replays_bit_equal(mnist_cnn_step.burn_step, args)


def test_lstm_language_model_benchmark_step_replays_bit_equal():
    """The rnn_step LSTM model (two layers, one ``lstm`` op each, oneDNN's kernels): the modules
    are the arguments; the replay runs on other tokens and targets."""
    torch.manual_seed(0)
    torch_modules = (torch.nn.Embedding(11, 6), torch.nn.LSTM(6, 6, 2, batch_first=True),
                     torch.nn.Linear(6, 11))
    modules = [rnn_step.from_torch_module(m, AD) for m in torch_modules]

    def step(tokens, targets, emb, lstm, dec):
        out, _ = lstm.forward(emb.forward(tokens))
        grads = rnn_step.LOSS.forward(dec.forward(out).reshape([15, 11]), targets).backward()
        return [p.val().grad(grads) for m in (emb, lstm, dec) for p in m.params()]

    def args(seed):
        gen = torch.Generator().manual_seed(seed)
        return (Tensor.from_data(torch.randint(0, 11, (3, 5), generator=gen), CPU),
                Tensor.from_data(torch.randint(0, 11, (15,), generator=gen), CPU), *modules)
    _replays_bit_equal(step, args)


def test_gru_benchmark_step_replays_bit_equal():
    torch.manual_seed(0)
    gru = rnn_step.from_torch_module(torch.nn.GRU(4, 6, batch_first=True), AD)

    def step(x, gru):
        grads = gru.forward(x).square().mean().backward()
        return [p.val().grad(grads) for p in gru.params()]

    _replays_bit_equal(step, lambda seed: (_const(3, 5, 4, seed=seed), gru))


def test_transformer_decoder_benchmark_step_replays_bit_equal():
    """decoder_step's model (Burn's TransformerDecoder: masked self-attention and padded cross
    attention through mha_weights): the parameters are arguments; the replay runs on another
    target and memory."""
    torch.manual_seed(0)
    model = nn.TransformerDecoderConfig(8, 16, 2, 2).with_dropout(0.0).init(AD).train()
    params = [p.val() for _, p in model.named_params()]
    mask = nn.generate_autoregressive_mask(2, 3, AD)
    pad = Tensor.from_data(torch.tensor([[False, False, False, True], [False] * 4]), AD)

    def step(target, memory, *params):
        inp = nn.TransformerDecoderInput(target, memory).target_mask_attn(mask)
        grads = model.forward(inp.memory_mask_pad(pad)).square().sum().backward()
        return [t.grad(grads) for t in (target, memory, *params)]

    _replays_bit_equal(step, lambda seed: (_leaf(2, 3, 8, seed=seed), _leaf(2, 4, 8, seed=seed + 1),
                                           *params))


def test_sequence_loop_benchmark_step_replays_bit_equal():
    def args(seed):
        gen = torch.Generator().manual_seed(seed)
        values = [torch.randn(2, 5, 3, generator=gen), *sequence_loop_step.make_params(3, 4, seed)]
        return [Tensor.from_data(t, AD).require_grad() for t in values]
    _replays_bit_equal(sequence_loop_step.burn_step, args)


def test_balanced_checkpointing_step_replays_bit_equal():
    ck = CPU.autodiff().gradient_checkpointing()
    _replays_bit_equal(mlp_loss_grads, lambda s: (_const(4, 5, seed=s), _leaf(5, 3, seed=s, device=ck),
                                                  _leaf(3, seed=s + 1, device=ck)))


# ============================================================================ results ====
def test_gradients_container_is_keyed_by_the_new_calls_leaves():
    def fn(x, w):
        return (x @ w).sum().backward()
    step = capture(fn)
    step(_const(2, 3), _leaf(3, 4))
    w = _leaf(3, 4, seed=5)
    grads = step(_const(2, 3, seed=1), w)
    assert step.replayed == 1 and isinstance(grads, Gradients)
    assert torch.equal(w.grad(grads).to_torch(), w.grad(fn(_const(2, 3, seed=1), w)).to_torch())


def test_a_replayed_loss_is_consumed_as_after_eager_backward():
    def fn(x, w):
        loss = (x @ w).sum()
        return loss, loss.backward()
    step = capture(fn)
    step(_const(2, 3), _leaf(3, 4))
    loss, _ = step(_const(2, 3, seed=1), _leaf(3, 4, seed=1))
    assert step.replayed == 1
    with pytest.raises(GraphConsumedError):
        loss.backward()


# ====================================================================== re-recording ====
@pytest.mark.parametrize("change", ["shape", "dtype", "untracked", "strategy"])
def test_a_changed_key_records_again_and_matches_eager(change):
    step = capture(mlp_loss_grads)
    x, w, b = _const(4, 5), _leaf(5, 3), _leaf(3, seed=1)
    step(x, w, b)
    if change == "shape":
        x = _const(6, 5)
    elif change == "dtype":
        w, b = _leaf(5, 3, dtype=torch.float64), _leaf(3, seed=1, dtype=torch.float64)
        x = Tensor.from_data(x.to_torch().double(), CPU)
    elif change == "untracked":
        b = Tensor.from_data(b.to_torch(), AD)
    elif change == "strategy":
        ck = CPU.autodiff().gradient_checkpointing()
        w, b = _leaf(5, 3, device=ck), _leaf(3, seed=1, device=ck)
    got = step(x, w, b)
    assert step.plans == 2 and step.replayed == 0
    want = mlp_loss_grads(x, w, b)
    assert all((g is None) == (e is None) for g, e in zip(got, want))
    assert _bits([g for g in got if g is not None], [e for e in want if e is not None])


def test_passing_one_tensor_twice_records_again():
    def fn(x, y, w):
        return [w.grad((x @ w + y @ w).sum().backward())]
    step = capture(fn)
    step(_const(2, 3), _const(2, 3, seed=1), _leaf(3, 4))
    x, w = _const(2, 3, seed=2), _leaf(3, 4, seed=2)
    got = step(x, x, w)
    assert step.plans == 2 and step.replayed == 0 and _bits(got, fn(x, x, w))


class _Holder:
    def __init__(self, w, x):
        self.w, self.x = w, x


class _Slotted:
    __slots__ = ("w", "x")

    def __init__(self, w, x):
        self.w, self.x = w, x


@dataclasses.dataclass
class _Pair:
    w: Tensor
    x: Tensor


@dataclasses.dataclass(frozen=True)
class _FrozenPair:
    w: Tensor
    x: Tensor


class _Named(NamedTuple):
    w: Tensor
    x: Tensor


@pytest.mark.parametrize("record", [_Holder, _Slotted, _Pair, _FrozenPair, _Named])
def test_a_record_argument_replays_bit_equal(record):
    """An object of a class written in Python (a batch) is walked by its attributes: its
    tensors are inputs, so a new object with new values replays (a frozen dataclass holding
    tensors included: it is no constant)."""
    fn = lambda h: [h.w.grad((h.x @ h.w).sum().backward())]  # noqa: E731
    _replays_bit_equal(fn, lambda seed: (record(_leaf(3, 4, seed=seed), _const(2, 3, seed=seed)),))


def test_a_record_with_other_attributes_records_again():
    step = capture(lambda h: [h.w.grad((h.x @ h.w).sum().backward())])
    step(_Holder(_leaf(3, 4), _const(2, 3)))
    other = _Holder(_leaf(3, 4, seed=1), _const(2, 3, seed=1))
    other.extra = 1
    step(other)
    assert step.plans == 2 and step.replayed == 0


@pytest.mark.parametrize("record", [_Holder, _Slotted, _Pair, _FrozenPair, _Named])
def test_a_record_result_is_a_new_record_of_the_replays_tensors(record):
    def fn(x, w):
        grads = (x @ w).sum().backward()
        return record(w.grad(grads), (x * 2.0).sum_dim(1))

    step = capture(fn)
    step(_const(2, 3), _leaf(3, 4))
    x, w = _const(2, 3, seed=1), _leaf(3, 4, seed=1)
    first, second = step(x, w), step(x, w)
    want = fn(x, w)
    assert step.eager_reason is None and step.replayed == 2, step.eager_reason
    assert type(first) is record and first is not second
    assert _bits([first.w, first.x], [want.w, want.x])


def test_arguments_a_plan_cannot_see_through_run_eagerly():
    """A C object (its state is not in attributes) and burn_torch's Gradients container
    (keyed by node ids) are not records: such a call runs eagerly."""
    fn = lambda x, h: [h.keywords["w"].grad((x @ h.keywords["w"]).sum().backward())]  # noqa: E731
    step = capture(fn)
    for seed in range(2):
        x, h = _const(2, 3, seed=seed), functools.partial(print, w=_leaf(3, 4, seed=seed))
        assert _bits(step(x, h), fn(x, h))
    assert step.plans == 0 and step.replayed == 0 and "partial" in step.eager_reason
    w = _leaf(3, 4)
    grads = (_const(2, 3) @ w).sum().backward()
    step = capture(lambda g, w: [w.grad(g)])
    step(grads, w)
    assert step.plans == 0 and "Gradients" in step.eager_reason


def test_a_leaf_not_passed_as_argument_makes_the_step_eager():
    hidden = _leaf(3, 4)
    step = capture(lambda x: (x @ hidden).sum().backward())
    step(_const(2, 3))
    assert "not an argument" in step.eager_reason
    step(_const(2, 3))
    assert step.replayed == 0


# =========================================================================== modules ====
class _Mlp(Module):
    def __init__(self, width: int, norm: bool = False) -> None:
        super().__init__()
        self.fc1 = nn.LinearConfig(5, width).init(AD)
        self.norm = nn.BatchNormConfig(width).init(AD) if norm else None
        self.fc2 = nn.LinearConfig(width, 3).init(AD)

    def forward(self, x: Tensor) -> Tensor:
        h = self.fc1.forward(x)
        if self.norm is not None:
            h = self.norm.forward(h.unsqueeze_dim(2)).squeeze_dim(2)
        return self.fc2.forward(relu(h))


def _loss_and_grads(model, x, y):
    loss = (model.forward(x) - y).square().mean()
    grads = loss.backward()
    return loss.detach(), grads


def _train(step, model, steps: int) -> list:
    """``steps`` SGD steps of ``step``; the losses, as floats."""
    optimizer = SgdConfig().init()
    losses = []
    for i in range(steps):
        x, y = _const(4, 5, seed=i), _const(4, 3, seed=i + 50)
        loss, grads = step(model, x, y)
        model = optimizer.step(0.1, model, GradientsParams.from_grads(grads, model))
        losses.append(loss.into_scalar())
    return losses, model


def test_a_training_loop_captured_over_its_module_trains_exactly_as_eager():
    """Each SGD step returns a new module (new weights, same structure): the captured step
    replays on it, and the losses and final weights are eager's, bit for bit."""
    model = _Mlp(8)
    twin = _Mlp(8).load_record(model.into_record())
    step = capture(_loss_and_grads)
    captured_losses, captured_model = _train(step, model, 4)
    assert step.eager_reason is None and step.plans == 1 and step.replayed == 3
    eager_losses, eager_model = _train(_loss_and_grads, twin, 4)
    assert captured_losses == eager_losses
    assert _bits([p.val() for p in captured_model.params()], [p.val() for p in eager_model.params()])


def _param_grads(model, x, y):
    """Burn's loop up to the optimizer: the gradients keyed by the model's ParamIds."""
    return GradientsParams.from_grads((model.forward(x) - y).square().mean().backward(), model)


def _same_param_grads(a: GradientsParams, b: GradientsParams, model) -> bool:
    ids = [p.id for p in model.params()]
    return (set(a._grads) == set(b._grads) == set(ids)
            and all(torch.equal(a._grads[i], b._grads[i]) for i in ids))


def test_a_step_returning_gradients_params_replays_them_bit_equal():
    step = capture(_param_grads)
    step(_Mlp(8), _const(4, 5), _const(4, 3))
    model = _Mlp(8)
    x, y = _const(4, 5, seed=1), _const(4, 3, seed=1)
    replayed = step(model, x, y)
    assert step.eager_reason is None and step.replayed == 1, step.eager_reason
    assert type(replayed) is GradientsParams
    assert _same_param_grads(replayed, _param_grads(model, x, y), model)


def test_replayed_gradients_params_are_keyed_by_the_new_models_param_ids():
    """The key does not hold ParamIds (a new model of the same structure replays): the replay
    reads the call's own ids, never the recorded model's."""
    first, second = _Mlp(8), _Mlp(8)
    step = capture(_param_grads)
    recorded = step(first, _const(4, 5), _const(4, 3))
    replayed = step(second, _const(4, 5), _const(4, 3))
    assert step.replayed == 1
    assert set(recorded._grads) == {p.id for p in first.params()}
    assert set(replayed._grads) == {p.id for p in second.params()}


def test_a_training_loop_capturing_its_gradients_params_trains_exactly_as_eager():
    model = _Mlp(8)
    twin = _Mlp(8).load_record(model.into_record())
    step = capture(_param_grads)
    optimizers = SgdConfig().init(), SgdConfig().init()
    for i in range(4):
        x, y = _const(4, 5, seed=i), _const(4, 3, seed=i + 50)
        model = optimizers[0].step(0.1, model, step(model, x, y))
        twin = optimizers[1].step(0.1, twin, _param_grads(twin, x, y))
    assert step.eager_reason is None and step.replayed == 3
    assert _bits([p.val() for p in model.params()], [p.val() for p in twin.params()])


def test_gradients_params_keyed_by_an_id_no_argument_holds_run_eagerly():
    pid = ParamId.new()

    def registered(x, w):
        out = GradientsParams()
        out.register(pid, w.grad((x @ w).sum().backward()))
        return out

    step = capture(registered)
    x, w = _const(2, 3), _leaf(3, 4)
    step(x, w)
    assert "not in the arguments" in step.eager_reason
    assert torch.equal(step(x, w).get(pid).to_torch(), registered(x, w).get(pid).to_torch())
    assert step.replayed == 0


def test_a_replay_on_a_model_with_a_param_id_twice_raises_eagers_tied_param_error():
    step = capture(_param_grads)
    step(_Mlp(8), _const(4, 5), _const(4, 3))
    tied = _Mlp(8)
    tied.fc2.bias = Param._make(tied.fc1.bias.id, tied.fc2.bias.val(), True)
    with pytest.raises(TiedParamError):
        step(tied, _const(4, 5), _const(4, 3))
    assert step.replayed == 0


def test_a_module_of_another_shape_records_again():
    step = capture(_loss_and_grads)
    step(_Mlp(8), _const(4, 5), _const(4, 3))
    model = _Mlp(6)
    x, y = _const(4, 5, seed=1), _const(4, 3, seed=1)
    _, grads = step(model, x, y)
    assert step.plans == 2 and step.replayed == 0
    _, want = _loss_and_grads(model, x, y)
    assert _bits([p.val().grad(grads) for p in model.params()],
                 [p.val().grad(want) for p in model.params()])


def test_a_forward_that_updates_its_modules_state_runs_eagerly_every_call():
    """BatchNorm in training replaces its running statistics on the module: replay could not,
    so the step is found out while recorded and every call updates them, as eager."""
    step = capture(_loss_and_grads)
    model, twin = _Mlp(4, norm=True), _Mlp(4, norm=True)
    twin = twin.load_record(model.into_record())
    for seed in range(3):
        x, y = _const(4, 5, seed=seed), _const(4, 3, seed=seed + 9)
        step(model, x, y)
        _loss_and_grads(twin, x, y)
    assert "changed its arguments" in step.eager_reason and step.replayed == 0
    assert _bits([model.norm.running_mean.val(), model.norm.running_var.val()],
                 [twin.norm.running_mean.val(), twin.norm.running_var.val()])


def test_a_function_that_fills_a_container_argument_runs_eagerly_every_call():
    def fn(x, w, log):
        grads = (x @ w).sum().backward()
        log.append(w.grad(grads))
        return grads
    step = capture(fn)
    log = []
    for seed in range(3):
        step(_const(2, 3, seed=seed), _leaf(3, 4, seed=seed), log)
    assert len(log) == 3 and step.replayed == 0 and "changed its arguments" in step.eager_reason


def _python_coin() -> bool:
    return random.random() < 0.5


def _numpy_coin() -> bool:
    return bool(np.random.rand() < 0.5)


@pytest.mark.parametrize("coin, generator", [(_python_coin, "Python's random module"),
                                             (_numpy_coin, "numpy's global generator")],
                         ids=["random", "numpy"])
def test_a_draw_from_a_host_generator_while_recorded_makes_every_call_run_eagerly(coin, generator):
    """A coin flipped on the host (teacher forcing) would be frozen into a plan: the recording
    sees the generator move, so each call takes its own branch, as eager."""
    def fn(x, w):
        scale = 2.0 if coin() else 3.0
        grads = (x @ w).mul_scalar(scale).sum().backward()
        return w.grad(grads)
    calls = [(_const(2, 3, seed=s), _leaf(3, 4, seed=s)) for s in range(12)]
    random.seed(5)
    np.random.seed(5)
    step = capture(fn)
    captured = [step(*args) for args in calls]
    random.seed(5)
    np.random.seed(5)
    assert _bits(captured, [fn(*args) for args in calls])
    assert step.replayed == 0 and generator in step.eager_reason


def test_a_module_that_contains_itself_runs_eagerly():
    model = _Mlp(4)
    model.me = model
    step = capture(_loss_and_grads)
    for _ in range(2):
        step(model, _const(4, 5), _const(4, 3))
    assert step.plans == 0 and step.replayed == 0


def test_a_module_holding_an_arbitrary_object_runs_eagerly():
    model = _Mlp(4)
    model.note = object()
    step = capture(_loss_and_grads)
    for _ in range(2):
        step(model, _const(4, 5), _const(4, 3))
    assert step.plans == 0 and step.replayed == 0


# ============================================================================ guards ====
def test_a_host_read_value_guards_the_replay():
    def fn(x, w):
        scale = 2.0 if float(x.to_torch().sum()) > 0 else -1.0
        return [w.grad((x @ w * scale).sum().backward())]
    step = capture(fn)
    pos = Tensor.from_data(torch.ones(2, 3), CPU)
    step(pos, _leaf(3, 4))
    neg = Tensor.from_data(-torch.ones(2, 3), CPU)
    w = _leaf(3, 4, seed=2)
    got = step(neg, w)                       # the guard sees another value: eager
    assert step.replayed == 0 and _bits(got, fn(neg, w))


def test_a_replay_that_diverges_after_a_random_draw_draws_as_eager_does():
    """The replay draws dropout's mask, then its guard sees another value and fn runs eagerly:
    the generator is put back first, so the eager run draws the mask eager draws, and the
    draws after the call are eager's."""
    from burn_torch.device import generator
    drop = nn.DropoutConfig(0.5).init()

    def fn(x, w):
        h = drop.forward(x @ w)
        if h.sum().into_scalar() > 1e9:       # a host read: replay re-reads it (a guard)
            raise AssertionError("unreachable")
        return [w.grad(h.square().sum().backward())]

    step = capture(fn)
    CPU.seed(0)
    step(_const(2, 3), _leaf(3, 4))
    x, w = _const(2, 3, seed=1), _leaf(3, 4, seed=1)
    CPU.seed(1)
    got = step(x, w)                          # the guard sees another sum: eager
    got_next = Tensor.random([8], "default", CPU).to_torch()
    CPU.seed(1)
    want = fn(x, w)
    want_next = Tensor.random([8], "default", CPU).to_torch()
    assert step.replayed == 0 and _bits(got, want) and torch.equal(got_next, want_next)
    assert generator(torch.device("cpu")) in step._plans[next(iter(step._plans))].generators


def test_out_of_range_indices_raise_eagers_index_error_on_replay():
    def fn(w, idx):
        return [w.grad(w.select(0, idx).sum().backward())]
    step = capture(fn)
    step(_leaf(5, 2), Tensor.from_data(torch.tensor([0, 4]), CPU))
    assert step.eager_reason is None
    with pytest.raises(IndexError, match="out of range"):
        step(_leaf(5, 2), Tensor.from_data(torch.tensor([0, 5]), CPU))


def test_a_value_shaped_result_makes_the_step_eager():
    def fn(x, mask):
        return x.mask_select(mask).sum().backward()
    step = capture(fn)
    step(_leaf(4), Tensor.from_data(torch.tensor([True, False, True, True]), CPU))
    assert "shape depends" in step.eager_reason


# ============================================================================ errors ====
def test_an_error_while_recording_is_eagers_error_and_records_nothing():
    step = capture(mlp_loss_grads)
    with pytest.raises(ValueError) as got:
        step(_const(4, 6), _leaf(5, 3), _leaf(3))
    with pytest.raises(ValueError) as want:
        mlp_loss_grads(_const(4, 6), _leaf(5, 3), _leaf(3))
    assert str(got.value) == str(want.value) and step.plans == 0


def test_capture_rejects_bad_options():
    with pytest.raises(TypeError):
        capture(3)
    with pytest.raises(ValueError):
        capture(mlp_loss_grads, check_every=0)
    with pytest.raises(ValueError):
        capture(mlp_loss_grads, on_divergence="ignore")


# ======================================================================== check_every ====
def _flagged_step():
    flag = {"relu": True}

    def fn(x, w):
        h = x @ w
        h = relu(h) if flag["relu"] else h
        return [w.grad(h.sum().backward())]
    return fn, flag


def test_check_every_raises_when_hidden_control_flow_diverges():
    fn, flag = _flagged_step()
    step = capture(fn, check_every=2)
    step(_const(2, 3), _leaf(3, 4))
    flag["relu"] = False
    step(_const(2, 3), _leaf(3, 4))          # replay 1: stale, unseen (the documented limit)
    with pytest.raises(CaptureDivergenceError):
        step(_const(2, 3), _leaf(3, 4))      # replay 2 is checked


def test_check_every_recaptures_on_divergence_when_asked():
    fn, flag = _flagged_step()
    step = capture(fn, check_every=1, on_divergence="recapture")
    step(_const(2, 3), _leaf(3, 4))
    flag["relu"] = False
    step(_const(2, 3), _leaf(3, 4))          # checked: recorded again
    x, w = _const(2, 3, seed=3), _leaf(3, 4, seed=3)
    assert _bits(step(x, w), fn(x, w))


# ============================================================================== CUDA ====
@pytest.mark.cuda
@pytest.mark.skipif(not torch.cuda.is_available(), reason="needs a CUDA device")
def test_cuda_graph_replay_is_bit_equal_to_eager():
    gpu = Device.cuda(0)
    dev = gpu.autodiff()

    def args(seed):
        gen = torch.Generator().manual_seed(seed)
        return (Tensor.from_data(torch.randn(4, 5, generator=gen), gpu),
                Tensor.from_data(torch.randn(5, 3, generator=gen), dev).require_grad(),
                Tensor.from_data(torch.randn(3, generator=gen), dev).require_grad())
    step = capture(mlp_loss_grads)
    step(*args(0))
    plan = next(iter(step._plans.values()))
    assert plan.cuda_graph is not None
    second = args(1)
    assert _bits(step(*second), mlp_loss_grads(*second)) and step.replayed == 1


def test_the_readme_examples_replay_bit_equal_to_eager():
    """Both examples of the README's section, in one namespace (the second continues the
    first); their asserts are the checks."""
    readme = (pathlib.Path(__file__).resolve().parents[1] / "README.md").read_text(encoding="utf-8")
    section = readme.split("## Captured steps", 1)[1].split("\n## ", 1)[0]
    blocks = [b.split("```", 1)[0] for b in section.split("```python\n")[1:]]
    assert len(blocks) == 2
    scope: dict = {}
    for code in blocks:
        exec(compile(code, "README.md (Captured steps)", "exec"), scope)
