"""Gradient accumulation: GradientsAccumulator instead of skipping zero_grad."""
import torch

from burn_torch import Device, Tensor, nn
from burn_torch.nn import Initializer
from burn_torch.optim import GradientsAccumulator, GradientsParams

ID = "gradient_accumulation"
TITLE = "Accumulate gradients with `GradientsAccumulator`"
CATEGORY = "training"
SEVERITY = "silent"
DETECTORS = ("accumulated_step",)
WHAT = "backward passes do not add up: without an accumulator only the last micro-batch's gradients are used"
WHY = """PyTorch accumulates micro-batches by calling backward several times without `zero_grad`.
Every Burn backward pass returns a fresh container, so the same loop keeps only the last one.
`GradientsAccumulator.accumulate(model, grads_params)` sums the per-parameter gradients; `grads()`
hands the sum over and empties the accumulator (PyTorch's `zero_grad` after the step). Seed 003
checks the result on an MLP: full batch and two half batches agree to 1.5e-8 on both sides."""
RECIPE = "acc.accumulate(model, GradientsParams.from_grads(loss.backward(), model)) per micro-batch; step with acc.grads()"


def torch_side():
    lin = torch.nn.Linear(2, 1, bias=False)
    torch.nn.init.ones_(lin.weight)
    x = torch.tensor([[1.0, 2.0], [3.0, 4.0]])
    for part in (x[0:1], x[1:2]):
        (lin(part).sum() / 2).backward()
    lin.weight.grad.tolist()


def burn_literal():
    ad = Device.cpu().autodiff()
    lin = nn.LinearConfig(2, 1).with_bias(False).with_initializer(Initializer.ones()).init(ad)
    x = Tensor.from_floats([[1.0, 2.0], [3.0, 4.0]], ad)
    for part in (slice(0, 1), slice(1, 2)):
        grads = GradientsParams.from_grads((lin.forward(x.slice([part])).sum() / 2).backward(), lin)
    grads.get(lin.weight.id).transpose().to_data().to_list()


def burn_side():
    ad = Device.cpu().autodiff()
    lin = nn.LinearConfig(2, 1).with_bias(False).with_initializer(Initializer.ones()).init(ad)
    x = Tensor.from_floats([[1.0, 2.0], [3.0, 4.0]], ad)
    acc = GradientsAccumulator()
    for part in (slice(0, 1), slice(1, 2)):
        acc.accumulate(lin, GradientsParams.from_grads((lin.forward(x.slice([part])).sum() / 2).backward(), lin))
    grads = acc.grads()
    grads.get(lin.weight.id).transpose().to_data().to_list()


TORCH = {"lin.weight.grad.tolist()": [[2.0, 3.0]]}
LITERAL = {"grads.get(lin.weight.id).transpose().to_data().to_list()": [[1.5, 2.0]]}
BURN = {"grads.get(lin.weight.id).transpose().to_data().to_list()": [[2.0, 3.0]]}
