"""Muon's learning-rate adjustment reads the parameter's shape in Burn's layout."""
import torch

from burn_torch import Device, Tensor
from burn_torch.module import Module, Param
from burn_torch.optim import GradientsParams, MuonConfig

ID = "muon_lr_layout"
TITLE = "`Muon` scales the rate by the shape of Burn's `[d_input, d_output]` weight"
CATEGORY = "training"
SEVERITY = "silent"
DETECTORS = ("torch_muon_call",)
WHAT = "a ported Linear weight is [in, out] in Burn: Muon's sqrt(max(1, rows / cols)) differs"
WHY = """Muon multiplies the learning rate by `sqrt(max(1, rows / cols))` (`AdjustLrFn::Original`)
of the parameter as stored. `torch.nn.Linear` stores `[out, in]`, Burn's `Linear` `[d_input,
d_output]`: the same layer gets another factor (a 16 -> 4 layer: 1 in torch, 2 in Burn) and
trains at another effective rate without any error. `torch.optim.Muon` also defaults
`weight_decay` to 0.1 (Burn: none) and runs its Newton-Schulz iteration in bfloat16 (Burn: in
the parameter's dtype)."""
RECIPE = "MuonConfig().with_weight_decay(WeightDecayConfig(0.1)); lr * sqrt(max(1, out/in) / max(1, in/out))"


def torch_side():
    w = torch.nn.Parameter(torch.ones(4, 16))       # torch.nn.Linear(16, 4).weight: [out, in]
    opt = torch.optim.Muon([w], lr=0.1, weight_decay=0.0)
    w.grad = torch.eye(4, 16)
    opt.step()
    round(float(1 - w[0, 0]), 2)


def burn_literal():
    class Layer(Module):
        def __init__(self, device):
            super().__init__()
            self.weight = Param(Tensor.ones([16, 4], device))   # Burn's Linear(16, 4): [in, out]

    device = Device.cpu().autodiff()
    layer = Layer(device)
    grads = (layer.weight.val() * Tensor.from_data(torch.eye(16, 4), device)).sum().backward()
    layer = MuonConfig().init().step(0.1, layer, GradientsParams.from_grads(grads, layer))
    round(float(1 - layer.weight.val().to_torch()[0, 0]), 2)


def burn_side():
    class Layer(Module):
        def __init__(self, device):
            super().__init__()
            self.weight = Param(Tensor.ones([16, 4], device))

    device = Device.cpu().autodiff()
    layer = Layer(device)
    grads = (layer.weight.val() * Tensor.from_data(torch.eye(16, 4), device)).sum().backward()
    lr = 0.1 * 1.0 / 2.0  # torch's factor sqrt(max(1, 4/16)) over Burn's sqrt(max(1, 16/4))
    layer = MuonConfig().init().step(lr, layer, GradientsParams.from_grads(grads, layer))
    round(float(1 - layer.weight.val().to_torch()[0, 0]), 2)


TORCH = {"round(float(1 - w[0, 0]), 2)": 0.08}
LITERAL = {"round(float(1 - layer.weight.val().to_torch()[0, 0]), 2)": 0.15}
BURN = {"round(float(1 - layer.weight.val().to_torch()[0, 0]), 2)": 0.08}
