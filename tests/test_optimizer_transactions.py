"""Optimizer steps are transactions: a step that fails anywhere leaves the module, the gradients
and the optimizer's state exactly as before, and retrying it equals running it once. Gradients
are checked against their parameters (dtype, shape, device), and a parameter reachable at two
paths (PyTorch-style weight tying) is refused before anything changes."""
from __future__ import annotations

import pytest
import torch

from burn_torch import Device, Tensor, nn
from burn_torch.module import Module, Param, TiedParamError
from burn_torch.optim import (AdaGradConfig, AdamConfig, AdamWConfig, GradientClipping,
                              GradientsParams, MomentumConfig, RmsPropConfig, SgdConfig,
                              SimpleOptimizer)
from burn_torch.optim import flat

CPU = Device.cpu()
AD = CPU.autodiff()

CONFIGS = {
    "sgd": SgdConfig(),
    "sgd-momentum": SgdConfig(momentum=MomentumConfig(nesterov=True)),
    "adam": AdamConfig(),
    "adam-amsgrad": AdamConfig(amsgrad=True),
    "adamw": AdamWConfig(),
    "rmsprop": RmsPropConfig(centered=True),
    "rmsprop-no-momentum": RmsPropConfig(momentum=0.0),
    "adagrad": AdaGradConfig(),
}


class TwoDtypes(Module):
    """Three Float parameters in two dtype groups (f32: a, c; f64: b): a step runs two groups."""

    def __init__(self) -> None:
        super().__init__()
        g = torch.Generator().manual_seed(0)
        self.a = Param(Tensor.from_data(torch.randn(3, generator=g), AD))
        self.b = Param(Tensor.from_data(torch.randn(2, 2, generator=g, dtype=torch.float64), AD))
        self.c = Param(Tensor.from_data(torch.randn(4, generator=g), AD))


class FlatGroups(Module):
    """``FLAT_MIN_COUNT`` small Float parameters in each of two dtype groups: from its second
    step each group's parameters are updated as one flat batch (see ``optim.flat``)."""

    def __init__(self) -> None:
        super().__init__()
        g = torch.Generator().manual_seed(0)
        self.params32 = [Param(Tensor.from_data(torch.randn(i + 1, generator=g), AD))
                         for i in range(flat.FLAT_MIN_COUNT)]
        self.params64 = [Param(Tensor.from_data(torch.randn(2, i + 1, generator=g,
                                                            dtype=torch.float64), AD))
                         for i in range(flat.FLAT_MIN_COUNT)]


def grads_for(model: Module, scale: float = 1.0) -> GradientsParams:
    grads = GradientsParams()
    for i, (_, p) in enumerate(model.named_params()):
        data = p.val().to_torch()
        grads.register(p.id, Tensor.from_data(torch.full_like(data, scale * (i + 1)), CPU))
    return grads


def snapshot_values(model: Module) -> dict:
    return {n: (p.id, p.val().to_torch().clone(), p.is_require_grad()) for n, p in model.named_params()}


def same_values(model: Module, snap: dict) -> bool:
    now = snapshot_values(model)
    return now.keys() == snap.keys() and all(
        now[n][0] == snap[n][0] and now[n][2] == snap[n][2] and torch.equal(now[n][1], snap[n][1])
        for n in snap)


def same_record(a, b) -> bool:
    if set(a) != set(b):
        return False
    for pid in a:
        sa, sb = a[pid], b[pid]
        if sa.keys() != sb.keys():
            return False
        for k in sa:
            x, y = sa[k], sb[k]
            if isinstance(x, torch.Tensor):
                if not torch.equal(x, y):
                    return False
            elif x != y:
                return False
    return True


def same_states(a, b) -> bool:
    """Records of two optimizers over twin models (other ParamIds), in parameter order."""
    return len(a) == len(b) and all(
        same_record({0: a[x]}, {0: b[y]}) for x, y in zip(a, b))


class FailingClip(GradientClipping):
    """A no-op clipping (clamp to ±1e9) that raises ``error`` on the ``fail_at``-th call: each
    device-and-dtype group calls it once, so the step fails after the first group ran its rule."""

    __slots__ = ("calls", "fail_at", "error")

    def __init__(self, fail_at: int, error: BaseException) -> None:
        super().__init__("value", 1e9)
        self.calls, self.fail_at, self.error = 0, fail_at, error

    def clip_many(self, grads):
        self.calls += 1
        if self.calls == self.fail_at:
            raise self.error
        return super().clip_many(grads)


