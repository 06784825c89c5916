"""The rest of Burn's optimizers and schedulers as specifications: Adan and Muon against float64
references written from their papers' update rules
(``torch.optim.Muon`` runs its Newton-Schulz iteration in bfloat16, so it is no exact twin),
LBFGS against ``torch.optim.LBFGS`` (Burn's module closure vs torch's zero-argument closure),
and the composed and sequential learning-rate schedulers.

Every optimizer runs the MLP problem of ``test_optim`` (weights ``[d_input, d_output]`` on both
sides) for 10 steps."""
from __future__ import annotations

import math

import pytest
import torch
import torch.nn.functional as F

from burn_torch import Tensor, optim
from burn_torch.activation import relu
from burn_torch.module import Module, Param
from burn_torch.optim import (AdanConfig, AdjustLrFn, GradientsParams, LBFGSConfig, LineSearchFn,
                              MomentumConfig, MuonConfig, WeightDecayConfig)
from burn_torch.optim import lr_scheduler as lrs
from test_optim import AD, CPU, STEPS, TOL, Mlp, burn_grads, burn_run, problem

DTYPES = list(TOL.items())


def torch_loss(params, x, y):
    h = torch.relu(x @ params["fc1.weight"] + params["fc1.bias"])
    return F.cross_entropy(h @ params["fc2.weight"] + params["fc2.bias"], y)


def reference_run(update, dtype, steps=STEPS):
    """Runs ``update(name, param, grad, state) -> param`` (plain torch, float64 maths) for
    ``steps`` steps on the MLP problem; returns the final parameters."""
    weights, x, y = problem(dtype)
    params = {n: w.clone() for n, w in weights.items()}
    states = {n: {} for n in params}
    for _ in range(steps):
        leaves = {n: p.clone().requires_grad_() for n, p in params.items()}
        torch_loss(leaves, x, y).backward()
        params = {n: update(n, params[n], leaves[n].grad, states[n]) for n in params}
    return params


def assert_params_close(got, want, tol):
    assert set(got) == set(want)
    for name in want:
        torch.testing.assert_close(got[name], want[name], rtol=tol, atol=tol, msg=name)


# ===================================================================================== Adan ======
def adan_reference(lr, b1, b2, b3, eps, wd, no_prox):
    """Adan (Xie et al. 2022, Algorithm 1) in the paper's notation, beta_paper = 1 - beta_burn,
    with the bias corrections of the authors' implementation and g_0 = g_1."""
    p1, p2, p3 = 1 - b1, 1 - b2, 1 - b3

    def update(name, theta, g, s):
        k = s.get("k", 0) + 1
        g_prev = s.get("g", g)
        diff = g - g_prev
        s["m"] = (1 - p1) * s.get("m", 0) + p1 * g
        s["v"] = (1 - p2) * s.get("v", 0) + p2 * diff
        s["n"] = (1 - p3) * s.get("n", 0) + p3 * (g + (1 - p2) * diff) ** 2
        s["k"], s["g"] = k, g
        m_hat = s["m"] / (1 - (1 - p1) ** k)
        v_hat = s["v"] / (1 - (1 - p2) ** k)
        eta = lr / (s["n"].sqrt() / math.sqrt(1 - (1 - p3) ** k) + eps)
        step = eta * (m_hat + (1 - p2) * v_hat)
        if no_prox:
            return theta * (1 - lr * wd) - step
        return (theta - step) / (1 + lr * wd)
    return update


@pytest.mark.parametrize("wd, no_prox", [(0.0, False), (0.05, False), (0.05, True)],
                         ids=["no decay", "proximal decay", "decoupled decay"])
@pytest.mark.parametrize("dtype, tol", DTYPES, ids=["f32", "f64"])
def test_adan_follows_the_papers_update_rule(wd, no_prox, dtype, tol):
    config = AdanConfig().with_weight_decay(wd).with_no_prox(no_prox)
    got = burn_run(config, dtype, 0.01)
    want = reference_run(adan_reference(0.01, 0.98, 0.92, 0.99, 1e-8, wd, no_prox), dtype)
    assert_params_close(got, {n: w.to(dtype) for n, w in want.items()}, tol)


def test_adan_has_burns_defaults():
    c = AdanConfig()
    assert (c.beta_1, c.beta_2, c.beta_3, c.epsilon, c.weight_decay, c.no_prox) == (
        0.98, 0.92, 0.99, 1e-8, 0.0, False)


# ===================================================================================== Muon ======
class Matrices(Module):
    """The MLP without biases (Muon updates matrices only)."""

    def __init__(self, weights):
        super().__init__()
        self.w1 = Param(Tensor.from_data(weights["fc1.weight"], AD))
        self.w2 = Param(Tensor.from_data(weights["fc2.weight"], AD))


def muon_burn(config, dtype, lr):
    weights, x, y = problem(dtype)
    model, opt = Matrices(weights), config.init()
    ce = optim_ce()
    for _ in range(STEPS):
        logits = relu(Tensor.from_data(x, CPU) @ model.w1.val()) @ model.w2.val()
        grads = GradientsParams.from_grads(ce.forward(logits, Tensor.from_data(y, CPU)).backward(), model)
        model = opt.step(lr, model, grads)
    return {"fc1.weight": model.w1.val().to_torch(), "fc2.weight": model.w2.val().to_torch()}


