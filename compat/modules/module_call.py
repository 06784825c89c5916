"""model(x) vs model.forward(x)."""
import torch

from burn_torch import Device, Tensor, nn
from burn_torch.compat.entry import Raises

ID = "module_call"
TITLE = "Modules are not callable: `model.forward(x)`"
CATEGORY = "modules"
SEVERITY = "loud"
DETECTORS = ("module_called",)
WHAT = "model(x) raises TypeError: call model.forward(x) (modules have no __call__ or hooks)"
WHY = """Burn modules are plain structs with a `forward` method, and burn_torch's `Module` adds no
`__call__` (there are no forward hooks to run around it). Submodule calls inside `forward` are
written `self.fc1.forward(x)`."""
RECIPE = "model.forward(x) (and self.layer.forward(x) inside forward)"


def torch_side():
    lin = torch.nn.Linear(2, 1)
    list(lin(torch.ones(4, 2)).shape)


def burn_literal():
    lin = nn.LinearConfig(2, 1).init(Device.cpu())
    lin(Tensor.ones([4, 2], Device.cpu()))


def burn_side():
    lin = nn.LinearConfig(2, 1).init(Device.cpu())
    lin.forward(Tensor.ones([4, 2], Device.cpu())).dims()


TORCH = {"list(lin(torch.ones(4, 2)).shape)": [4, 1]}
LITERAL = Raises(TypeError, "'Linear' object is not callable")
BURN = {"lin.forward(Tensor.ones([4, 2], Device.cpu())).dims()": [4, 1]}
