"""create_graph / second order: gradients carry no autodiff in Burn."""
import torch

from burn_torch import Device, Tensor, UnsupportedAutodiffFeatureError
from burn_torch.compat.entry import Raises

ID = "create_graph"
TITLE = "No `create_graph`: gradients carry no autodiff (first order only)"
CATEGORY = "autodiff"
SEVERITY = "loud"
DETECTORS = ("create_graph_keyword",)
WHAT = "no higher-order gradients: create_graph raises and a gradient has no autodiff association"
WHY = """Burn's autodiff is first order: the gradients a backward pass returns are plain values
without an autodiff association (`is_autodiff()`, `is_tracked()` and `is_require_grad()` are all
False), so nothing computed from them can be backpropagated. Hessian-vector products and gradient
penalties cannot be ported as such; a derivative you need to differentiate again has to be
written as an ordinary expression of the leaves."""
RECIPE = "write the first derivative as an expression of the leaves and backpropagate that"


def torch_side():
    x = torch.tensor([1.0, 2.0], requires_grad=True)
    (g,) = torch.autograd.grad((x ** 3).sum(), [x], create_graph=True)
    (g2,) = torch.autograd.grad(g.sum(), [x])
    g2.tolist()


def burn_literal():
    ad = Device.cpu().autodiff()
    x = Tensor.from_floats([1.0, 2.0], ad).require_grad()
    grads = x.powi_scalar(3).sum().backward(create_graph=True)


def burn_side():
    ad = Device.cpu().autodiff()
    x = Tensor.from_floats([1.0, 2.0], ad).require_grad()
    g = x.grad(x.powi_scalar(3).sum().backward())  # a plain value: no autodiff
    dy_dx = x.powi_scalar(2) * 3.0  # the first derivative, written out
    grads = dy_dx.sum().backward()
    g.is_autodiff()
    x.grad(grads).to_data().to_list()


TORCH = {"g2.tolist()": [6.0, 12.0]}
LITERAL = Raises(UnsupportedAutodiffFeatureError, "Burn has no retain_graph or create_graph")
BURN = {"g.is_autodiff()": False, "x.grad(grads).to_data().to_list()": [6.0, 12.0]}
