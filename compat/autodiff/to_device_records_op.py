"""to(device): PyTorch returns the same leaf; Burn records a differentiable step."""
import torch

from burn_torch import Device, Tensor

ID = "to_device_records_op"
TITLE = "`to_device()` records a step: the moved tensor cannot keep its own gradient"
CATEGORY = "autodiff"
SEVERITY = "silent"
DETECTORS = ("to_device_call",)
WHAT = "to_device() of a tracked tensor is a differentiable op (even to the same device): its result is no leaf"
WHY = """`x.to(device)` in PyTorch returns `x` itself when nothing changes, so the moved tensor is the
same leaf with the same `.grad`. Burn's `to_device()` records a differentiable operation for
tracked inputs, even when the device is unchanged: gradients flow back to the source, and the
moved tensor is an intermediate whose gradient is not kept. It also keeps the source's autodiff
association and checkpointing strategy, ignoring the destination device's."""
RECIPE = "read the source's gradient (x.grad(grads)), or make a new leaf: x.to_device(d).detach().require_grad()"


def torch_side():
    x = torch.tensor([1.0, 2.0], requires_grad=True)
    y = x.to("cpu")
    (y * y).sum().backward()
    y.grad.tolist()


def burn_literal():
    ad = Device.cpu().autodiff()
    x = Tensor.from_floats([1.0, 2.0], ad).require_grad()
    y = x.to_device(ad)
    grads = (y * y).sum().backward()
    y.grad(grads)


def burn_side():
    ad = Device.cpu().autodiff()
    x = Tensor.from_floats([1.0, 2.0], ad).require_grad()
    y = x.to_device(ad)
    grads = (y * y).sum().backward()
    x.grad(grads).to_data().to_list()


TORCH = {"y.grad.tolist()": [2.0, 4.0]}
LITERAL = {"y.grad(grads)": None}
BURN = {"x.grad(grads).to_data().to_list()": [2.0, 4.0]}
