"""Burn's activation layers against their torch.nn twins: outputs and input (and parameter)
gradients equal within 1e-5 in float32 and 1e-10 in float64; Burn's defaults and config
builders; ActivationConfig builds every variant; RRelu's random slopes on autodiff devices."""
from __future__ import annotations

import pytest
import torch
import torch.nn.functional as F

from burn_torch import Device, Tensor, nn
from test_nn_layers import BURN_DTYPE, DTYPES, Case, close, randn, run_both

CPU = Device.cpu()
AD = CPU.autodiff()


class Fn(torch.nn.Module):
    """A torch twin written as a function (for Burn layers torch.nn lacks)."""

    def __init__(self, fn) -> None:
        super().__init__()
        self.fn = fn

    def forward(self, x):
        return self.fn(x)


class TorchSwiGlu(torch.nn.Module):
    def __init__(self, d_input: int, d_output: int, bias: bool) -> None:
        super().__init__()
        self.linear_inner = torch.nn.Linear(d_input, d_output, bias=bias)
        self.linear_outer = torch.nn.Linear(d_input, d_output, bias=bias)

    def forward(self, x):
        return F.silu(self.linear_inner(x)) * self.linear_outer(x)


def x34(dtype):
    return [randn(3, 4, 5, dtype=dtype) * 2]


CASES = {
    "celu": Case(lambda: nn.CeluConfig(1.5).init(), lambda: torch.nn.CELU(1.5), x34),
    "elu": Case(lambda: nn.EluConfig().with_alpha(0.7).init(), lambda: torch.nn.ELU(0.7), x34),
    "hard_shrink": Case(lambda: nn.HardShrinkConfig(0.3).init(), lambda: torch.nn.Hardshrink(0.3), x34),
    "soft_shrink": Case(lambda: nn.SoftShrinkConfig().init(), lambda: torch.nn.Softshrink(0.5), x34),
    "shrink": Case(lambda: nn.ShrinkConfig(0.4, 0.1).init(),
                   lambda: Fn(lambda x: torch.where(x.abs() <= 0.4, 0.0, x - x.sign() * 0.1)), x34),
    # torch.nn.Hardsigmoid's backward kernel scales by a float32 1/6 even in float64: the twin
    # is its formula
    "hard_sigmoid": Case(lambda: nn.HardSigmoidConfig(1 / 6, 0.5).init(),
                         lambda: Fn(lambda x: (x / 6 + 0.5).clamp(0, 1)), x34),
    "hard_sigmoid_default": Case(lambda: nn.HardSigmoidConfig().init(),
                                 lambda: Fn(lambda x: (0.2 * x + 0.5).clamp(0, 1)), x34),
    "hardtanh": Case(lambda: nn.HardtanhConfig(-2.0, 1.5).init(), lambda: torch.nn.Hardtanh(-2.0, 1.5), x34),
    "softplus": Case(lambda: nn.SoftplusConfig(2.0).init(), lambda: torch.nn.Softplus(2.0), x34),
    "threshold": Case(lambda: nn.ThresholdConfig(0.1, 20.0).init(), lambda: torch.nn.Threshold(0.1, 20.0), x34),
    "thresholded_relu": Case(lambda: nn.ThresholdedReluConfig(0.5).init(),
                             lambda: torch.nn.Threshold(0.5, 0.0), x34),
    "hard_swish": Case(nn.HardSwish, torch.nn.Hardswish, x34),
    "log_sigmoid": Case(nn.LogSigmoid, torch.nn.LogSigmoid, x34),
    "mish": Case(nn.Mish, torch.nn.Mish, x34),
    "relu6": Case(nn.Relu6, torch.nn.ReLU6, lambda dt: [randn(3, 4, 5, dtype=dt) * 5]),
    "selu": Case(nn.Selu, torch.nn.SELU, x34),
    "silu": Case(nn.SiLU, torch.nn.SiLU, x34),
    "softsign": Case(nn.Softsign, torch.nn.Softsign, x34),
    "tanhshrink": Case(nn.Tanhshrink, torch.nn.Tanhshrink, x34),
    "glu": Case(lambda: nn.GLU(-1), lambda: torch.nn.GLU(-1), lambda dt: [randn(3, 5, 6, dtype=dt)]),
    "glu_dim1": Case(lambda: nn.GLU(1), lambda: torch.nn.GLU(1), lambda dt: [randn(3, 4, 5, dtype=dt)]),
    "identity": Case(nn.Identity, torch.nn.Identity, x34),
    "rrelu_eval": Case(lambda: nn.RReluConfig().init(), lambda: torch.nn.RReLU().eval(), x34),
    "swiglu": Case(lambda: nn.SwiGluConfig(5, 3).init(CPU), lambda: TorchSwiGlu(5, 3, False), x34),
    "swiglu_bias": Case(lambda: nn.SwiGluConfig(5, 3).with_bias(True).init(CPU),
                        lambda: TorchSwiGlu(5, 3, True), x34),
}


