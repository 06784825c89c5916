"""model.train() mutates in PyTorch; returns a new module in Burn."""
import torch

from burn_torch import Device, nn

ID = "train_returns_module"
TITLE = "`model.train()` returns the training module; it does not change `model`"
CATEGORY = "modules"
SEVERITY = "silent"
DETECTORS = ("train_call",)
WHAT = "train() returns a new module with autodiff on and trainability restored; called for its effect it does nothing"
WHY = """PyTorch's `train()` flips the training flag of the module in place. Burn's `train()` returns
a new module: autodiff enabled on every tensor, trainable parameters made `require_grad()`
leaves, frozen ones left frozen, training flags restored. Like every module transformation it
leaves the original alone."""
RECIPE = "model = model.train()"


def torch_side():
    lin = torch.nn.Linear(2, 1)
    lin.eval()
    lin.train()
    lin.training


def burn_literal():
    lin = nn.LinearConfig(2, 1).init(Device.cpu())
    lin.train()
    lin.weight.is_require_grad()


def burn_side():
    lin = nn.LinearConfig(2, 1).init(Device.cpu())
    lin = lin.train()
    lin.weight.is_require_grad()


TORCH = {"lin.training": True}
LITERAL = {"lin.weight.is_require_grad()": False}
BURN = {"lin.weight.is_require_grad()": True}
