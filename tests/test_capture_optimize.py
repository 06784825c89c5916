"""The plan optimizer (``capture._optimize``): a replay leaves out what its result does not need
(a loss computed only to seed backward) and keeps everything else: in-place kernels, random
draws, guards; what it returns stays bit-equal to eager."""
import torch

from burn_torch import Device, Distribution, Tensor
from burn_torch.capture import capture
from burn_torch.capture._optimize import optimize, pure
from burn_torch.capture._record import Const, Slot

CPU = Device.cpu()
AD = CPU.autodiff()


def _inputs():
    gen = torch.Generator().manual_seed(0)
    x = Tensor.from_data(torch.randn(4, 3, generator=gen), CPU)
    w = Tensor.from_data(torch.randn(3, 2, generator=gen), AD).require_grad()
    return x, w


def _loss(x, w):
    return x.matmul(w).square().mean()


def _grads_only(x, w):
    return [w.grad(_loss(x, w).backward())]


def _loss_and_grads(x, w):
    loss = _loss(x, w)
    return loss, [w.grad(loss.backward())]


def _replayed(fn, *args):
    step = capture(fn)
    step(*args)
    result = step(*args)
    assert step.replayed == 1
    return result, next(iter(step._plans.values()))


def test_a_step_returning_only_gradients_replays_without_its_loss_kernels():
    x, w = _inputs()
    grads, plan = _replayed(_grads_only, x, w)
    (loss, grads_with_loss), plan_with_loss = _replayed(_loss_and_grads, x, w)
    assert len(plan.entries) < len(plan_with_loss.entries)
    eager = _grads_only(x, w)[0].to_torch()
    assert torch.equal(grads[0].to_torch(), eager)
    assert torch.equal(grads_with_loss[0].to_torch(), eager)
    assert torch.equal(loss.to_torch(), _loss(x, w).to_torch())


def test_a_random_draw_nobody_reads_still_advances_the_generator_as_eager():
    def step(x, w):
        Tensor.random([16], Distribution.default(), CPU)  # drawn, never read
        return _grads_only(x, w)

    x, w = _inputs()
    captured = capture(step)
    captured(x, w)
    CPU.seed(7)
    captured(x, w)
    assert captured.replayed == 1
    after_replay = Tensor.random([4], Distribution.default(), CPU).to_torch()
    CPU.seed(7)
    step(x, w)
    after_eager = Tensor.random([4], Distribution.default(), CPU).to_torch()
    assert torch.equal(after_replay, after_eager)


def test_only_kernels_that_compute_new_tensors_from_their_arguments_are_pure():
    one_out = (5,)
    assert pure((torch.Tensor.sum, (Slot(0),), {}, one_out, "single"))
    assert not pure((torch.Tensor.add_, (Slot(0), Slot(1)), {}, (-1,), "single"))   # in place
    assert not pure((torch.mul, (Slot(0), Slot(1)), {"out": Slot(2)}, one_out, "single"))
    assert not pure((torch.Tensor.__setitem__, (Slot(0), Const(0), Slot(1)), {}, (), "single"))
    assert not pure((torch.bernoulli, (Slot(0),), {}, one_out, "single"))           # random
    assert not pure((torch.randn_like, (Slot(0),), {}, one_out, "single"))
    assert not pure((torch._foreach_mul_, ([Slot(0)], Const(2.0)), {}, (None,), "seq"))


def _constant_kernels(plan) -> list:
    """The pure kernels of a plan that read no slot (what folding leaves none of)."""
    def reads_slot(t):
        return t.__class__ is Slot or (t.__class__ in (tuple, list) and any(map(reads_slot, t)))
    return [e for e in plan.entries if e[0] not in ("range", "equal") and pure(e)
            and not reads_slot((e[1], tuple(e[2].values())))]


def test_backwards_seed_and_what_the_loss_makes_of_it_are_computed_once_per_plan():
    x, w = _inputs()
    grads, plan = _replayed(_grads_only, x, w)
    assert _constant_kernels(plan) == []
    assert torch.equal(grads[0].to_torch(), _grads_only(x, w)[0].to_torch())


def _ones_then(*later):
    """Entries: slot 1 = ones(2) (a kernel of constants), then ``later``; values as recorded."""
    ones = torch.ones(2)
    entries = [(torch.ones, (Const((2,)),), {}, (1,), "single"), *later]
    values = {0: torch.zeros(2), 1: ones, 2: ones.view(2), 3: torch.zeros(2)}
    return entries, [False] * len(entries), values


def test_a_kernel_of_constants_is_folded_and_its_readers_read_the_constant():
    entries, modes, values = _ones_then((torch.add, (Slot(0), Slot(1)), {}, (3,), "single"))
    kept, _ = optimize(entries, modes, values, 1, [3])
    assert len(kept) == 1 and kept[0][1][1].__class__ is Const
    assert kept[0][1][1].value is values[1]


def test_a_constant_written_in_place_later_is_not_folded():
    entries, modes, values = _ones_then(
        (torch.Tensor.mul_, (Slot(1), Slot(0)), {}, (-2,), "single"),
        (torch.add, (Slot(0), Slot(1)), {}, (3,), "single"))
    kept, _ = optimize(entries, modes, values, 1, [3])
    assert kept[0] == entries[0]


def test_a_constant_whose_view_is_written_in_place_is_not_folded():
    entries, modes, values = _ones_then(
        (torch.Tensor.view, (Slot(1), Const(2)), {}, (2,), "single"),
        (torch.Tensor.mul_, (Slot(2), Slot(0)), {}, (-3,), "single"),
        (torch.add, (Slot(0), Slot(1)), {}, (3,), "single"))
    kept, _ = optimize(entries, modes, values, 1, [3])
    assert kept[0] == entries[0]


def test_a_constant_the_result_views_is_not_folded():
    entries, modes, values = _ones_then(
        (torch.Tensor.view, (Slot(1), Const(2)), {}, (2,), "single"))
    kept, _ = optimize(entries, modes, values, 1, [2])
    assert kept == entries  # the caller's result must not share storage with a plan constant
