"""Burn's optimizer defaults differ from PyTorch's (epsilon 1e-5, ...)."""
import torch

from burn_torch import Device, Tensor, nn
from burn_torch.nn import Initializer
from burn_torch.optim import AdamConfig, GradientsParams

ID = "optimizer_defaults"
TITLE = "Optimizer defaults are Burn's (Adam's epsilon is 1e-5)"
CATEGORY = "training"
SEVERITY = "silent"
DETECTORS = ("torch_optimizer_call",)
WHAT = "AdamConfig() defaults to epsilon=1e-5 (PyTorch 1e-8); other optimizers' defaults differ too"
WHY = """The optimizer configs carry Burn's defaults, not PyTorch's: Adam and AdamW use
`epsilon = 1e-5` (PyTorch `1e-8`), AdamW `weight_decay = 1e-4` (PyTorch `1e-2`), RmsProp
`momentum = 0.9` and `epsilon = 1e-5` (PyTorch `0` and `1e-8`), AdaGrad `epsilon = 1e-5` (PyTorch
`1e-10`) and SGD's `MomentumConfig` `dampening = 0.1` (PyTorch `0`). The difference only shows
where gradients are small compared with epsilon, which is exactly where it changes training."""
RECIPE = "set every hyperparameter explicitly: AdamConfig().with_epsilon(1e-8), ..."


def torch_side():
    lin = torch.nn.Linear(1, 1, bias=False)
    torch.nn.init.ones_(lin.weight)
    opt = torch.optim.Adam(lin.parameters(), lr=1.0)
    (lin(torch.tensor([[1e-5]]))).sum().backward()
    opt.step()
    round(lin.weight.item(), 3)


def burn_literal():
    ad = Device.cpu().autodiff()
    lin = nn.LinearConfig(1, 1).with_bias(False).with_initializer(Initializer.ones()).init(ad)
    opt = AdamConfig().init()
    grads = GradientsParams.from_grads(lin.forward(Tensor.from_floats([[1e-5]], ad)).sum().backward(), lin)
    lin = opt.step(1.0, lin, grads)
    round(lin.weight.val().into_scalar(), 3)


def burn_side():
    ad = Device.cpu().autodiff()
    lin = nn.LinearConfig(1, 1).with_bias(False).with_initializer(Initializer.ones()).init(ad)
    opt = AdamConfig().with_epsilon(1e-8).init()
    grads = GradientsParams.from_grads(lin.forward(Tensor.from_floats([[1e-5]], ad)).sum().backward(), lin)
    lin = opt.step(1.0, lin, grads)
    round(lin.weight.val().into_scalar(), 3)


TORCH = {"round(lin.weight.item(), 3)": 0.001}
LITERAL = {"round(lin.weight.val().into_scalar(), 3)": 0.5}
BURN = {"round(lin.weight.val().into_scalar(), 3)": 0.001}
