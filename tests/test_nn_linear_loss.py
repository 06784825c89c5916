"""burn_torch.nn's first layers: Initializer, Linear, MseLoss and CrossEntropyLoss against torch."""
from __future__ import annotations

import math

import pytest
import torch
import torch.nn.functional as F

from burn_torch import DType, Device, Tensor, nn
from burn_torch.nn import CrossEntropyLossConfig, Initializer, LinearConfig, MseLoss, Reduction

CPU = Device.cpu()
AD = CPU.autodiff()
G = torch.Generator().manual_seed(0)
LOGITS = torch.randn(5, 4, generator=G, dtype=torch.float64)
TARGETS = torch.tensor([0, 3, 1, 3, 2])


# ----------------------------------------------------------------------------- initializer ----
def test_linear_default_initializer_is_burns_kaiming_uniform():
    assert LinearConfig(5, 5).initializer == Initializer.kaiming_uniform(1 / math.sqrt(3), False)
    CPU.seed(0)
    layer = LinearConfig(16, 64).init(CPU)
    bound = 1 / math.sqrt(16)
    for p in (layer.weight, layer.bias):
        v = p.val().to_torch()
        assert v.abs().max().item() <= bound and v.abs().max().item() > 0.8 * bound


def test_seeding_the_device_makes_initialization_reproducible():
    CPU.seed(7)
    a = LinearConfig(3, 2).init(CPU).weight.val().to_torch()
    CPU.seed(7)
    assert torch.equal(a, LinearConfig(3, 2).init(CPU).weight.val().to_torch())


@pytest.mark.parametrize("init, expected", [(Initializer.zeros(), 0.0), (Initializer.ones(), 1.0),
                                            (Initializer.constant(2.5), 2.5)])
def test_constant_initializers(init, expected):
    assert init.init([2, 2], CPU).val().to_data().to_list() == [[expected] * 2] * 2


def test_uniform_and_normal_initializers_draw_from_their_distribution():
    CPU.seed(1)
    u = Initializer.uniform(-2.0, -1.0).init([4000], CPU).val().to_torch()
    n = Initializer.normal(3.0, 0.5).init([4000], CPU, DType.F64).val().to_torch()
    assert -2.0 <= u.min().item() and u.max().item() < -1.0
    assert n.dtype == torch.float64 and abs(n.mean().item() - 3.0) < 0.05 and abs(n.std().item() - 0.5) < 0.05


@pytest.mark.parametrize("init, bound", [
    (Initializer.kaiming_uniform(2.0), 2.0 * math.sqrt(3.0 / 5)),
    (Initializer.kaiming_uniform(2.0, fan_out_only=True), 2.0 * math.sqrt(3.0 / 6)),
    (Initializer.xavier_uniform(2.0), 2.0 * math.sqrt(6.0 / 11)),
])
def test_fan_based_uniform_bounds(init, bound):
    CPU.seed(2)
    v = init.init_with([6, 5], 5, 6, CPU).val().to_torch()
    assert v.abs().max().item() <= bound and v.abs().max().item() > 0.8 * bound


def test_fan_based_normal_std():
    CPU.seed(3)
    v = Initializer.kaiming_normal(2.0).init_with([100, 100], 100, 10, CPU, DType.F64).val().to_torch()
    x = Initializer.xavier_normal(1.0).init_with([100, 100], 100, 10, CPU, DType.F64).val().to_torch()
    assert abs(v.std().item() - 0.2) < 0.01 and abs(x.std().item() - math.sqrt(2 / 110)) < 0.01


def test_fan_based_initializers_need_their_fans():
    with pytest.raises(ValueError, match="Kaiming initialization needs the fan"):
        Initializer.kaiming_uniform(1.0).init([2, 2], CPU)
    with pytest.raises(ValueError, match="Xavier initialization needs fan_in and fan_out"):
        Initializer.xavier_normal(1.0).init_with([2, 2], 2, None, CPU)


# ---------------------------------------------------------------------------------- linear ----
def test_linear_has_burns_fields_and_layout():
    layer = LinearConfig(3, 5).init(CPU)
    assert layer.weight.val().dims() == [3, 5] and layer.bias.val().dims() == [5]
    assert LinearConfig(3, 5).with_bias(False).init(CPU).bias is None
    assert repr(layer) == "Linear {d_input: 3, d_output: 5, bias: True, params: 20}"


@pytest.mark.parametrize("shape", [[4], [2, 4], [2, 3, 4]])
def test_linear_forward_matches_torch_linear_for_any_rank(shape):
    layer = LinearConfig(4, 3).init(CPU)
    x = torch.randn(*shape, generator=G)
    out = layer.forward(Tensor.from_data(x, CPU)).to_torch()
    ref = F.linear(x, layer.weight.val().to_torch().t(), layer.bias.val().to_torch())
    torch.testing.assert_close(out, ref)


@pytest.mark.parametrize("shape", [[4], [2, 4], [2, 3, 4]])
def test_linear_gradients_match_torch(shape):
    layer = LinearConfig(4, 3).init(AD)
    x = torch.randn(*shape, generator=G)
    grads = layer.forward(Tensor.from_data(x, CPU)).square().sum().backward()
    w = layer.weight.val().to_torch().t().clone().requires_grad_()
    b = layer.bias.val().to_torch().clone().requires_grad_()
    F.linear(x, w, b).square().sum().backward()
    torch.testing.assert_close(layer.weight.val().grad(grads).to_torch(), w.grad.t())
    torch.testing.assert_close(layer.bias.val().grad(grads).to_torch(), b.grad)


