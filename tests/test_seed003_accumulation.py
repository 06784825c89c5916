"""Seed 003's main-line experiment: gradient accumulation on a 4 -> 8 -> 3 MLP with cross entropy.

A batch of 4 rows is split into two halves of 2 rows, each half's loss divided by 2. PyTorch
accumulates by not calling ``zero_grad`` between the two backwards; burn_torch sums fresh
``GradientsParams`` with a ``GradientsAccumulator``. The seed compares four pairs, per parameter
(weights turned back to ``[out, in]``), with tolerance 1e-6: full_pt vs full_burn, acc_pt vs
acc_burn, full_pt vs acc_pt and full_burn vs acc_burn.
"""
from __future__ import annotations

import pytest
import torch

from burn_torch import Tensor, nn
from burn_torch.optim import GradientsAccumulator, GradientsParams
from helpers import CPU, Mlp, TorchMlp

TOL = 1e-6


@pytest.fixture(scope="module")
def experiment():
    CPU.seed(3)
    model = Mlp(CPU).train()
    g = torch.Generator().manual_seed(3)
    x_t = torch.randn(4, 4, generator=g)
    y_t = torch.tensor([0, 2, 1, 2])

    # PyTorch side: same weights, torch.nn layout [out, in]
    pt = TorchMlp()
    with torch.no_grad():
        for layer, burn in ((pt.fc1, model.fc1), (pt.fc2, model.fc2)):
            layer.weight.copy_(burn.weight.val().to_torch().t())
            layer.bias.copy_(burn.bias.val().to_torch())
    names = dict(pt.named_parameters())
    ce_pt = torch.nn.functional.cross_entropy

    def pt_grads():
        return {n: p.grad.detach().clone() for n, p in names.items()}

    pt.zero_grad()
    ce_pt(pt(x_t), y_t).backward()
    full_pt = pt_grads()
    pt.zero_grad()
    for part in (slice(0, 2), slice(2, 4)):
        (ce_pt(pt(x_t[part]), y_t[part]) / 2).backward()
    acc_pt = pt_grads()

    # burn_torch side
    ce = nn.CrossEntropyLossConfig().init(CPU)
    x = Tensor.from_data(x_t, CPU)
    y = Tensor.from_data(y_t, CPU)

    def burn_grads(gp: GradientsParams):
        out = {}
        for name, p in model.named_params():
            g = gp.get(p.id).to_torch()
            out[name] = g.t() if name.endswith("weight") else g
        return out

    full_burn = burn_grads(GradientsParams.from_grads(ce.forward(model.forward(x), y).backward(), model))
    acc = GradientsAccumulator()
    for part in (slice(0, 2), slice(2, 4)):
        loss = ce.forward(model.forward(x.slice([part])), y.slice([part])) / 2.0
        acc.accumulate(model, GradientsParams.from_grads(loss.backward(), model))
    acc_burn = burn_grads(acc.grads())
    assert len(acc) == 0  # grads() handed the sum over and emptied the accumulator
    return {"full_pt": full_pt, "acc_pt": acc_pt, "full_burn": full_burn, "acc_burn": acc_burn}


@pytest.mark.parametrize("left, right", [("full_pt", "full_burn"), ("acc_pt", "acc_burn"),
                                         ("full_pt", "acc_pt"), ("full_burn", "acc_burn")])
def test_gradients_agree_within_seed_tolerance(experiment, left, right):
    a, b = experiment[left], experiment[right]
    assert a.keys() == b.keys() == {"fc1.weight", "fc1.bias", "fc2.weight", "fc2.bias"}
    for name in a:
        assert a[name].shape == b[name].shape, name
        worst = (a[name] - b[name]).abs().max().item()
        assert worst <= TOL, f"{left} vs {right}, {name}: max|diff| = {worst:.3g}"
    assert max(g.abs().max().item() for g in a.values()) > 1e-3  # gradients are not trivially zero
