"""The fused cross-entropy step ``nn.CrossEntropyLoss`` records for plain logits and class
indices (op ``cross_entropy``): its values and gradients equal the composed form
(``log_softmax`` + ``gather`` + ``mean``) and torch autograd's; with weights or smoothing the
loss takes the composed path instead."""
from __future__ import annotations

import numpy as np
import torch
from hypothesis import given, settings
from hypothesis import strategies as st

from burn_torch import Device, Tensor, nn
from burn_torch.activation import log_softmax
from burn_torch.testing import assert_grads_match_torch, check_grads_numerically, covers

AD = Device.cpu().autodiff()
LOSS = nn.CrossEntropyLossConfig().init(AD)


def _case(seed: int, batch: int, classes: int):
    rng = np.random.default_rng(seed)
    logits = rng.normal(size=(batch, classes)) * 2
    targets = rng.integers(0, classes, size=batch)
    return logits, targets


@covers("cross_entropy")
@settings(deadline=None, max_examples=30)
@given(seed=st.integers(0, 2**16), batch=st.integers(1, 6), classes=st.integers(1, 7))
def test_cross_entropy_gradients_match_torch_autograd(seed, batch, classes):
    logits, targets = _case(seed, batch, classes)
    assert_grads_match_torch(lambda x, t: LOSS.forward(x, t), logits, targets)


def test_cross_entropy_gradients_match_finite_differences():
    logits, targets = _case(3, 4, 5)
    check_grads_numerically(lambda x, t: LOSS.forward(x, t), logits, targets)


def test_cross_entropy_equals_torch_functional_cross_entropy():
    logits, targets = _case(7, 5, 4)
    got = LOSS.forward(Tensor.from_data(logits, AD), Tensor.from_data(targets, AD))
    want = torch.nn.functional.cross_entropy(torch.from_numpy(logits), torch.from_numpy(targets))
    assert got.dims() == [1]
    assert abs(got.into_scalar() - want.item()) < 1e-12


def test_cross_entropy_records_one_fused_step_with_the_composed_gradient():
    logits, targets = _case(11, 6, 3)
    x = Tensor.from_data(logits, AD).require_grad()
    t = Tensor.from_data(targets, AD)
    fused = LOSS.forward(x, t)
    assert fused._node.op.name == "cross_entropy"
    composed = log_softmax(x, 1).gather(1, t.reshape([6, 1])).mean().neg()
    assert abs(fused.into_scalar() - composed.into_scalar()) < 1e-12
    g_fused = x.grad(fused.backward()).to_torch()
    g_composed = x.grad(composed.backward()).to_torch()
    assert torch.allclose(g_fused, g_composed, rtol=1e-12, atol=1e-14)


def test_weighted_cross_entropy_takes_the_composed_path():
    logits, targets = _case(5, 4, 3)
    weighted = nn.CrossEntropyLossConfig().with_weights([1.0, 2.0, 0.5]).init(AD)
    x = Tensor.from_data(logits, AD).require_grad()
    out = weighted.forward(x, Tensor.from_data(targets, AD))
    assert out._node.op.name != "cross_entropy"
    assert_grads_match_torch(lambda v, t: weighted.forward(v, t), logits, targets)
