"""torch.no_grad() does nothing to burn_torch tensors: use without_autodiff()."""
import torch

from burn_torch import Device, Tensor

ID = "no_grad_has_no_effect"
TITLE = "`with torch.no_grad():` does nothing: use `without_autodiff()`"
CATEGORY = "evaluation"
SEVERITY = "silent"
DETECTORS = ("no_grad_context",)
WHAT = "torch.no_grad() only switches torch autograd, which burn_torch never uses: operations are still recorded"
WHY = """Autodiff is not a mode in Burn but a property each tensor carries. PyTorch code scopes
inference in a `with torch.no_grad():` block; burn_torch ignores torch's grad mode entirely (it
never uses torch autograd), so the block runs and every operation on tracked tensors is still
recorded. Removing the autodiff association from the inputs is what stops the recording:
`x.without_autodiff()` for tensors, `model.valid()` for modules. Beware of code that relies on
layers staying in training mode under `no_grad` (a target network's or a teacher's forward with
dropout on, batch statistics updated in a `no_grad` pass, Monte Carlo dropout): as in Burn,
dropout and batch statistics only act on autodiff inputs of a module in training mode, so
`valid()` and `without_autodiff()` turn dropout off and switch batch norm to its running
statistics. There, keep the autodiff inputs and the training mode and `.detach()` the result:
the gradient stops there, the layers behave as in training."""
RECIPE = "compute on x.without_autodiff() (and model.valid()); for training-mode layers, .detach() the output"


def torch_side():
    x = torch.tensor([1.0, 2.0], requires_grad=True)
    with torch.no_grad():
        y = x * 2
    y.requires_grad


def burn_literal():
    ad = Device.cpu().autodiff()
    x = Tensor.from_floats([1.0, 2.0], ad).require_grad()
    with torch.no_grad():
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
