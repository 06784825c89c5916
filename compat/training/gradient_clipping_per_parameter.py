"""clip_grad_norm_ clips the global norm; Burn's clipping is per parameter."""
import torch

from burn_torch import Device, Tensor, nn
from burn_torch.nn import Initializer
from burn_torch.optim import GradientClippingConfig, GradientsParams, SgdConfig

ID = "gradient_clipping_per_parameter"
TITLE = "Gradient clipping by norm is per parameter, not global"
CATEGORY = "training"
SEVERITY = "silent"
DETECTORS = ("clip_grad_call",)
WHAT = "GradientClippingConfig.norm(n) clips each parameter's gradient to norm n; clip_grad_norm_ uses the global norm"
WHY = """Burn's optimizers clip gradients parameter by parameter when configured with
`GradientClippingConfig.norm(max_norm)` (or `.value(v)`), inside `step`. PyTorch's
`clip_grad_norm_` scales every gradient by the same factor, computed from the norm of all of them
together. With several parameters the two give different updates. To reproduce PyTorch, scale
the gradients in `GradientsParams` yourself before the step."""
RECIPE = "AdamConfig().with_grad_clipping(GradientClippingConfig.norm(n)); SgdConfig: with_gradient_clipping; global: scale grads"


def torch_side():
    lin = torch.nn.Linear(1, 2)
    torch.nn.init.zeros_(lin.weight)
    torch.nn.init.zeros_(lin.bias)
    (lin(torch.tensor([[0.75]])) * torch.tensor([3.0, 4.0])).sum().backward()
    torch.nn.utils.clip_grad_norm_(lin.parameters(), 3.125)
    torch.optim.SGD(lin.parameters(), lr=1.0).step()
    [round(v, 4) for v in lin.bias.tolist()]


def burn_literal():
    ad = Device.cpu().autodiff()
    lin = nn.LinearConfig(1, 2).with_initializer(Initializer.zeros()).init(ad)
    loss = (lin.forward(Tensor.from_floats([[0.75]], ad)) * Tensor.from_floats([3.0, 4.0], ad)).sum()
    opt = SgdConfig().with_gradient_clipping(GradientClippingConfig.norm(3.125)).init()
    lin = opt.step(1.0, lin, GradientsParams.from_grads(loss.backward(), lin))
    [round(v, 4) for v in lin.bias.val().to_data().to_list()]


def burn_side():
    ad = Device.cpu().autodiff()
    lin = nn.LinearConfig(1, 2).with_initializer(Initializer.zeros()).init(ad)
    loss = (lin.forward(Tensor.from_floats([[0.75]], ad)) * Tensor.from_floats([3.0, 4.0], ad)).sum()
    grads = GradientsParams.from_grads(loss.backward(), lin)
    norm = sum(grads.get(i).square().sum().into_scalar() for i in grads.ids()) ** 0.5
    for i in grads.ids():
        grads.register(i, grads.remove(i) * min(1.0, 3.125 / (norm + 1e-6)))
    lin = SgdConfig().init().step(1.0, lin, grads)
    [round(v, 4) for v in lin.bias.val().to_data().to_list()]


TORCH = {"[round(v, 4) for v in lin.bias.tolist()]": [-1.5, -2.0]}
LITERAL = {"[round(v, 4) for v in lin.bias.val().to_data().to_list()]": [-1.875, -2.5]}
BURN = {"[round(v, 4) for v in lin.bias.val().to_data().to_list()]": [-1.5, -2.0]}