def optim_ce():
    from burn_torch import nn
    return nn.CrossEntropyLossConfig().init(AD)


def muon_reference(lr, mu, wd, coefficients, steps, eps, ratio):
    """Muon (Jordan et al. 2024): Nesterov momentum, then Newton-Schulz orthogonalization of
    the momentum, then a decoupled decay and an update scaled by ``ratio(shape)``."""
    a, b, c = coefficients

    def update(name, w, g, s):
        buf = g if "buf" not in s else mu * s["buf"] + g
        s["buf"] = buf
        m = g + mu * buf
        x = m.T if m.shape[0] > m.shape[1] else m
        x = x / max(float(x.norm()), eps)
        for _ in range(steps):
            A = x @ x.T
            x = a * x + (b * A + c * A @ A) @ x
        x = x.T if m.shape[0] > m.shape[1] else x
        return w * (1 - lr * wd) - lr * ratio(w.shape) * x
    return update


def matrix_reference_run(update, dtype):
    weights, x, y = problem(dtype)
    params = {n: weights[n].clone() for n in ("fc1.weight", "fc2.weight")}
    states = {n: {} for n in params}
    for _ in range(STEPS):
        leaves = {n: p.clone().requires_grad_() for n, p in params.items()}
        F.cross_entropy((x @ leaves["fc1.weight"]).relu() @ leaves["fc2.weight"], y).backward()
        params = {n: update(n, params[n], leaves[n].grad, states[n]) for n in params}
    return params


@pytest.mark.parametrize("adjust, ratio", [
    (AdjustLrFn.ORIGINAL, lambda s: max(1.0, s[0] / s[1]) ** 0.5),
    (AdjustLrFn.MATCH_RMS_ADAM_W, lambda s: 0.2 * max(s) ** 0.5),
], ids=["original", "match_rms_adamw"])
@pytest.mark.parametrize("dtype, tol", DTYPES, ids=["f32", "f64"])
def test_muon_follows_the_papers_update_rule(adjust, ratio, dtype, tol):
    config = MuonConfig().with_adjust_lr_fn(adjust).with_weight_decay(WeightDecayConfig(0.1))
    got = muon_burn(config, dtype, 0.02)
    want = matrix_reference_run(
        muon_reference(0.02, 0.95, 0.1, (3.4445, -4.775, 2.0315), 5, 1e-7, ratio), dtype)
    assert_params_close(got, {n: w.to(dtype) for n, w in want.items()}, tol * 10)


def test_muon_refuses_a_parameter_that_is_not_a_matrix():
    weights, x, y = problem(torch.float64)
    model = Mlp(weights)
    with pytest.raises(ValueError, match="2D"):
        MuonConfig().init().step(0.01, model, burn_grads(model, x, y))


def test_muon_has_burns_defaults():
    c = MuonConfig()
    assert c.momentum == MomentumConfig(0.95, 0.0, True)
    assert (c.ns_coefficients, c.epsilon, c.ns_steps, c.adjust_lr_fn, c.weight_decay) == (
        (3.4445, -4.775, 2.0315), 1e-7, 5, AdjustLrFn.ORIGINAL, None)


# ==================================================================================== LBFGS ======
def lbfgs_burn(config, dtype, lr):
    weights, x, y = problem(dtype)
    model, opt = Mlp(weights), config.init()

    def closure(m):
        grads = burn_grads(m, x, y)
        loss = optim_ce().forward(m.forward(Tensor.from_data(x, CPU)), Tensor.from_data(y, CPU))
        return float(loss.into_scalar()), grads
    for _ in range(STEPS):
        model, _ = opt.step(lr, model, closure)
    return {name: p.val().to_torch() for name, p in model.named_params()}


def lbfgs_torch(dtype, lr, max_iter, line_search):
    weights, x, y = problem(dtype)
    params = {name: w.clone().requires_grad_() for name, w in weights.items()}
    opt = torch.optim.LBFGS(list(params.values()), lr=lr, max_iter=max_iter,
                            line_search_fn=line_search)

    def closure():
        opt.zero_grad()
        loss = torch_loss(params, x, y)
        loss.backward()
        return loss
    for _ in range(STEPS):
        opt.step(closure)
    return {name: p.detach() for name, p in params.items()}


@pytest.mark.parametrize("line_search", [LineSearchFn.NONE, LineSearchFn.STRONG_WOLFE],
                         ids=["no line search", "strong wolfe"])
@pytest.mark.parametrize("dtype, tol", DTYPES, ids=["f32", "f64"])
def test_lbfgs_equals_torch_optim_lbfgs(line_search, dtype, tol):
    config = LBFGSConfig().with_max_iter(4).with_line_search_fn(line_search)
    got = lbfgs_burn(config, dtype, 0.5)
    want = lbfgs_torch(dtype, 0.5, 4,
                       "strong_wolfe" if line_search is LineSearchFn.STRONG_WOLFE else None)
    assert_params_close(got, want, tol * 100 if dtype is torch.float32 else tol)