@pytest.mark.parametrize("make", [TwoDtypes, FlatGroups], ids=["per_tensor", "flat"])
@pytest.mark.parametrize("error", [RuntimeError("kernel failed"), KeyboardInterrupt()],
                         ids=["exception", "ctrl-c"])
@pytest.mark.parametrize("name", sorted(CONFIGS))
def test_a_step_failing_in_its_second_group_changes_nothing_and_a_retry_equals_one_step(
        name, error, make):
    optimizer = CONFIGS[name].init().with_grad_clipping(GradientClipping("value", 1e9))
    reference = CONFIGS[name].init().with_grad_clipping(GradientClipping("value", 1e9))
    model, ref_model = make(), make()  # same values (seeded), other ParamIds
    for _ in range(2):  # states exist: later steps take the fused path
        model = optimizer.step(0.1, model, grads_for(model))
        ref_model = reference.step(0.1, ref_model, grads_for(ref_model))

    record, values = optimizer.to_record(), snapshot_values(model)
    grads = grads_for(model, 0.5)
    optimizer.with_grad_clipping(FailingClip(2, error))
    with pytest.raises(type(error)):
        optimizer.step(0.1, model, grads)
    assert same_record(optimizer.to_record(), record)
    assert same_values(model, values)
    assert len(grads) == len(model.params())

    optimizer.with_grad_clipping(GradientClipping("value", 1e9))
    retried = optimizer.step(0.1, model, grads)
    once = reference.step(0.1, ref_model, grads_for(ref_model, 0.5))
    for (_, p), (_, q) in zip(retried.named_params(), once.named_params(), strict=True):
        assert torch.equal(p.val().to_torch(), q.val().to_torch())
    assert same_states(optimizer.to_record(), reference.to_record())
    assert grads.is_empty()


def test_a_first_step_failing_mid_way_leaves_no_state():
    class FailsOnThird(SimpleOptimizer):
        mutates_state = False

        def __init__(self) -> None:
            self.calls = 0

        def step(self, lr, param, grad, state):
            self.calls += 1
            if self.calls == 3:
                raise RuntimeError("third parameter")
            return param - lr * grad, {"seen": self.calls}

    from burn_torch.optim import ModuleOptimizer
    optimizer = ModuleOptimizer(FailsOnThird())
    model = TwoDtypes()
    values = snapshot_values(model)
    with pytest.raises(RuntimeError, match="third parameter"):
        optimizer.step(0.1, model, grads_for(model))
    assert len(optimizer.to_record()) == 0
    assert same_values(model, values)


def test_a_rule_that_mutates_its_state_in_place_is_handed_a_copy():
    class InPlace(SimpleOptimizer):  # mutates_state defaults to True
        def __init__(self) -> None:
            self.fail = False

        def step(self, lr, param, grad, state):
            state = state or {"sum": torch.zeros_like(param)}
            state["sum"].add_(grad)
            if self.fail:
                raise RuntimeError("after mutating")
            return param - lr * grad, state

    from burn_torch.optim import ModuleOptimizer
    rule = InPlace()
    optimizer = ModuleOptimizer(rule)
    model = optimizer.step(0.1, TwoDtypes(), grads_for(TwoDtypes()))
    record = optimizer.to_record()
    rule.fail = True
    with pytest.raises(RuntimeError):
        optimizer.step(0.1, model, grads_for(model))
    assert same_record(optimizer.to_record(), record)


@pytest.mark.parametrize("name", sorted(CONFIGS))
def test_built_in_rules_never_modify_the_state_they_are_given(name):
    rule = CONFIGS[name].build()
    assert rule.mutates_state is False
    g = torch.Generator().manual_seed(1)
    params = [torch.randn(3, generator=g), torch.randn(2, generator=g)]
    grads = [torch.randn(3, generator=g), torch.randn(2, generator=g)]
    _, states = rule.step_many(0.1, params, grads, [None, None])
    _, states = rule.step_many(0.1, params, grads, states)  # fused from here on
    frozen = [{k: v.clone() if isinstance(v, torch.Tensor) else v for k, v in s.items()} for s in states]
    rule.step_many(0.1, params, grads, states)
    for s, f in zip(states, frozen):
        assert s.keys() == f.keys()
        assert all(torch.equal(s[k], f[k]) if isinstance(f[k], torch.Tensor) else s[k] == f[k] for k in f)


