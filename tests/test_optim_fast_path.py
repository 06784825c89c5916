"""The training step's fast paths give the results of the per-parameter reference.

Optimizers update all parameters of one device and dtype together with torch's multi-tensor
(``torch._foreach_*``) kernels running the very operations of each rule's per-tensor ``step``;
on CPU the results are bit-identical. Module traversals skip work that cannot change the
result (path hooks nobody overrides, the generic copy protocol for plain module classes) and
cache nothing, so reassigned attributes and mutated containers are always seen.
"""
from __future__ import annotations

import pytest
import torch

from burn_torch import Device, Tensor, nn
from burn_torch.module import Module, ModuleMapper, ModuleVisitor, Param
from burn_torch.optim import (AdaGradConfig, AdamConfig, AdamWConfig, GradientClippingConfig,
                              GradientsParams, MomentumConfig, RmsPropConfig, SgdConfig,
                              WeightDecayConfig)
from burn_torch.optim.adam import Adam
from burn_torch.optim import flat
from burn_torch.optim.base import ModuleOptimizer, SimpleOptimizer

CPU = Device.cpu()
AD = CPU.autodiff()
SHAPES = [(6, 5), (5,), (3, 2, 4), (), (257,)]

CONFIGS = {
    "sgd": SgdConfig(),
    "sgd_momentum": SgdConfig().with_momentum(MomentumConfig()),
    "sgd_nesterov_weight_decay": SgdConfig().with_momentum(MomentumConfig(0.8, 0.0, True))
                                            .with_weight_decay(WeightDecayConfig(0.05)),
    "adam": AdamConfig(),
    "adam_weight_decay": AdamConfig().with_weight_decay(WeightDecayConfig(0.01)),
    "adam_amsgrad": AdamConfig().with_amsgrad(True),
    "adamw": AdamWConfig(),
    "adamw_no_decay": AdamWConfig().with_weight_decay(0.0),
    "adamw_cautious": AdamWConfig().with_cautious_weight_decay(True).with_weight_decay(0.1),
    "rmsprop": RmsPropConfig(),
    "rmsprop_no_momentum": RmsPropConfig().with_momentum(0.0),
    "rmsprop_centered_weight_decay": RmsPropConfig().with_centered(True)
                                                   .with_weight_decay(WeightDecayConfig(0.05)),
    "adagrad": AdaGradConfig(),
    "adagrad_lr_decay_weight_decay": AdaGradConfig().with_lr_decay(0.5)
                                                    .with_weight_decay(WeightDecayConfig(0.05)),
}


def assert_states_equal(a: dict, b: dict) -> None:
    assert a.keys() == b.keys()
    for key in a:
        if isinstance(a[key], torch.Tensor):
            assert torch.equal(a[key], b[key]), key
        else:
            assert a[key] == b[key], key


# -------------------------------------------------------------- multi-tensor rules ----
@pytest.mark.parametrize("dtype", [torch.float32, torch.float64], ids=["f32", "f64"])
@pytest.mark.parametrize("case", list(CONFIGS))
def test_step_many_is_bit_identical_to_per_tensor_steps(case, dtype):
    """Six steps; two parameters start late, so steps mix first and later steps and the
    parameters' step counts differ."""
    rule = CONFIGS[case].build()
    g = torch.Generator().manual_seed(0)
    start = [torch.randn(s, generator=g, dtype=dtype) for s in SHAPES]
    fast, ref = list(start), list(start)
    fast_states, ref_states = [None] * len(SHAPES), [None] * len(SHAPES)
    for step in range(6):
        grads = [torch.randn(s, generator=g, dtype=dtype) for s in SHAPES]
        active = [0, 2, 4] if step == 0 else range(len(SHAPES))
        new, states = rule.step_many(0.01, [fast[i] for i in active], [grads[i] for i in active],
                                     [fast_states[i] for i in active])
        for i, p, s in zip(active, new, states):
            fast[i], fast_states[i] = p, s
            ref[i], ref_states[i] = rule.step(0.01, ref[i], grads[i], ref_states[i])
            assert torch.equal(fast[i], ref[i]), (step, i)
            assert_states_equal(fast_states[i], ref_states[i])


