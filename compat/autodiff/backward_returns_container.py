"""backward() returns a Gradients container; nothing accumulates into .grad."""
import torch

from burn_torch import Device, Tensor

ID = "backward_returns_container"
TITLE = "`backward()` returns the gradients instead of accumulating them into `.grad`"
CATEGORY = "autodiff"
SEVERITY = "silent"
DETECTORS = ("backward_call", "grad_read")
WHAT = "backward() writes no .grad: it returns a new Gradients container each call, and nothing accumulates"
WHY = """Burn keeps gradients out of the tensors: a backward pass returns every gradient it computed
in a container, which can be inspected, edited, sent to another thread or dropped. Two backward
passes give two independent containers; PyTorch adds the second pass into the same `.grad`."""
RECIPE = "grads = loss.backward(); read x.grad(grads); add containers' gradients yourself to accumulate"


def torch_side():
    x = torch.tensor([1.0, 2.0], requires_grad=True)
    for _ in range(2):
        (x * x).sum().backward()
    x.grad.tolist()


def burn_literal():
    ad = Device.cpu().autodiff()
    x = Tensor.from_floats([1.0, 2.0], ad).require_grad()
    for _ in range(2):
        grads = (x * x).sum().backward()
    x.grad(grads).to_data().to_list()


def burn_side():
    ad = Device.cpu().autodiff()
    x = Tensor.from_floats([1.0, 2.0], ad).require_grad()
    g1 = (x * x).sum().backward()
    g2 = (x * x).sum().backward()
    (x.grad(g1) + x.grad(g2)).to_data().to_list()


TORCH = {"x.grad.tolist()": [4.0, 8.0]}
LITERAL = {"x.grad(grads).to_data().to_list()": [2.0, 4.0]}
BURN = {"(x.grad(g1) + x.grad(g2)).to_data().to_list()": [4.0, 8.0]}