# ---------------------------------------------------------------------- gradient checks ----
def test_a_gradient_of_another_dtype_for_the_third_parameter_is_refused_naming_it():
    model = TwoDtypes()
    optimizer = AdamConfig().init()
    model = optimizer.step(0.1, model, grads_for(model))
    record, values = optimizer.to_record(), snapshot_values(model)
    grads = grads_for(model)
    grads.register(model.c.id, Tensor.from_data(torch.ones(4, dtype=torch.float64), CPU))
    with pytest.raises(TypeError, match=rf"gradient of c has dtype torch.float64, the parameter "
                                        rf"torch.float32 \(ParamId {model.c.id}\)"):
        optimizer.step(0.1, model, grads)
    assert same_record(optimizer.to_record(), record) and same_values(model, values)
    assert len(grads) == 3


def test_a_gradient_on_another_device_is_refused_naming_the_parameter():
    model = TwoDtypes()
    grads = grads_for(model)
    grads._grads[model.a.id] = torch.empty(3, device="meta")
    with pytest.raises(ValueError, match="gradient of a is on meta, the parameter on cpu"):
        SgdConfig().init().step(0.1, model, grads)


def test_a_gradient_of_another_shape_is_refused_naming_the_parameter():
    model = TwoDtypes()
    grads = grads_for(model)
    grads.register(model.b.id, Tensor.from_data(torch.ones(4, dtype=torch.float64), CPU))
    with pytest.raises(ValueError, match=r"gradient of b has shape \[4\], the parameter \[2, 2\]"):
        SgdConfig().init().step(0.1, model, grads)


def test_register_refuses_a_non_float_gradient():
    with pytest.raises(TypeError, match="must be a Float tensor, got Int"):
        GradientsParams().register(TwoDtypes().a.id, Tensor.from_ints([1, 2, 3], CPU))


def test_register_checks_the_gradient_against_a_given_param():
    model = TwoDtypes()
    grads = GradientsParams()
    with pytest.raises(TypeError, match="dtype torch.float64, the parameter torch.float32"):
        grads.register(model.a.id, Tensor.from_data(torch.ones(3, dtype=torch.float64), CPU), model.a)
    with pytest.raises(ValueError, match=r"shape \[2\], the parameter \[3\]"):
        grads.register(model.a.id, Tensor.ones([2], CPU), model.a)
    with pytest.raises(ValueError, match="the Param given is"):
        grads.register(model.a.id, Tensor.ones([3], CPU), model.c)
    assert grads.is_empty()
    grads.register(model.a.id, Tensor.ones([3], CPU), model.a.val())
    assert len(grads) == 1


def test_a_learning_rate_that_is_not_a_number_is_refused():
    model = TwoDtypes()
    with pytest.raises(TypeError, match="learning rate must be a real number, got '0.1'"):
        SgdConfig().init().step("0.1", model, grads_for(model))


# ------------------------------------------------------------------------ weight tying ----
class PyTorchStyleTied(Module):
    def __init__(self) -> None:
        super().__init__()
        self.embedding = nn.EmbeddingConfig(4, 2).init(AD)
        self.head = [self.embedding.weight]


def tied_grads(model: PyTorchStyleTied):
    h = model.embedding.forward(Tensor.from_ints([[1, 2]], AD))
    return h.matmul(model.head[0].val().transpose()).sum().backward()


def test_from_grads_refuses_a_param_at_two_paths_naming_both_and_takes_nothing():
    model = PyTorchStyleTied()
    grads = tied_grads(model)
    with pytest.raises(TiedParamError, match=r"reachable at 2 paths of the module "
                                             r"\(embedding.weight, head.0\)") as error:
        GradientsParams.from_grads(grads, model)
    assert error.value.paths == ["embedding.weight", "head.0"]
    assert isinstance(error.value, ValueError)
    assert "compute both uses from it" in str(error.value)
    assert model.embedding.weight.val().grad(grads) is not None  # nothing was taken


def test_an_optimizer_step_refuses_a_param_at_two_paths():
    model = PyTorchStyleTied()
    grads = GradientsParams()
    grads.register(model.embedding.weight.id, Tensor.ones([4, 2], CPU))
    optimizer = AdamConfig().init()
    with pytest.raises(TiedParamError, match="embedding.weight, head.0"):
        optimizer.step(0.1, model, grads)
    assert len(optimizer.to_record()) == 0 and len(grads) == 1
