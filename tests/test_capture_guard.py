"""``burn_torch.capture`` fast guard: a replay is chosen by generated code that compares a call
with the plan used last, field by field, instead of building the call's key. These tests make
the plan used last the one the changed call would wrongly replay, so each fails if the fast
guard accepted the change (stride, dtype, device, strategy, leaf role, aliasing, a plain value,
the argument structure, a module's fields, hooks) instead of recording again, as the general
key does."""
import pytest
import torch

from burn_torch import Device, Tensor, nn
from burn_torch.activation import relu
from burn_torch.autodiff import hooks
from burn_torch.capture import capture
from burn_torch.capture._guard import compile_guard, environment
from burn_torch.module import Module, Param

CPU = Device.cpu()
AD = CPU.autodiff()


def _t(data, device=CPU, leaf=False):
    t = Tensor.from_data(data, device)
    return t.require_grad() if leaf else t


def _randn(*shape, seed=0, dtype=torch.float32):
    return torch.randn(*shape, generator=torch.Generator().manual_seed(seed), dtype=dtype)


def _grads(x, w, b):
    grads = relu(x @ w + b).square().mean().backward()
    return [w.grad(grads), b.grad(grads)]


def _bits(got, want) -> bool:
    return len(got) == len(want) and all(
        (g is None and e is None) or torch.equal(g.to_torch(), e.to_torch()) for g, e in zip(got, want))


def _records_again(fn, first: tuple, changed: tuple) -> None:
    """Replays ``first`` once (so its plan is the one the fast guard tries), then calls
    ``changed``: it must record a second plan, replay nothing and equal eager."""
    step = capture(fn)
    step(*first)
    step(*first)
    assert step.replayed == 1 and step.plans == 1
    got = step(*changed)
    assert step.plans == 2 and step.replayed == 1, "the fast guard replayed a stale plan"
    assert _bits(got, fn(*changed))


def _mlp_args(dtype=torch.float32, device=AD):
    return (_t(_randn(4, 5, dtype=dtype)), _t(_randn(5, 3, seed=1, dtype=dtype), device, leaf=True),
            _t(_randn(3, seed=2, dtype=dtype), device, leaf=True))


def test_a_changed_stride_misses_the_fast_guard():
    x, w, b = _mlp_args()
    strided = _t(_randn(5, 4).t())                      # same shape and values kind, other strides
    assert strided.to_torch().stride() != x.to_torch().stride()
    _records_again(_grads, (x, w, b), (strided, w, b))


def test_a_changed_dtype_misses_the_fast_guard():
    _records_again(_grads, _mlp_args(), _mlp_args(dtype=torch.float64))


def test_a_changed_strategy_misses_the_fast_guard():
    _records_again(_grads, _mlp_args(), _mlp_args(device=CPU.autodiff().gradient_checkpointing()))


def test_a_changed_leaf_role_misses_the_fast_guard():
    x, w, b = _mlp_args()
    untracked_b = _t(b.to_torch(), AD)                  # autodiff, but not a gradient leaf
    _records_again(_grads, (x, w, b), (x, w, untracked_b))


def test_a_tensor_passed_twice_misses_the_fast_guard():
    def fn(x, y, w):
        return [w.grad((x @ w + y @ w).sum().backward())]
    x, y, w = _t(_randn(2, 3)), _t(_randn(2, 3, seed=1)), _t(_randn(3, 4, seed=2), AD, leaf=True)
    _records_again(fn, (x, y, w), (x, x, w))


def test_two_tensors_where_one_was_passed_twice_miss_the_fast_guard():
    def fn(x, y, w):
        return [w.grad((x @ w + y @ w).sum().backward())]
    x, y, w = _t(_randn(2, 3)), _t(_randn(2, 3, seed=1)), _t(_randn(3, 4, seed=2), AD, leaf=True)
    _records_again(fn, (x, x, w), (x, y, w))


def test_a_changed_plain_value_misses_the_fast_guard():
    def fn(x, w, scale):
        return [w.grad(((x @ w) * scale).sum().backward())]
    x, w = _t(_randn(2, 3)), _t(_randn(3, 4, seed=1), AD, leaf=True)
    _records_again(fn, (x, w, 2.0), (x, w, 3.0))
    _records_again(fn, (x, w, 2), (x, w, 2.0))          # equal value, other type


def test_a_longer_parameter_list_misses_the_fast_guard():
    def fn(x, ws):
        h = x
        for w in ws:
            h = h @ w
        grads = h.sum().backward()
        return [w.grad(grads) for w in ws]
    x = _t(_randn(2, 3))
    ws = [_t(_randn(3, 3, seed=i), AD, leaf=True) for i in range(3)]
    _records_again(fn, (x, ws[:2]), (x, ws))


