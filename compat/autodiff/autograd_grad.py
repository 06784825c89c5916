"""torch.autograd.grad vs backward() + grad()."""
import torch

from burn_torch import Device, Tensor
from burn_torch.compat.entry import Raises

ID = "autograd_grad"
TITLE = "`torch.autograd.grad(loss, [x])` is `x.grad(loss.backward())`"
CATEGORY = "autodiff"
SEVERITY = "loud"
DETECTORS = ("autograd_grad_call",)
WHAT = "torch.autograd.grad does not know burn_torch tensors; backward() already returns the gradients"
WHY = """PyTorch's functional `torch.autograd.grad` is the closest thing it has to Burn's model: it
returns the gradients instead of writing `.grad`. In burn_torch every backward pass works that
way, so the functional form is just `backward()` followed by a lookup per input. torch's function
does not accept burn_torch tensors."""
RECIPE = "grads = loss.backward(); gx = x.grad(grads) (one lookup per input)"


def torch_side():
    x = torch.tensor([1.0, 2.0], requires_grad=True)
    (gx,) = torch.autograd.grad((x * x * 3).sum(), [x])
    gx.tolist()


def burn_literal():
    ad = Device.cpu().autodiff()
    x = Tensor.from_floats([1.0, 2.0], ad).require_grad()
    (gx,) = torch.autograd.grad((x * x * 3).sum(), [x])


def burn_side():
    ad = Device.cpu().autodiff()
    x = Tensor.from_floats([1.0, 2.0], ad).require_grad()
    gx = x.grad((x * x * 3).sum().backward())
    gx.to_data().to_list()


TORCH = {"gx.tolist()": [6.0, 12.0]}
LITERAL = Raises(TypeError, "torch.autograd.grad() got a burn_torch Tensor, which is not a torch.Tensor")
BURN = {"gx.to_data().to_list()": [6.0, 12.0]}