def test_later_adam_steps_run_on_the_multi_tensor_path():
    calls = []

    class CountingAdam(Adam):
        def step(self, lr, param, grad, state):
            calls.append(state is None)
            return super().step(lr, param, grad, state)

    model = Mlp(AD)
    opt = ModuleOptimizer(CountingAdam(0.9, 0.999, 1e-5, False, 0.0))
    for _ in range(3):
        model = opt.step(0.01, model, grads_of(model))
    assert calls == [True] * 4  # one first step per parameter, nothing afterwards


def test_a_rule_with_only_a_per_tensor_step_still_works():
    class HalfStep(SimpleOptimizer):
        def step(self, lr, param, grad, state):
            return param - 0.5 * lr * grad, {"steps": (state or {"steps": 0})["steps"] + 1}

    model = Mlp(AD)
    grads = grads_of(model)
    expected = model.fc1.weight.val().to_torch() - 0.05 * grads._grads[model.fc1.weight.id]
    opt = ModuleOptimizer(HalfStep())
    updated = opt.step(0.1, model, grads)
    assert torch.equal(updated.fc1.weight.val().to_torch(), expected)
    assert opt.to_record()[model.fc1.weight.id] == {"steps": 1}


# ------------------------------------------------------------------------ clipping ----
@pytest.mark.parametrize("dtype", [torch.float32, torch.float64, torch.bfloat16],
                         ids=["f32", "f64", "bf16"])
@pytest.mark.parametrize("clipping", [GradientClippingConfig.value(0.5), GradientClippingConfig.norm(1.0),
                                      GradientClippingConfig.norm(1e9)], ids=str)
def test_clip_many_is_bit_identical_to_clipping_each_gradient(clipping, dtype):
    g = torch.Generator().manual_seed(1)
    grads = [3 * torch.randn(s, generator=g).to(dtype) for s in SHAPES] + [torch.zeros(4, dtype=dtype)]
    clip = clipping.init()
    for many, one in zip(clip.clip_many(grads), grads, strict=True):
        assert torch.equal(many, clip.clip(one))


# --------------------------------------------------------------- module optimizer ----
class Mlp(Module):
    """4 -> 8 -> 3; with ``second_dtype`` the second layer holds parameters of that dtype."""

    def __init__(self, device: Device, second_dtype: torch.dtype | None = None) -> None:
        super().__init__()
        self.fc1 = nn.LinearConfig(4, 8).init(device)
        self.fc2 = nn.LinearConfig(8, 3).init(device)
        if second_dtype is not None:
            g = torch.Generator().manual_seed(2)
            self.fc2 = nn.Linear(
                Param(Tensor.from_data(torch.randn(8, 3, generator=g, dtype=second_dtype), device)),
                Param(Tensor.from_data(torch.randn(3, generator=g, dtype=second_dtype), device)))

    def forward(self, x: Tensor) -> Tensor:
        h = nn.relu(self.fc1.forward(x))
        return self.fc2.forward(h.cast(self.fc2.weight.val().dtype()))


def grads_of(model: Mlp) -> GradientsParams:
    x = Tensor.from_data(torch.linspace(-1, 1, 12).reshape(3, 4), AD)
    loss = model.forward(x).square().sum()
    return GradientsParams.from_grads(loss.backward(), model)


class PerTensor(SimpleOptimizer):
    """The reference: a rule's per-tensor ``step`` only (the base class's ``step_many``)."""

    def __init__(self, rule: SimpleOptimizer) -> None:
        self.rule = rule

    def step(self, lr, param, grad, state):
        return self.rule.step(lr, param, grad, state)


