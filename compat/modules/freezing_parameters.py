"""Freezing: requires_grad_(False) in place vs set_require_grad(False) returning a new Param."""
import torch

from burn_torch import Device, nn

ID = "freezing_parameters"
TITLE = "Freeze a parameter by assigning `param.set_require_grad(False)` back"
CATEGORY = "modules"
SEVERITY = "silent"
DETECTORS = ("freeze_requires_grad_call", "freeze_requires_grad_assign")
WHAT = "Param.set_require_grad(False) returns a new Param: the module keeps training the old one unless it is assigned back"
WHY = """PyTorch freezes a parameter in place (`layer.weight.requires_grad_(False)`). A burn_torch
Param is an immutable value: `set_require_grad(False)` returns a frozen Param with the same id,
which must be assigned to the module's attribute. The frozen setting survives `valid()` /
`train()` round trips; `model.no_grad()` freezes a whole module."""
RECIPE = "lin.weight = lin.weight.set_require_grad(False) (or model = model.no_grad() for everything)"


def torch_side():
    lin = torch.nn.Linear(2, 1)
    lin.weight.requires_grad_(False)
    lin.weight.requires_grad


def burn_literal():
    lin = nn.LinearConfig(2, 1).init(Device.cpu().autodiff())
    lin.weight.set_require_grad(False)
    lin.weight.is_require_grad()


def burn_side():
    lin = nn.LinearConfig(2, 1).init(Device.cpu().autodiff())
    lin.weight = lin.weight.set_require_grad(False)
    lin.weight.is_require_grad()


TORCH = {"lin.weight.requires_grad": False}
LITERAL = {"lin.weight.is_require_grad()": True}
BURN = {"lin.weight.is_require_grad()": False}
