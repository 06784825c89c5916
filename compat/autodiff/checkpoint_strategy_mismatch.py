"""Operands with different checkpointing strategies cannot be combined."""
import torch

from burn_torch import Device, StrategyMismatchError, Tensor
from burn_torch.compat.entry import Raises

ID = "checkpoint_strategy_mismatch"
TITLE = "Autodiff operands must share a checkpointing strategy"
CATEGORY = "autodiff"
SEVERITY = "loud"
DETECTORS = ("checkpointing_strategy_operands",)
WHAT = "combining autodiff tensors with different checkpointing strategies raises StrategyMismatchError"
WHY = """Each autodiff tensor carries its checkpointing strategy, and an operation's operands must
agree on it. In PyTorch a checkpointed region's output combines freely with anything. A tensor
moved with `to_device()` keeps its source's strategy, which may differ from tensors created on
the destination device: the usual way to meet this error."""
RECIPE = "create the other operand on x.device(), or align strategies with with_gradient_checkpointing_strategy(...)"


def torch_side():
    from torch.utils.checkpoint import checkpoint
    x = torch.tensor([0.0, 1.0], requires_grad=True)
    w = torch.tensor([2.0, 3.0])
    (checkpoint(torch.exp, x, use_reentrant=True) * w).sum().backward()
    x.grad.tolist()


def burn_literal():
    ad = Device.cpu().autodiff()
    x = Tensor.from_floats([0.0, 1.0], ad.gradient_checkpointing()).require_grad()
    w = Tensor.from_floats([2.0, 3.0], ad)
    grads = (x.exp() * w).sum().backward()


def burn_side():
    ad = Device.cpu().autodiff()
    x = Tensor.from_floats([0.0, 1.0], ad.gradient_checkpointing()).require_grad()
    w = Tensor.from_floats([2.0, 3.0], x.device())
    grads = (x.exp() * w).sum().backward()
    x.grad(grads).to_data().to_list()


TORCH = {"x.grad.tolist()": [2.0, 8.154845237731934]}
LITERAL = Raises(StrategyMismatchError, "different gradient checkpointing strategies (BALANCED and DISABLED)")
BURN = {"x.grad(grads).to_data().to_list()": [2.0, 8.154845237731934]}
