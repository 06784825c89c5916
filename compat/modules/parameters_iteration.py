"""model.parameters() vs model.params()."""
import torch

from burn_torch import Device, nn
from burn_torch.compat.entry import Raises

ID = "parameters_iteration"
TITLE = "`model.parameters()` is `model.params()` (Params, not tensors)"
CATEGORY = "modules"
SEVERITY = "loud"
DETECTORS = ("parameters_call",)
WHAT = "modules have no parameters() / named_parameters(); params() / named_params() list Params with ids"
WHY = """Burn finds a module's parameters by visiting its fields; burn_torch's `params()` and
`named_params()` return `Param` values (id + tensor, `param.val()` for the tensor) in traversal
order. Optimizers are not built from them: they key their state by `ParamId` and receive the
module at each step. `num_params()` counts the elements."""
RECIPE = "model.params() / model.named_params(); p.val() for the tensor; model.num_params() for the count"


def torch_side():
    lin = torch.nn.Linear(2, 1)
    [list(p.shape) for p in lin.parameters()]


def burn_literal():
    lin = nn.LinearConfig(2, 1).init(Device.cpu())
    [p.dims() for p in lin.parameters()]


def burn_side():
    lin = nn.LinearConfig(2, 1).init(Device.cpu())
    [p.val().dims() for p in lin.params()]


TORCH = {"[list(p.shape) for p in lin.parameters()]": [[1, 2], [1]]}
LITERAL = Raises(AttributeError, "'Linear' object has no attribute 'parameters'")
BURN = {"[p.val().dims() for p in lin.params()]": [[2, 1], [1]]}