def test_a_changed_keyword_argument_misses_the_fast_guard():
    def fn(x, w, scale=1.0):
        return [w.grad(((x @ w) * scale).sum().backward())]
    x, w = _t(_randn(2, 3)), _t(_randn(3, 4, seed=1), AD, leaf=True)
    step = capture(fn)
    step(x, w, scale=2.0)
    step(x, w, scale=2.0)
    got = step(x, w, scale=3.0)
    assert step.plans == 2 and step.replayed == 1 and _bits(got, fn(x, w, scale=3.0))


def test_a_registered_backward_hook_misses_the_fast_guard():
    args = _mlp_args()
    step = capture(_grads)
    step(*args)
    step(*args)
    unregister = hooks.register(lambda root, seed: None)
    try:
        step(*args)
        assert step.plans == 2 and step.replayed == 1
    finally:
        unregister()


def test_a_list_the_step_mutates_is_never_replayed():
    """The list grows while recorded: no plan is kept (a replay would not append), and each
    call appends, whatever the list's length."""
    def fn(x, ws):
        grads = (x @ ws[0]).sum().backward()
        out = [ws[0].grad(grads)]
        ws.append(ws[0])
        return out
    x, w = _t(_randn(2, 3)), _t(_randn(3, 4, seed=1), AD, leaf=True)
    step = capture(fn)
    ws, again = [w], [w]
    step(x, ws)
    step(x, again)
    step(x, again)
    assert len(ws) == 2 and len(again) == 3
    assert step.replayed == 0 and step.plans == 0


@pytest.mark.parametrize("change", ["stride", "dtype", "role", "alias", "value", "length"])
def test_the_guard_answers_none_for_each_changed_field(change):
    x, w, b = _mlp_args()
    guard = compile_guard((x, [w, b], 1), {}, environment())
    tensors, nodes = guard((x, [w, b], 1), {})
    assert [id(t) for t in tensors] == [id(x.to_torch()), id(w.to_torch()), id(b.to_torch())]
    assert nodes[0] is None and nodes[1] is w._node and nodes[2] is b._node
    changed = {
        "stride": lambda: (_t(_randn(5, 4).t()), [w, b], 1),
        "dtype": lambda: (_t(_randn(4, 5, dtype=torch.float64)), [w, b], 1),
        "role": lambda: (x, [w, _t(b.to_torch(), AD)], 1),
        "alias": lambda: (x, [w, w], 1),
        "value": lambda: (x, [w, b], True),
        "length": lambda: (x, [w, b, b], 1),
    }[change]()
    assert guard(changed, {}) is None


def test_swapped_leaf_roles_miss_the_fast_guard():
    def fn(x, w):
        grads = (x @ w).sum().backward()
        return [x.grad(grads), w.grad(grads)]
    x, w = _randn(3, 3), _randn(3, 3, seed=1)
    _records_again(fn, (_t(x, AD), _t(w, AD, leaf=True)), (_t(x, AD, leaf=True), _t(w, AD)))


def test_an_input_carrying_a_graph_misses_the_fast_guard_and_runs_eagerly():
    x, w, b = _mlp_args()
    step = capture(_grads)
    step(x, w, b)
    step(x, w, b)
    tracked = w * 1.0                                   # not a leaf: it carries a recorded graph
    got = step(x, tracked, b)
    assert step.replayed == 1 and step.plans == 1
    assert _bits(got[1:], _grads(x, w * 1.0, b)[1:]) and got[0] is None


def test_a_tensor_moved_between_two_lists_misses_the_fast_guard():
    def fn(xs, ys):
        grads = sum((x * (i + 1) for i, x in enumerate(xs)), ys[0] * 0.5).sum().backward()
        return [t.grad(grads) for t in xs + ys]
    ts = [_t(_randn(2, 2, seed=i), AD, leaf=True) for i in range(4)]
    _records_again(fn, (ts[:2], ts[2:]), (ts[:3], ts[3:]))


def test_a_torch_tensor_argument_with_other_strides_misses_the_fast_guard():
    def fn(x, w):
        grads = (Tensor.from_data(x, CPU) @ w).sum().backward()
        return [w.grad(grads)]
    w = _t(_randn(4, 3, seed=1), AD, leaf=True)
    _records_again(fn, (_randn(5, 4), w), (_randn(4, 5).t(), w))


