"""torch.inference_mode() does nothing to burn_torch tensors either."""
import torch

from burn_torch import Device, Tensor

ID = "inference_mode"
TITLE = "`torch.inference_mode()` does nothing: use `without_autodiff()`"
CATEGORY = "evaluation"
SEVERITY = "silent"
DETECTORS = ("inference_mode_context",)
WHAT = "torch.inference_mode() has no effect on burn_torch tensors; their results stay tracked"
WHY = """Like `torch.no_grad()`, inference mode is a torch autograd setting and burn_torch never uses
torch autograd. The tensors' own autodiff association decides what is recorded. Unlike PyTorch's
inference tensors, a tensor obtained with `without_autodiff()` can later be combined with
tracked tensors: it is a constant there (see the entry on mixing operands)."""
RECIPE = "compute on x.without_autodiff() (and model.valid()) instead of inside torch.inference_mode()"


def torch_side():
    x = torch.tensor([1.0, 2.0], requires_grad=True)
    with torch.inference_mode():
        y = x * 2
    y.requires_grad


def burn_literal():
    ad = Device.cpu().autodiff()
    x = Tensor.from_floats([1.0, 2.0], ad).require_grad()
    with torch.inference_mode():
        y = x * 2
    y.is_tracked()


def burn_side():
    ad = Device.cpu().autodiff()
    x = Tensor.from_floats([1.0, 2.0], ad).require_grad()
    y = x.without_autodiff() * 2
    y.is_tracked()


TORCH = {"y.requires_grad": False}
LITERAL = {"y.is_tracked()": True}
BURN = {"y.is_tracked()": False}
