"""model.apply(init_fn) vs initializers in the configs."""
import torch

from burn_torch import Device, nn
from burn_torch.compat.entry import Raises
from burn_torch.nn import Initializer

ID = "module_apply_init"
TITLE = "Initialize through the configs, not `module.apply(init_fn)`"
CATEGORY = "modules"
SEVERITY = "loud"
DETECTORS = ("module_apply_or_init",)
WHAT = "modules have no apply(fn) and torch.nn.init's in-place functions cannot write into a Param"
WHY = """PyTorch initializes by walking the built model and overwriting weights in place
(`model.apply(fn)` with `torch.nn.init.*_`). Burn chooses the initializer when the parameters are
created: each config has an `initializer` field (`LinearConfig(...).with_initializer(...)`),
and parameters are immutable values afterwards. To re-initialize a built model, map it with a
`ModuleMapper` that returns new Params (the same ids) holding the new values."""
RECIPE = "nn.LinearConfig(4, 2).with_initializer(Initializer.zeros()).init(device); or model.map(mapper)"


def torch_side():
    def zero_linear_weights(m):
        if isinstance(m, torch.nn.Linear):
            torch.nn.init.zeros_(m.weight)

    model = torch.nn.Linear(4, 2)
    model.apply(zero_linear_weights)
    model.weight.abs().sum().item()


def burn_literal():
    def zero_linear_weights(m):
        if isinstance(m, nn.Linear):
            torch.nn.init.zeros_(m.weight)

    model = nn.LinearConfig(4, 2).init(Device.cpu())
    model.apply(zero_linear_weights)


def burn_side():
    model = nn.LinearConfig(4, 2).with_initializer(Initializer.zeros()).init(Device.cpu())
    model.weight.val().abs().sum().into_scalar()


TORCH = {"model.weight.abs().sum().item()": 0.0}
LITERAL = Raises(AttributeError, "'Linear' object has no attribute 'apply'")
BURN = {"model.weight.val().abs().sum().into_scalar()": 0.0}