def _torch_autograd_records() -> bool:
    x = torch.ones(2, requires_grad=True)
    return (x * 2).grad_fn is not None


def test_a_replay_leaves_torch_dispatch_and_grad_mode_as_it_found_them():
    def fn(w, idx):
        return [w.grad(w.select(0, idx).sum().backward())]
    w = _t(_randn(5, 2), AD, leaf=True)
    step = capture(fn)
    step(w, _t(torch.tensor([0, 4])))
    step(w, _t(torch.tensor([1, 3])))                   # a replay
    assert step.replayed == 1
    assert torch.is_grad_enabled() and _torch_autograd_records()
    with pytest.raises(IndexError):                     # a replay that fails its range guard
        step(w, _t(torch.tensor([0, 5])))
    assert torch.is_grad_enabled() and _torch_autograd_records()


def _variants() -> list:
    """Calls ``(args, kwargs)`` that differ from each other in one key field or another."""
    x, w, b = _mlp_args()
    x64 = _t(_randn(4, 5, dtype=torch.float64))
    xs = _t(_randn(5, 4).t())
    raw, raw_t = _randn(4, 5), _randn(5, 4).t()
    untracked = _t(b.to_torch(), AD)
    ck = _t(_randn(3, seed=2), CPU.autodiff().gradient_checkpointing(), leaf=True)
    return [((x, [w, b], 1), {}), ((x, [w, b], 2), {}), ((x, [w, b], True), {}),
            ((xs, [w, b], 1), {}), ((x64, [w, b], 1), {}), ((x, [w, untracked], 1), {}),
            ((x, [w, ck], 1), {}), ((x, [w, w], 1), {}), ((x, [w, b, b], 1), {}),
            ((x, [w], 1), {}), ((x, (w, b), 1), {}), ((x, [w, b]), {"scale": 1}),
            ((x, [w, b]), {"scale": 2}), ((x, [w, b]), {"other": 1}), ((raw, [w, b], 1), {}),
            ((raw_t, [w, b], 1), {}), ((raw, [w, b], raw), {}), ((raw, [w, b], raw_t), {}),
            ((x, [w, b], [x, 1]), {}), ((x, [w, b], [x, 2]), {}), ((x, [w, b], [b, 1]), {})]


def test_the_guard_accepts_exactly_the_calls_whose_general_key_is_the_recorded_one():
    from burn_torch.capture._inputs import flatten
    calls = _variants()
    for rec_args, rec_kwargs in calls:
        guard = compile_guard(rec_args, rec_kwargs, environment())
        recorded = flatten((rec_args, rec_kwargs), [], [], {})
        for args, kwargs in calls:
            tensors, nodes = [], []
            same = flatten((args, kwargs), tensors, nodes, {}) == recorded
            hit = guard(args, kwargs)
            assert (hit is not None) == same, (rec_args, rec_kwargs, args, kwargs)
            if hit is not None:
                assert [id(t) for t in hit[0]] == [id(t) for t in tensors]
                assert [id(n) for n in hit[1]] == [id(n) for n in nodes]


class _Scaled(Module):
    """``dropout(x @ w) * scale``: a parameter, a plain field and a training flag."""

    def __init__(self, scale: float = 2.0, training: bool = True, width: int = 4) -> None:
        super().__init__()
        self.w = Param(_t(_randn(3, width, seed=1), AD))
        self.scale = scale
        self.dropout = nn.DropoutConfig(0.0).init()
        if not training:
            self.dropout.training = self.dropout.training.valid()

    def forward(self, x: Tensor) -> Tensor:
        return self.dropout.forward(x @ self.w.val()) * self.scale


def _module_grads(model, x):
    return [model.w.val().grad(model.forward(x).sum().backward())]


def test_a_changed_module_field_misses_the_fast_guard():
    x = _t(_randn(2, 3))
    _records_again(_module_grads, (_Scaled(2.0), x), (_Scaled(3.0), x))


def test_a_changed_training_flag_misses_the_fast_guard():
    x = _t(_randn(2, 3))
    _records_again(_module_grads, (_Scaled(training=True), x), (_Scaled(training=False), x))


def test_a_module_of_another_class_misses_the_fast_guard():
    class Other(_Scaled):
        pass
    x = _t(_randn(2, 3))
    _records_again(_module_grads, (_Scaled(), x), (Other(), x))


def test_a_new_module_of_the_same_structure_passes_the_fast_guard():
    step = capture(_module_grads)
    x = _t(_randn(2, 3))
    step(_Scaled(), x)
    model = _Scaled()
    assert _bits(step(model, x), _module_grads(model, x)) and step.replayed == 1