@pytest.mark.parametrize("dtype, tol", DTYPES)
@pytest.mark.parametrize("name", [n for n in CASES if n != "rrelu_eval"])
def test_activation_output_and_gradients_equal_torch(name, dtype, tol):
    outs_t, outs_b, grads_t, grads_b, inputs = run_both(CASES[name], dtype)
    for o_t, o_b in zip(outs_t, outs_b):
        assert o_b.dtype() == BURN_DTYPE[dtype]
        close(o_b.to_torch(), o_t.detach(), tol)
    for g_t, g_b in inputs:
        close(g_b.to_torch(), g_t, tol)
    assert set(grads_t) == set(grads_b)
    for key, g_t in grads_t.items():
        close(grads_b[key], g_t, tol)


@pytest.mark.parametrize("dtype, tol", DTYPES)
def test_rrelu_without_autodiff_is_leaky_relu_with_the_mean_slope_as_torch_eval(dtype, tol):
    x = randn(4, 6, dtype=dtype)
    out = nn.RReluConfig().init().forward(Tensor.from_data(x, CPU))
    close(out.to_torch(), torch.nn.RReLU().eval()(x), tol)


def test_rrelu_on_autodiff_draws_one_slope_per_negative_element_in_its_bounds():
    x = randn(50, 40, dtype=torch.float64)
    xb = Tensor.from_data(x, AD).require_grad()
    AD.seed(3)
    out = nn.RReluConfig(0.1, 0.3).init().forward(xb)
    grads = out.sum().backward()
    slope = out.to_torch() / x
    neg = x < 0
    assert torch.equal(slope[~neg], torch.ones_like(slope[~neg]))
    assert ((slope[neg] >= 0.1) & (slope[neg] <= 0.3)).all()
    assert slope[neg].unique().numel() > 100
    torch.testing.assert_close(xb.grad(grads).to_torch(), slope, rtol=1e-12, atol=0)


def test_rrelu_config_rejects_lower_above_upper():
    with pytest.raises(ValueError, match="lower bound"):
        nn.RReluConfig(0.5, 0.2).init()


def test_configs_have_burns_defaults():
    assert nn.CeluConfig().alpha == 1.0 and nn.EluConfig().alpha == 1.0
    assert nn.HardShrinkConfig().lambda_ == 0.5 and nn.SoftShrinkConfig().lambda_ == 0.5
    assert (nn.ShrinkConfig().lambda_, nn.ShrinkConfig().bias) == (0.5, 0.5)
    assert (nn.HardSigmoidConfig().alpha, nn.HardSigmoidConfig().beta) == (0.2, 0.5)
    assert (nn.HardtanhConfig().min_val, nn.HardtanhConfig().max_val) == (-1.0, 1.0)
    assert nn.SoftplusConfig().beta == 1.0 and nn.ThresholdedReluConfig().alpha == 1.0
    assert (nn.RReluConfig().lower, nn.RReluConfig().upper) == (0.125, 1 / 3)
    swiglu = nn.SwiGluConfig(4, 6)
    assert swiglu.bias is False


def test_threshold_config_requires_both_fields():
    with pytest.raises(TypeError):
        nn.ThresholdConfig(0.5)


def test_swiglu_has_burns_record_fields_and_layouts():
    layer = nn.SwiGluConfig(4, 6).init(CPU)
    assert sorted(name for name, _ in layer.named_params()) == ["linear_inner.weight",
                                                                "linear_outer.weight"]
    assert layer.linear_inner.weight.val().dims() == [4, 6]