@pytest.mark.parametrize("case", ["adam", "sgd_momentum", "rmsprop_centered_weight_decay"])
def test_module_step_with_mixed_dtypes_and_clipping_matches_the_per_tensor_reference(case):
    clipping = GradientClippingConfig.norm(0.5).init()
    fast = ModuleOptimizer(CONFIGS[case].build(), clipping)
    ref = ModuleOptimizer(PerTensor(CONFIGS[case].build()), clipping)
    a = b = Mlp(AD, torch.float64)
    assert {p.val().to_torch().dtype for p in a.params()} == {torch.float32, torch.float64}
    for _ in range(4):
        a = fast.step(0.05, a, grads_of(a))
        b = ref.step(0.05, b, grads_of(b))
    for pa, pb in zip(a.params(), b.params(), strict=True):
        assert pa.id == pb.id
        assert pa.val().to_torch().dtype == pb.val().to_torch().dtype
        assert torch.equal(pa.val().to_torch(), pb.val().to_torch())


class Smalls(Module):
    """``FLAT_MIN_COUNT + 2`` small parameters (a flat batch) and one too large for one."""

    def __init__(self) -> None:
        super().__init__()
        g = torch.Generator().manual_seed(3)
        self.small = [Param(Tensor.from_data(torch.randn(3, i + 1, generator=g), AD))
                      for i in range(flat.FLAT_MIN_COUNT + 2)]
        self.large = Param(Tensor.from_data(torch.randn(flat.FLAT_MAX_NUMEL + 1, generator=g), AD))


def smalls_grads(model: Smalls, step: int, skip: int | None = None) -> GradientsParams:
    """A gradient for every parameter but ``model.small[skip]``, its values set by ``step``."""
    g = torch.Generator().manual_seed(100 + step)
    grads = GradientsParams()
    for i, p in enumerate(model.params()):
        if i != skip:
            grads.register(p.id, Tensor.from_data(torch.randn(p.val().dims(), generator=g), CPU))
    return grads


@pytest.mark.parametrize("case", list(CONFIGS))
def test_small_parameters_stepped_as_a_flat_batch_match_the_per_tensor_reference(case):
    """Six steps; one small parameter has no gradient in the fourth, so its state is taken out
    of the flat batch and its step count falls behind the others' (a batch of its own)."""
    fast = ModuleOptimizer(CONFIGS[case].build())
    ref = ModuleOptimizer(PerTensor(CONFIGS[case].build()))
    a = b = Smalls()
    for step in range(6):
        skip = 2 if step == 3 else None
        a = fast.step(0.05, a, smalls_grads(a, step, skip))
        b = ref.step(0.05, b, smalls_grads(b, step, skip))
        for pa, pb in zip(a.params(), b.params(), strict=True):
            assert torch.equal(pa.val().to_torch(), pb.val().to_torch()), (step, pa.id)
        fast_record, ref_record = fast.to_record(), ref.to_record()
        assert set(fast_record) == set(ref_record)
        for pid in ref_record:
            assert_states_equal(fast_record[pid], ref_record[pid])


def test_small_parameters_reach_the_rule_as_one_flat_tensor():
    sizes = []

    class Recording(Adam):
        def step_fused(self, lr, params, grads, states):
            sizes.append([p.numel() for p in params])
            return super().step_fused(lr, params, grads, states)

    model = Smalls()
    optimizer = ModuleOptimizer(Recording(0.9, 0.999, 1e-5, False, 0.0))
    for step in range(3):  # the first step has no state: per tensor
        model = optimizer.step(0.01, model, smalls_grads(model, step))
    small = sum(p.val().to_torch().numel() for p in model.small)
    assert sizes == [[model.large.val().to_torch().numel(), small]] * 2
    for p in model.small:  # each new parameter owns its storage: no part of the flat one
        data = p.val().to_torch()
        assert data.untyped_storage().nbytes() == data.numel() * data.element_size()


