"""model.eval() vs model.valid()."""
import torch

from burn_torch import Device, Tensor, nn
from burn_torch.compat.entry import Raises

ID = "eval_is_valid"
TITLE = "`model.eval()` is `model.valid()`, which also turns autodiff off"
CATEGORY = "evaluation"
SEVERITY = "loud"
DETECTORS = ("eval_call",)
WHAT = "modules have no eval(); valid() returns an inference copy without autodiff (eval() + no_grad in one)"
WHY = """PyTorch's `eval()` only switches layers such as dropout and batch norm to inference
behaviour, in place; gradients are still recorded unless `no_grad()` is also used. Burn's
`valid()` returns a new module for inference: every parameter loses its autodiff association and
training flags read False. The original module is untouched, and `valid().train()` restores the
configured trainability."""
RECIPE = "model_valid = model.valid(); evaluate with model_valid.forward(x) (keep model for training)"


def torch_side():
    lin = torch.nn.Linear(2, 1)
    lin.eval()
    y = lin(torch.tensor([[1.0, 2.0]]))
    y.requires_grad


def burn_literal():
    lin = nn.LinearConfig(2, 1).init(Device.cpu().autodiff())
    lin.eval()


def burn_side():
    lin = nn.LinearConfig(2, 1).init(Device.cpu().autodiff())
    lin_valid = lin.valid()
    y = lin_valid.forward(Tensor.from_floats([[1.0, 2.0]], Device.cpu()))
    y.is_autodiff()
    lin.weight.is_require_grad()


TORCH = {"y.requires_grad": True}
LITERAL = Raises(AttributeError, "'Linear' object has no attribute 'eval'")
BURN = {"y.is_autodiff()": False, "lin.weight.is_require_grad()": True}