def test_hardtanh_gradient_passes_at_its_bounds_as_burns_clamp():
    x = Tensor.from_data(torch.tensor([-1.0, 0.0, 1.0, 2.0], dtype=torch.float64), AD).require_grad()
    grads = nn.HardtanhConfig().init().forward(x).sum().backward()
    assert x.grad(grads).to_torch().tolist() == [1.0, 1.0, 1.0, 0.0]


def test_selu_gradient_at_zero_is_gamma():
    x = Tensor.from_data(torch.zeros(1, dtype=torch.float64), AD).require_grad()
    grads = nn.Selu().forward(x).sum().backward()
    assert x.grad(grads).to_torch().item() == pytest.approx(1.0507009873554805, abs=1e-15)


def test_glu_rejects_an_odd_size():
    with pytest.raises(ValueError, match="even"):
        nn.GLU(-1).forward(Tensor.from_data(torch.zeros(2, 3), CPU))


@pytest.mark.parametrize("config, layer", [
    (nn.ActivationConfig.identity(), nn.Identity), (nn.ActivationConfig.selu(), nn.Selu),
    (nn.ActivationConfig.hard_swish(), nn.HardSwish), (nn.ActivationConfig.softsign(), nn.Softsign),
    (nn.ActivationConfig.hard_sigmoid(), nn.HardSigmoid), (nn.ActivationConfig.softplus(), nn.Softplus),
    (nn.ActivationConfig.elu(nn.EluConfig(0.3)), nn.Elu), (nn.ActivationConfig.celu(), nn.Celu),
    (nn.ActivationConfig.thresholded_relu(), nn.ThresholdedRelu),
    (nn.ActivationConfig.hard_shrink(), nn.HardShrink),
    (nn.ActivationConfig.soft_shrink(), nn.SoftShrink), (nn.ActivationConfig.shrink(), nn.Shrink),
    (nn.ActivationConfig.swiglu(nn.SwiGluConfig(3, 3)), nn.SwiGlu),
], ids=lambda v: getattr(v, "kind", ""))
def test_activation_config_builds_each_variant(config, layer):
    built = config.init(CPU)
    assert isinstance(built, layer)
    if config.config is not None and hasattr(config.config, "alpha") and layer is nn.Elu:
        assert built.alpha == 0.3


# -- from_torch_module converts the torch twins -----------------------------------------------------
@pytest.mark.parametrize("make", [
    lambda: torch.nn.ELU(0.3), lambda: torch.nn.CELU(2.0), lambda: torch.nn.SELU(),
    lambda: torch.nn.Hardshrink(0.2), lambda: torch.nn.Softshrink(0.4), torch.nn.Hardsigmoid,
    lambda: torch.nn.Hardtanh(-0.5, 2.0), lambda: torch.nn.Threshold(0.1, -3.0),
    lambda: torch.nn.GLU(1), torch.nn.Hardswish, torch.nn.ReLU6, torch.nn.LogSigmoid,
    torch.nn.Mish, torch.nn.SiLU, torch.nn.Softsign, torch.nn.Tanhshrink,
    lambda: torch.nn.Softplus(1.5), lambda: torch.nn.RReLU().eval(),
    lambda: torch.nn.InstanceNorm1d(4, affine=True), lambda: torch.nn.RMSNorm(6, eps=1e-6),
    lambda: torch.nn.LocalResponseNorm(3, alpha=0.5),
], ids=lambda m: "")
def test_from_torch_module_converts_the_torch_twin(make):
    from burn_torch.compat import from_torch_module
    reference = make()
    for p in reference.parameters():
        torch.nn.init.normal_(p)
    x = randn(2, 4, 6) * 2
    layer = from_torch_module(reference, CPU)
    close(layer.forward(Tensor.from_data(x, CPU)).to_torch(), reference(x), 1e-5)


@pytest.mark.parametrize("make", [lambda: torch.nn.LocalResponseNorm(2),
                                  lambda: torch.nn.InstanceNorm2d(3, track_running_stats=True),
                                  lambda: torch.nn.Softplus(threshold=5)],
                         ids=["lrn_even", "instance_norm_running_stats", "softplus_threshold"])
def test_from_torch_module_refuses_settings_burn_computes_differently(make):
    from burn_torch.compat import from_torch_module
    with pytest.raises(ValueError, match="no burn_torch counterpart"):
        from_torch_module(make(), CPU)
