"""Moving to a device without autodiff keeps the tensor's autodiff association."""
import torch

from burn_torch import Device, Tensor

ID = "move_to_plain_device"
TITLE = "Moving to a device without autodiff keeps the tensor's autodiff"
CATEGORY = "evaluation"
SEVERITY = "silent"
DETECTORS = ("detach_then_move",)
WHAT = "to_device(Device.cpu()) keeps the source's autodiff: x.detach().to_device(cpu) is still tracked"
WHY = """`to_device()` preserves the source tensor's autodiff association and strategy and ignores
the destination device's configuration, so moving to a plain `Device.cpu()` does not leave
autodiff. PyTorch's read-out idiom `x.detach().cpu()` gives a tensor that requires no gradient;
here `detach()` keeps a leaf's gradient retention, so `x.detach()` is a new leaf and moving it
records a step: the result is still tracked and keeps recording whatever it is used in.
`without_autodiff()` is what removes the association."""
RECIPE = "x.without_autodiff().to_device(device) to read values out of the graph"


def torch_side():
    x = torch.tensor([1.0, 2.0], requires_grad=True)
    y = x.detach().to("cpu")
    y.requires_grad


def burn_literal():
    x = Tensor.from_floats([1.0, 2.0], Device.cpu().autodiff()).require_grad()
    y = x.detach().to_device(Device.cpu())
    y.is_tracked()


def burn_side():
    x = Tensor.from_floats([1.0, 2.0], Device.cpu().autodiff()).require_grad()
    y = x.without_autodiff().to_device(Device.cpu())
    y.is_tracked()


TORCH = {"y.requires_grad": False}
LITERAL = {"y.is_tracked()": True}
BURN = {"y.is_tracked()": False}
