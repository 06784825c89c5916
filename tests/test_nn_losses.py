"""Burn's losses against torch.nn.functional: the loss and the gradient of every Float input
equal within 1e-5 in float32 and 1e-10 in float64, for each reduction; Burn's defaults where
they differ from torch's (KLDivLoss's batch mean, TripletMarginLoss without eps, CTC's mean
over target lengths, CrossEntropyLoss's pad tokens counted in the mean)."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

import pytest
import torch
import torch.nn.functional as F

from burn_torch import Device, Tensor, activation, module_ops, nn
from burn_torch.nn import Reduction
from test_nn_layers import BURN_DTYPE, DTYPES, close, randn

CPU = Device.cpu()
AD = CPU.autodiff()
R = Reduction


def rand(*shape, dtype, lo=0.0, hi=1.0, seed=0):
    g = torch.Generator().manual_seed(seed)
    return torch.rand(*shape, generator=g, dtype=dtype) * (hi - lo) + lo


def signs(*shape, seed=0):
    g = torch.Generator().manual_seed(seed)
    return torch.randint(0, 2, shape, generator=g) * 2 - 1


@dataclass
class LossCase:
    """``burn(*tensors)`` and ``torch(*tensors)`` on ``inputs(dtype)`` (floats are tracked on
    both sides; anything else is passed as a constant)."""

    burn: Callable
    torch: Callable
    inputs: Callable
    constants: tuple = ()  # indices of float inputs neither side differentiates


TARGETS = torch.tensor([2, 0, 4, 1])
CTC_TARGETS = torch.tensor([[1, 2, 2], [3, 1, 0], [2, 0, 0]])
CTC_IN, CTC_TL = torch.tensor([6, 5, 4]), torch.tensor([3, 2, 1])


def _kl_inputs(dt):
    return [randn(4, 5, dtype=dt).log_softmax(-1), randn(4, 5, dtype=dt, seed=1).softmax(-1)]


def _ctc_inputs(dt):
    return [randn(6, 3, 4, dtype=dt), CTC_TARGETS, CTC_IN, CTC_TL]


def _ctc_burn(reduction):
    def fn(x, t, il, tl):
        loss = nn.CTCLossConfig().init()
        lp = activation.log_softmax(x, 2)
        return loss.forward(lp, t, il, tl) if reduction is None else \
            loss.forward_with_reduction(lp, t, il, tl, reduction)
    return fn


CASES = {
    "cosine_embedding": LossCase(
        lambda a, b, t: nn.CosineEmbeddingLossConfig(0.2).init().forward(a, b, t),
        lambda a, b, t: F.cosine_embedding_loss(a, b, t, margin=0.2),
        lambda dt: [randn(6, 5, dtype=dt), randn(6, 5, dtype=dt, seed=1), signs(6)]),
    "cosine_embedding_sum": LossCase(
        lambda a, b, t: nn.CosineEmbeddingLossConfig().with_reduction(R.SUM).init().forward(a, b, t),
        lambda a, b, t: F.cosine_embedding_loss(a, b, t, reduction="sum"),
        lambda dt: [randn(6, 5, dtype=dt), randn(6, 5, dtype=dt, seed=1), signs(6)]),
    "gaussian_nll": LossCase(
        lambda x, y, v: nn.GaussianNLLLossConfig().init().forward(x, y, v, R.MEAN),
        lambda x, y, v: F.gaussian_nll_loss(x, y, v),
        lambda dt: [randn(4, 3, dtype=dt), randn(4, 3, dtype=dt, seed=1),
                    rand(4, 3, dtype=dt, lo=0.1, hi=2.0)]),
    "gaussian_nll_full_sum": LossCase(
        lambda x, y, v: nn.GaussianNLLLossConfig().with_full(True).init().forward(x, y, v, R.SUM),
        lambda x, y, v: F.gaussian_nll_loss(x, y, v, full=True, reduction="sum"),
        lambda dt: [randn(4, 3, dtype=dt), randn(4, 3, dtype=dt, seed=1),
                    rand(4, 3, dtype=dt, lo=0.1, hi=2.0)]),
    "hinge_embedding": LossCase(
        lambda x, t: nn.HingeEmbeddingLossConfig(0.7).init().forward(x, t, R.MEAN),
        lambda x, t: F.hinge_embedding_loss(x, t, margin=0.7),
        lambda dt: [randn(5, 4, dtype=dt), signs(5, 4).to(dt)]),
    "kl_div_auto_is_batch_mean": LossCase(
        lambda p, t: nn.KLDivLossConfig().init().forward(p, t),
        lambda p, t: F.kl_div(p, t, reduction="batchmean"), _kl_inputs),
    "kl_div_mean": LossCase(
        lambda p, t: nn.KLDivLossConfig().init().forward(p, t, R.MEAN),
        lambda p, t: F.kl_div(p, t, reduction="mean"), _kl_inputs),
    "kl_div_log_target_sum": LossCase(
        lambda p, t: nn.KLDivLossConfig(True).init().forward(p, t.log(), R.SUM),
        lambda p, t: F.kl_div(p, t.log(), reduction="sum", log_target=True), _kl_inputs),
    "l1": LossCase(lambda x, y: nn.LpLossConfig.l1().forward(x, y, R.MEAN), F.l1_loss,
                   lambda dt: [randn(4, 5, dtype=dt), randn(4, 5, dtype=dt, seed=1)]),
    "l2_sum": LossCase(lambda x, y: nn.LpLossConfig.l2().forward(x, y, R.SUM),
                       lambda x, y: F.mse_loss(x, y, reduction="sum"),
                       lambda dt: [randn(4, 5, dtype=dt), randn(4, 5, dtype=dt, seed=1)]),
    "lp_3": LossCase(lambda x, y: nn.LpLossConfig(3.0).init().forward(x, y),
                     lambda x, y: (x - y).abs().pow(3).mean(),
                     lambda dt: [randn(4, 5, dtype=dt), randn(4, 5, dtype=dt, seed=1)]),
    "lp_reduce_dims": LossCase(
        lambda x, y: nn.LpLossConfig(1.5).init().forward_reduce_dims(x, y, [0, 2]),
        lambda x, y: (x - y).abs().pow(1.5).mean((0, 2), keepdim=True),
        lambda dt: [randn(3, 4, 5, dtype=dt), randn(3, 4, 5, dtype=dt, seed=1)]),
    "margin_ranking": LossCase(
        lambda a, b, t: nn.MarginRankingLossConfig(0.3).init().forward(a, b, t, R.MEAN),
        lambda a, b, t: F.margin_ranking_loss(a, b, t, margin=0.3),
        lambda dt: [randn(7, dtype=dt), randn(7, dtype=dt, seed=1), signs(7).to(dt)]),
    "multi_margin": LossCase(
        lambda x, t: nn.MultiMarginLossConfig().init().forward(x, t, R.MEAN),
        F.multi_margin_loss, lambda dt: [randn(4, 5, dtype=dt), TARGETS]),
    "multi_margin_p2_sum": LossCase(
        lambda x, t: nn.MultiMarginLossConfig(0.5, 2).init().forward(x, t, R.SUM),
        lambda x, t: F.multi_margin_loss(x, t, p=2, margin=0.5, reduction="sum"),
        lambda dt: [randn(4, 5, dtype=dt), TARGETS]),
    "poisson_nll": LossCase(
        lambda x, t: nn.PoissonNllLossConfig().init().forward(x, t, R.MEAN),
        F.poisson_nll_loss,
        lambda dt: [randn(4, 5, dtype=dt), rand(4, 5, dtype=dt, hi=4.0)]),
    "poisson_nll_full_no_log": LossCase(
        lambda x, t: nn.PoissonNllLossConfig(False, True).init().forward(x, t, R.SUM),
        lambda x, t: F.poisson_nll_loss(x, t, log_input=False, full=True, eps=1e-8,
                                        reduction="sum"),
        lambda dt: [rand(4, 5, dtype=dt, lo=0.1, hi=3.0), rand(4, 5, dtype=dt, hi=4.0, seed=1)]),
    "smooth_l1": LossCase(
        lambda x, y: nn.SmoothL1LossConfig(0.5).init().forward_with_reduction(x, y, R.MEAN),
        lambda x, y: F.smooth_l1_loss(x, y, beta=0.5),
        lambda dt: [randn(4, 5, dtype=dt), randn(4, 5, dtype=dt, seed=1)]),
    "smooth_l1_no_reduction": LossCase(
        lambda x, y: nn.SmoothL1LossConfig().init().forward(x, y),
        lambda x, y: F.smooth_l1_loss(x, y, reduction="none"),
        lambda dt: [randn(4, 5, dtype=dt), randn(4, 5, dtype=dt, seed=1)]),
    "soft_margin": LossCase(
        lambda x, t: nn.SoftMarginLoss().forward(x, t, R.MEAN), F.soft_margin_loss,
        lambda dt: [randn(4, 5, dtype=dt), signs(4, 5).to(dt)], constants=(1,)),
    "triplet_margin": LossCase(
        lambda a, p, n: nn.TripletMarginLossConfig().init().forward(a, p, n, R.MEAN),
        lambda a, p, n: F.triplet_margin_loss(a, p, n, eps=0.0),
        lambda dt: [randn(6, 4, dtype=dt), randn(6, 4, dtype=dt, seed=1), randn(6, 4, dtype=dt, seed=2)]),
    "triplet_margin_p1_sum": LossCase(
        lambda a, p, n: nn.TripletMarginLossConfig(2.0, 1.0).init().forward(a, p, n, R.SUM),
        lambda a, p, n: F.triplet_margin_loss(a, p, n, margin=2.0, p=1, eps=0.0, reduction="sum"),
        lambda dt: [randn(6, 4, dtype=dt), randn(6, 4, dtype=dt, seed=1), randn(6, 4, dtype=dt, seed=2)]),
    "ctc_per_sample": LossCase(
        _ctc_burn(None),
        lambda x, t, il, tl: F.ctc_loss(x.log_softmax(2), t, il, tl, reduction="none"), _ctc_inputs),
    "ctc_mean": LossCase(
        _ctc_burn(R.MEAN),
        lambda x, t, il, tl: F.ctc_loss(x.log_softmax(2), t, il, tl, reduction="mean"), _ctc_inputs),
    "ctc_sum": LossCase(
        _ctc_burn(R.SUM),
        lambda x, t, il, tl: F.ctc_loss(x.log_softmax(2), t, il, tl, reduction="sum"), _ctc_inputs),
    "cosine_similarity": LossCase(
        lambda a, b: nn.CosineSimilarityConfig().init().forward(a, b),
        lambda a, b: F.cosine_similarity(a, b, 1, 1e-8),
        lambda dt: [randn(5, 4, dtype=dt), randn(5, 4, dtype=dt, seed=1)]),
    "pairwise_distance": LossCase(
        lambda a, b: nn.PairwiseDistanceConfig().init().forward(a, b),
        lambda a, b: F.pairwise_distance(a, b),
        lambda dt: [randn(5, 4, dtype=dt), randn(5, 4, dtype=dt, seed=1)]),
    "pairwise_distance_p3": LossCase(
        lambda a, b: nn.PairwiseDistanceConfig(3.0, 1e-3).init().forward(a, b),
        lambda a, b: F.pairwise_distance(a, b, p=3.0, eps=1e-3),
        lambda dt: [randn(5, 4, dtype=dt), randn(5, 4, dtype=dt, seed=1)]),
}


@pytest.mark.parametrize("dtype, tol", DTYPES)
@pytest.mark.parametrize("name", list(CASES))
def test_loss_and_gradients_equal_torch(name, dtype, tol):
    case = CASES[name]
    raw = case.inputs(dtype)
    tracked = [x.is_floating_point() and i not in case.constants for i, x in enumerate(raw)]
    xs_t = [x.clone().requires_grad_(True) if t else x for x, t in zip(raw, tracked)]
    xs_b = [Tensor.from_data(x, AD) for x in raw]
    xs_b = [x.require_grad() if t else x for x, t in zip(xs_b, tracked)]
    out_t = case.torch(*xs_t)
    out_b = case.burn(*xs_b)
    assert out_b.dtype() == BURN_DTYPE[dtype]
    close(out_b.to_torch().reshape(out_t.shape), out_t.detach(), tol)
    cot = randn(out_t.numel(), dtype=dtype, seed=9).reshape(out_t.shape)
    (out_t * cot).sum().backward()
    grads = (out_b * Tensor.from_data(cot.reshape(out_b.dims()), AD)).sum().backward()
    for xt, xb, t in zip(xs_t, xs_b, tracked):
        if not t:
            continue
        grad = xb.grad(grads)
        if xt.grad is None:  # no path from this input to the loss (a mask's operand)
            assert grad is None or not grad.to_torch().any()
        else:
            close(grad.to_torch(), xt.grad, tol)


# -- Burn's semantics where torch differs ----------------------------------------------------------
LOGITS = randn(5, 4, dtype=torch.float64)


def ce(config, targets, logits=LOGITS):
    x = Tensor.from_data(logits, AD).require_grad()
    loss = config.init(AD).forward(x, Tensor.from_data(targets, CPU))
    return loss, x.grad(loss.backward()).to_torch()


@pytest.mark.parametrize("pad", [-1, -100])
def test_cross_entropy_takes_a_pad_token_that_is_not_a_class(pad):
    targets = torch.tensor([1, pad, 3, 0, pad])
    loss, grad = ce(nn.CrossEntropyLossConfig().with_pad_tokens((pad,)), targets)
    x = LOGITS.clone().requires_grad_()
    ref = F.cross_entropy(x, targets, ignore_index=pad, reduction="sum") / 5
    ref.backward()
    assert loss.into_scalar() == pytest.approx(ref.item(), rel=1e-12)
    torch.testing.assert_close(grad, x.grad, rtol=1e-10, atol=1e-12)


def test_cross_entropy_padded_rows_count_in_the_mean_as_burn():
    targets = torch.tensor([1, 2, 3, 0, 2])
    loss, _ = ce(nn.CrossEntropyLossConfig().with_pad_tokens((2,)), targets)
    kept = F.cross_entropy(LOGITS, targets, ignore_index=2, reduction="sum")
    assert loss.into_scalar() == pytest.approx(kept.item() / 5, rel=1e-12)


def test_cross_entropy_weighted_padding_divides_by_every_rows_class_weight():
    weights = (1.0, 2.0, 0.5, 3.0)
    targets = torch.tensor([1, 2, -1, 0, 3])
    config = nn.CrossEntropyLossConfig().with_pad_tokens((2, -1)).with_weights(weights)
    loss, _ = ce(config, targets)
    w = torch.tensor(weights, dtype=torch.float64)
    log_p = LOGITS.log_softmax(1)
    kept = [0, 3, 4]
    num = -sum(w[targets[i]] * log_p[i, targets[i]] for i in kept)
    den = w[1] + w[2] + 0.0 + w[0] + w[3]  # the -1 row weighs 0; the class-2 pad row its weight
    assert loss.into_scalar() == pytest.approx((num / den).item(), rel=1e-12)


def test_kl_div_auto_reduction_is_the_batch_mean():
    p, t = _kl_inputs(torch.float64)
    got = nn.KLDivLossConfig().init().forward(Tensor.from_data(p, CPU), Tensor.from_data(t, CPU))
    assert got.into_scalar() == pytest.approx(F.kl_div(p, t, reduction="sum").item() / 4, rel=1e-12)


def test_triplet_margin_has_no_epsilon_unlike_torchs_default():
    a, p, n = randn(3, 4), randn(3, 4, seed=1), randn(3, 4, seed=2)
    got = nn.TripletMarginLossConfig().init().forward(
        *(Tensor.from_data(t.double(), CPU) for t in (a, p, n)), R.SUM).into_scalar()
    ref = F.triplet_margin_loss(a.double(), p.double(), n.double(), eps=0.0, reduction="sum")
    assert got == pytest.approx(ref.item(), rel=1e-12)


def test_ctc_zero_infinity_gives_zero_loss_and_gradient_for_an_unreachable_target():
    x = Tensor.from_data(randn(3, 2, 4, dtype=torch.float64), AD).require_grad()
    targets = Tensor.from_data(torch.tensor([[1, 1, 2], [1, 2, 0]]), CPU)
    lengths = Tensor.from_data(torch.tensor([3, 3]), CPU)
    target_lengths = Tensor.from_data(torch.tensor([3, 1]), CPU)
    lp = activation.log_softmax(x, 2)
    plain = nn.CTCLossConfig().init().forward(lp, targets, lengths, target_lengths).to_torch()
    assert plain[0].item() == float("inf")
    loss = nn.CTCLossConfig().with_zero_infinity(True).init().forward(lp, targets, lengths,
                                                                     target_lengths)
    assert loss.to_torch()[0].item() == 0.0
    grad = x.grad(loss.sum().backward()).to_torch()
    assert torch.equal(grad[:, 0], torch.zeros(3, 4, dtype=torch.float64))
    assert grad[:, 1].abs().sum() > 0


def test_ctc_rejects_a_target_longer_than_its_input():
    lp = Tensor.from_data(randn(2, 1, 3), CPU)
    with pytest.raises(ValueError, match="target length"):
        module_ops.ctc_loss(lp, Tensor.from_data(torch.tensor([[1, 2, 1]]), CPU),
                            Tensor.from_data(torch.tensor([2]), CPU),
                            Tensor.from_data(torch.tensor([3]), CPU), 0)


def test_reduction_batch_mean_is_refused_outside_kl_div():
    x = Tensor.from_data(randn(3), CPU)
    with pytest.raises(ValueError, match="not supported"):
        nn.LpLossConfig.l1().forward(x, x, R.BATCH_MEAN)


@pytest.mark.parametrize("config, message", [
    (lambda: nn.LpLossConfig(0.0), "positive"), (lambda: nn.MarginRankingLossConfig(-1.0), "non-negative"),
    (lambda: nn.MultiMarginLossConfig(1.0, 3), "p = 1 or p = 2"),
    (lambda: nn.PoissonNllLossConfig().with_eps(0.0), "eps"),
    (lambda: nn.SmoothL1LossConfig(0.0), "beta"), (lambda: nn.GaussianNoiseConfig(-1.0), "non-negative"),
])
def test_configs_reject_what_burn_asserts_against(config, message):
    with pytest.raises(ValueError, match=message):
        config().init()


def test_poisson_nll_rejects_negative_targets():
    x = Tensor.from_data(torch.zeros(3), CPU)
    with pytest.raises(ValueError, match="non-negative"):
        nn.PoissonNllLossConfig().init().forward(x, x - 1.0)


def test_configs_have_burns_defaults():
    assert (nn.CosineEmbeddingLossConfig().margin, nn.CosineEmbeddingLossConfig().reduction) == (0.0, R.MEAN)
    assert (nn.GaussianNLLLossConfig().eps, nn.GaussianNLLLossConfig().full) == (1e-6, False)
    assert nn.HingeEmbeddingLossConfig().margin == 1.0 and nn.KLDivLossConfig().log_target is False
    assert nn.MarginRankingLossConfig().margin == 0.0
    assert (nn.MultiMarginLossConfig().margin, nn.MultiMarginLossConfig().p) == (1.0, 1)
    p = nn.PoissonNllLossConfig()
    assert (p.log_input, p.full, p.eps) == (True, False, 1e-8)
    assert nn.SmoothL1LossConfig().beta == 1.0
    assert (nn.TripletMarginLossConfig().margin, nn.TripletMarginLossConfig().p) == (1.0, 2.0)
    assert (nn.CTCLossConfig().blank, nn.CTCLossConfig().zero_infinity) == (0, False)
    assert (nn.CosineSimilarityConfig().dim, nn.CosineSimilarityConfig().eps) == (1, 1e-8)
    assert (nn.PairwiseDistanceConfig().p, nn.PairwiseDistanceConfig().eps) == (2.0, 1e-6)


def test_gaussian_noise_adds_noise_only_on_an_autodiff_device():
    x = randn(200, 50, dtype=torch.float64)
    layer = nn.GaussianNoiseConfig(0.5).init()
    assert torch.equal(layer.forward(Tensor.from_data(x, CPU)).to_torch(), x)
    xb = Tensor.from_data(x, AD).require_grad()
    AD.seed(0)
    out = layer.forward(xb)
    noise = out.to_torch() - x
    assert abs(noise.std().item() - 0.5) < 0.02 and abs(noise.mean().item()) < 0.02
    grads = out.sum().backward()
    assert torch.equal(xb.grad(grads).to_torch(), torch.ones_like(x))
    assert torch.equal(nn.GaussianNoiseConfig(0.0).init().forward(xb).to_torch(), x)


# -- RNN-T: no torch kernel (torchaudio's is not a dependency): Graves' recursion node by node ----
def _rnnt_inputs(dt):
    return [randn(3, 4, 4, 5, dtype=dt), RNNT_TARGETS, RNNT_LOGIT_LENGTHS, RNNT_TARGET_LENGTHS]


from spec.loss import (RNNT_LOGIT_LENGTHS, RNNT_TARGET_LENGTHS, RNNT_TARGETS,  # noqa: E402
                       rnnt_reference)

RNNT_CASES = {
    "rnnt_per_sample": LossCase(
        lambda x, t, tl, ul: nn.RNNTLossConfig().init().forward(x, t, tl, ul),
        lambda x, t, tl, ul: rnnt_reference(x.log_softmax(3), t, tl, ul), _rnnt_inputs),
    "rnnt_log_probs_sum": LossCase(
        lambda x, t, tl, ul: nn.RNNTLossConfig(2, False).init().forward_with_reduction(
            activation.log_softmax(x, 3), t, tl, ul, R.SUM),
        lambda x, t, tl, ul: rnnt_reference(x.log_softmax(3), t, tl, ul, blank=2).sum(),
        _rnnt_inputs),
    "rnnt_mean": LossCase(
        lambda x, t, tl, ul: nn.RNNTLossConfig().init().forward_with_reduction(x, t, tl, ul),
        lambda x, t, tl, ul: rnnt_reference(x.log_softmax(3), t, tl, ul).mean(), _rnnt_inputs),
}
CASES.update(RNNT_CASES)


@pytest.mark.parametrize("dtype, tol", DTYPES)
@pytest.mark.parametrize("name", list(RNNT_CASES))
def test_rnnt_loss_and_gradients_equal_graves_recursion(name, dtype, tol):
    test_loss_and_gradients_equal_torch(name, dtype, tol)


def test_rnnt_rejects_a_blank_outside_the_vocabulary():
    x, t, tl, ul = (Tensor.from_data(v, CPU) for v in _rnnt_inputs(torch.float64))
    with pytest.raises(ValueError, match="blank index"):
        nn.RNNTLossConfig(5).init().forward(x, t, tl, ul)