# ------------------------------------------------------------------------------------ losses ----
def test_mse_loss_matches_torch_for_each_reduction():
    a = torch.randn(3, 2, generator=G, dtype=torch.float64)
    b = torch.randn(3, 2, generator=G, dtype=torch.float64)
    loss = MseLoss()
    for reduction, name in ((Reduction.MEAN, "mean"), (Reduction.AUTO, "mean"), (Reduction.SUM, "sum")):
        got = loss.forward(Tensor.from_data(a, CPU), Tensor.from_data(b, CPU), reduction)
        assert got.dims() == [1]
        assert got.into_scalar() == pytest.approx(F.mse_loss(a, b, reduction=name).item(), rel=1e-12)
    with pytest.raises(ValueError, match=r"logits shape \[3, 2\] != targets shape \[2\]"):
        loss.forward(Tensor.from_data(a, CPU), Tensor.zeros([2], CPU))


def test_mse_loss_is_one_step_and_composes_burns_ops_for_mixed_dtypes():
    """One ``mse_loss`` step for a mean or sum over same-dtype tensors; logits and targets of
    different float dtypes take Burn's composed ops (``sub`` promotes), with the same value."""
    a = torch.randn(3, 2, generator=G, dtype=torch.float64)
    b = torch.randn(3, 2, generator=G, dtype=torch.float64)
    x = Tensor.from_data(a, AD).require_grad()
    assert MseLoss().forward(x, Tensor.from_data(b, AD))._node.op.name == "mse_loss"
    mixed = MseLoss().forward(x, Tensor.from_data(b.float(), AD))
    assert mixed._node.op.name == "mean"
    assert mixed.into_scalar() == pytest.approx(F.mse_loss(a, b.float().double()).item(), rel=1e-12)
    with pytest.raises(ValueError, match="not supported"):
        MseLoss().forward(x, Tensor.from_data(b, AD), Reduction.BATCH_MEAN)


def burn_ce(config: CrossEntropyLossConfig, inputs=LOGITS):
    x = Tensor.from_data(inputs, AD).require_grad()
    loss = config.init(AD).forward(x, Tensor.from_data(TARGETS, CPU))
    return loss, x.grad(loss.backward()).to_torch()


def torch_ce(fn, inputs=LOGITS):
    x = inputs.clone().requires_grad_()
    loss = fn(x)
    loss.backward()
    return loss.detach(), x.grad


WEIGHTS = (1.0, 2.0, 0.5, 3.0)


@pytest.mark.parametrize("config, reference", [
    (CrossEntropyLossConfig(), lambda x: F.cross_entropy(x, TARGETS)),
    (CrossEntropyLossConfig().with_weights(WEIGHTS),
     lambda x: F.cross_entropy(x, TARGETS, weight=torch.tensor(WEIGHTS, dtype=torch.float64))),
    (CrossEntropyLossConfig().with_smoothing(0.1), lambda x: F.cross_entropy(x, TARGETS, label_smoothing=0.1)),
    (CrossEntropyLossConfig().with_smoothing(0.2).with_weights(WEIGHTS),
     lambda x: F.cross_entropy(x, TARGETS, weight=torch.tensor(WEIGHTS, dtype=torch.float64), label_smoothing=0.2)),
    # Burn: padded rows add 0 and still count in the mean's denominator (torch's ignore_index
    # leaves them out of it)
    (CrossEntropyLossConfig().with_pad_tokens((3,)),
     lambda x: F.cross_entropy(x, TARGETS, ignore_index=3, reduction="sum") / len(TARGETS)),
], ids=["plain", "weights", "smoothing", "smoothing_weights", "pad_token"])
def test_cross_entropy_matches_torch_loss_and_gradient(config, reference):
    loss, grad = burn_ce(config)
    ref_loss, ref_grad = torch_ce(reference)
    assert loss.dims() == [1]
    assert loss.into_scalar() == pytest.approx(ref_loss.item(), rel=1e-12)
    torch.testing.assert_close(grad, ref_grad, rtol=1e-10, atol=1e-12)


def test_cross_entropy_on_probabilities():
    probs = torch.softmax(LOGITS, 1)
    loss, grad = burn_ce(CrossEntropyLossConfig().with_logits(False), probs)
    ref_loss, ref_grad = torch_ce(lambda p: F.nll_loss(p.log(), TARGETS), probs)
    assert loss.into_scalar() == pytest.approx(ref_loss.item(), rel=1e-12)
    torch.testing.assert_close(grad, ref_grad)


def test_cross_entropy_checks_its_inputs():
    ce = CrossEntropyLossConfig().init(CPU)
    with pytest.raises(TypeError, match="targets must be class indices"):
        ce.forward(Tensor.zeros([2, 3], CPU), Tensor.zeros([2], CPU))
    with pytest.raises(ValueError, match=r"got \[2, 3\] and \[3\]"):
        ce.forward(Tensor.zeros([2, 3], CPU), Tensor.from_ints([0, 1, 2], CPU))
    with pytest.raises(ValueError, match="should be in interval"):
        CrossEntropyLossConfig().with_smoothing(1.5).init(CPU)
    with pytest.raises(ValueError, match="have to be positive"):
        CrossEntropyLossConfig().with_weights((1.0, 0.0)).init(CPU)


def test_activations_are_re_exported():
    from burn_torch import activation
    assert all(getattr(nn, name) is getattr(activation, name) for name in activation.__all__)
