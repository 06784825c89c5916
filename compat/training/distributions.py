"""torch.distributions cannot take burn_torch tensors: write the reparameterization by hand."""
import torch

from burn_torch import Device, Distribution, Tensor
from burn_torch.compat.entry import Raises

ID = "distributions"
TITLE = "No `torch.distributions`: sample with `Tensor.random` and reparameterize by hand"
CATEGORY = "training"
SEVERITY = "loud"
DETECTORS = ("distribution_object",)
WHAT = "torch.distributions only takes torch tensors; burn_torch has random sampling but no distribution objects"
WHY = """Burn (and burn_torch) sample with `Tensor.random(shape, Distribution, device)`, which
is untracked; there are no distribution objects with `rsample`/`log_prob`. A reparameterized
sample is written out: `mu + sigma * eps` with `eps` drawn from `Distribution.normal(0, 1)`, so
the gradient flows to `mu` and `sigma` as with `rsample()`; `log_prob` is its formula
(`-((x - mu) / sigma)^2 / 2 - log(sigma) - log(2π) / 2` for a normal)."""
RECIPE = "eps = Tensor.random(shape, Distribution.normal(0.0, 1.0), device); sample = mu + sigma * eps"


def torch_side():
    mu = torch.tensor([0.0, 1.0], requires_grad=True)
    sample = torch.distributions.Normal(mu, torch.ones(2)).rsample()
    sample.sum().backward()
    mu.grad.tolist()


def burn_literal():
    mu = Tensor.from_floats([0.0, 1.0], Device.cpu().autodiff()).require_grad()
    sample = torch.distributions.Normal(mu, Tensor.ones([2], Device.cpu())).rsample()


def burn_side():
    device = Device.cpu().autodiff()
    mu = Tensor.from_floats([0.0, 1.0], device).require_grad()
    sample = mu + Tensor.ones([2], device) * Tensor.random([2], Distribution.normal(0.0, 1.0), device)
    grads = sample.sum().backward()
    mu.grad(grads).to_data().to_list()


TORCH = {"mu.grad.tolist()": [1.0, 1.0]}
LITERAL = Raises(TypeError, "got a burn_torch Tensor, which is not a torch.Tensor")
BURN = {"mu.grad(grads).to_data().to_list()": [1.0, 1.0]}