def test_a_rule_that_mutates_its_state_gets_no_flat_batch():
    sizes = []

    class Mutating(Adam):
        mutates_state = True  # its states are copied for it: a flat state cannot be

        def step_fused(self, lr, params, grads, states):
            sizes.append(sorted(p.numel() for p in params))
            return super().step_fused(lr, params, grads, states)

    model = Smalls()
    optimizer = ModuleOptimizer(Mutating(0.9, 0.999, 1e-5, False, 0.0))
    for step in range(3):
        model = optimizer.step(0.01, model, smalls_grads(model, step))
    assert sizes == [sorted(p.val().to_torch().numel() for p in model.params())] * 2


def test_a_record_taken_while_states_are_flat_resumes_training_exactly():
    optimizer = AdamConfig().init()
    model = Smalls()
    for step in range(3):
        model = optimizer.step(0.01, model, smalls_grads(model, step))
    record = optimizer.to_record()
    resumed = AdamConfig().init().load_record(record)
    twin = model
    for step in range(3, 5):
        model = optimizer.step(0.01, model, smalls_grads(model, step))
        twin = resumed.step(0.01, twin, smalls_grads(twin, step))
    for p, q in zip(model.params(), twin.params(), strict=True):
        assert torch.equal(p.val().to_torch(), q.val().to_torch())
    assert record[model.small[0].id]["time"] == 3  # a snapshot: later steps left it


def test_a_parameter_reached_twice_is_refused_before_anything_changes():
    class Tied(Module):
        def __init__(self) -> None:
            super().__init__()
            self.first = Param(Tensor.ones([2], AD))
            self.second = self.first

    model = Tied()
    grads = GradientsParams()
    grads.register(model.first.id, Tensor.ones([2], CPU))
    with pytest.raises(ValueError, match="reachable at 2 paths of the module \\(first, second\\)"):
        SgdConfig().init().step(0.5, model, grads)
    assert len(grads) == 1


# ----------------------------------------------------------------- module traversal ----
def test_a_container_filled_in_place_after_a_walk_is_seen_by_the_next_walk():
    class Stack(Module):
        def __init__(self) -> None:
            super().__init__()
            self.blocks = []

    model = Stack()
    assert model.named_params() == []
    model.blocks.append(nn.LinearConfig(2, 2).init(CPU))
    assert [n for n, _ in model.named_params()] == ["blocks.0.weight", "blocks.0.bias"]


def test_dict_keys_that_print_alike_are_mapped_separately():
    class Heads(Module):
        def __init__(self) -> None:
            super().__init__()
            self.heads = {1: Param(Tensor.ones([1], CPU)), "1": Param(Tensor.zeros([1], CPU))}

    class Double(ModuleMapper):
        def map_float(self, param):
            return param.map(lambda t: t + 1.0)

    mapped = Heads().map(Double())
    assert mapped.heads[1].val().to_data().to_list() == [2.0]
    assert mapped.heads["1"].val().to_data().to_list() == [1.0]


def test_path_hooks_set_on_the_instance_are_called():
    visitor = ModuleVisitor()
    entered = []
    visitor.enter_module = lambda name, container: entered.append(name)
    Mlp(CPU).visit(visitor)
    assert entered == ["fc1", "weight", "bias", "fc2", "weight", "bias"]


def test_mapping_a_module_class_with_its_own_copy_hook_uses_it():
    class Tagged(Module):
        def __init__(self) -> None:
            super().__init__()
            self.weight = Param(Tensor.ones([1], CPU))
            self.copies = 0

        def __copy__(self):
            new = object.__new__(type(self))
            new.__dict__.update(self.__dict__, copies=self.copies + 1)
            return new

    assert Tagged().clone().clone().copies == 2
    assert Tagged()._copy_by_dict is False and nn.Linear._copy_by_dict is True