def test_lbfgs_has_burns_defaults_and_refuses_a_bad_closure():
    c = LBFGSConfig()
    assert (c.max_iter, c.history_size, c.tolerance_grad, c.tolerance_change, c.max_eval,
            c.line_search_fn) == (20, 100, 1e-7, 1e-9, None, LineSearchFn.NONE)
    assert c.init().config.max_eval == 25
    weights, _, _ = problem()
    with pytest.raises(TypeError, match="GradientsParams"):
        c.init().step(1.0, Mlp(weights), lambda m: 1.0)



def test_lbfgs_built_from_a_config_without_max_eval_raises_naming_init():
    from burn_torch.optim.lbfgs import LBFGS
    with pytest.raises(ValueError, match=r"LBFGSConfig\(\.\.\.\)\.init\(\)"):
        LBFGS(LBFGSConfig())

# =============================================================================== schedulers ======
def _rates(scheduler, n):
    return [scheduler.step() for _ in range(n)]


@pytest.mark.parametrize("reduction, combine", [
    (lrs.SchedulerReduction.PROD, math.prod), (lrs.SchedulerReduction.SUM, sum),
    (lrs.SchedulerReduction.AVG, lambda rs: sum(rs) / len(rs)),
], ids=["prod", "sum", "avg"])
def test_composed_scheduler_combines_its_schedulers_rates(reduction, combine):
    linear = lrs.LinearLrSchedulerConfig(0.5, 0.1, 5)
    cosine = lrs.CosineAnnealingLrSchedulerConfig(0.8, 4)
    composed = (lrs.ComposedLrSchedulerConfig().with_reduction(reduction).linear(linear)
                .cosine(cosine).init())
    want = [combine(rs) for rs in zip(_rates(linear.init(), 8), _rates(cosine.init(), 8))]
    assert _rates(composed, 8) == pytest.approx(want, rel=1e-15)


def test_composed_scheduler_defaults_to_the_product_and_restores_its_record():
    composed = lrs.ComposedLrSchedulerConfig().exponential(
        lrs.ExponentialLrSchedulerConfig(0.5, 0.9)).noam(lrs.NoamLrSchedulerConfig(1.0)).init()
    _rates(composed, 3)
    record = composed.to_record()
    expected = _rates(composed, 3)
    fresh = lrs.ComposedLrSchedulerConfig().exponential(
        lrs.ExponentialLrSchedulerConfig(0.5, 0.9)).noam(lrs.NoamLrSchedulerConfig(1.0)).init()
    assert _rates(fresh.load_record(record), 3) == expected


def test_sequential_scheduler_switches_at_milestones_each_starting_fresh():
    warmup = lrs.LinearLrSchedulerConfig(0.1, 1.0, 3)
    decay = lrs.ExponentialLrSchedulerConfig(1.0, 0.5)
    seq = lrs.SequentialLrSchedulerConfig((warmup, decay), (4,)).init()
    assert _rates(seq, 7) == pytest.approx(_rates(warmup.init(), 4) + _rates(decay.init(), 3))


def test_sequential_scheduler_equals_torch_sequential_lr():
    net = torch.nn.Linear(1, 1)
    opt = torch.optim.SGD(net.parameters(), lr=1.0)
    first = torch.optim.lr_scheduler.ConstantLR(opt, factor=0.5, total_iters=10)
    second = torch.optim.lr_scheduler.ExponentialLR(opt, gamma=0.5)
    torch_seq = torch.optim.lr_scheduler.SequentialLR(opt, [first, second], milestones=[3])
    want = []
    for _ in range(6):
        want.append(opt.param_groups[0]["lr"])
        opt.step()
        torch_seq.step()
    seq = lrs.SequentialLrSchedulerConfig(
        (lrs.ExponentialLrSchedulerConfig(0.5, 1.0), lrs.ExponentialLrSchedulerConfig(1.0, 0.5)),
        (3,)).init()
    assert _rates(seq, 6) == pytest.approx(want)


@pytest.mark.parametrize("schedulers, milestones, message", [
    ((), (), "At least one scheduler"),
    ((lrs.NoamLrSchedulerConfig(1.0),), (2,), "one less than"),
    ((lrs.NoamLrSchedulerConfig(1.0),) * 3, (3, 3), "strictly increasing"),
    ((lrs.NoamLrSchedulerConfig(1.0),) * 2, (0,), "greater than zero"),
])
def test_sequential_scheduler_refuses_inconsistent_milestones(schedulers, milestones, message):
    with pytest.raises(ValueError, match=message):
        lrs.SequentialLrSchedulerConfig(schedulers, milestones).init()


def test_new_optimizers_are_exported():
    for name in ("Adan", "AdanConfig", "Muon", "MuonConfig", "LBFGS", "LBFGSConfig",
                 "ComposedLrSchedulerConfig", "SequentialLrSchedulerConfig"):
        assert hasattr(optim, name)
