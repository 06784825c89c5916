"""torch.autograd.Function's backward is ignored on burn_torch tensors."""
import torch

from burn_torch import Device, Tensor

ID = "custom_autograd_function"
TITLE = "A custom `torch.autograd.Function`'s backward never runs on burn_torch tensors"
CATEGORY = "autodiff"
SEVERITY = "silent"
DETECTORS = ("autograd_function_class",)
WHAT = "Function.apply(x) just runs forward with burn_torch ops; their own gradients replace your backward"
WHY = """`torch.autograd.Function` hooks into torch autograd, which burn_torch never uses.
Called on a burn_torch tensor, `apply` runs `forward` as plain Python: its burn_torch operations
are recorded by burn_torch's autodiff with *their* gradients, and the custom `backward` (a
straight-through estimator, a gradient reversal, a clipped or numerically stable gradient) is
silently ignored. Burn writes custom gradients as backend ops; with burn_torch, express them
with `detach()`: `x + (f(x) - x).detach()` has `f`'s value and the identity's gradient (a
straight-through estimator), `2 * x.detach() - x` has `x`'s value and the negated gradient (a
gradient reversal)."""
RECIPE = "rewrite with detach(): straight-through = x + (f(x) - x).detach(); reversal = 2 * x.detach() - x"


def torch_side():
    class RoundSTE(torch.autograd.Function):        # round forward, straight-through backward
        @staticmethod
        def forward(ctx, x):
            return x.round()

        @staticmethod
        def backward(ctx, grad):
            return grad

    x = torch.tensor([0.4, 1.6], requires_grad=True)
    RoundSTE.apply(x).sum().backward()
    x.grad.tolist()


def burn_literal():
    class RoundSTE(torch.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            return x.round()

        @staticmethod
        def backward(ctx, grad):
            return grad

    x = Tensor.from_floats([0.4, 1.6], Device.cpu().autodiff()).require_grad()
    grads = RoundSTE.apply(x).sum().backward()
    x.grad(grads).to_data().to_list()


def burn_side():
    x = Tensor.from_floats([0.4, 1.6], Device.cpu().autodiff()).require_grad()
    grads = (x + (x.round() - x).detach()).sum().backward()       # straight-through
    x.grad(grads).to_data().to_list()


TORCH = {"x.grad.tolist()": [1.0, 1.0]}
LITERAL = {"x.grad(grads).to_data().to_list()": [0.0, 0.0]}
BURN = {"x.grad(grads).to_data().to_list()": [1.0, 1.0]}
