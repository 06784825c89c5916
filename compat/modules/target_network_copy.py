"""Target networks / EMA: copy.deepcopy keeps ParamIds; in-place updates vs modules as values."""
import copy

import torch

from burn_torch import Device, Tensor, nn
from burn_torch.compat.entry import Raises
from burn_torch.module import Module, NewParamIds, TiedParamError
from burn_torch.nn import Initializer
from burn_torch.optim import GradientsParams, SgdConfig

ID = "target_network_copy"
TITLE = "Target networks and EMA: `copy.deepcopy` keeps ParamIds; `model.map(NewParamIds())`"
CATEGORY = "modules"
SEVERITY = "loud"
DETECTORS = ("target_network_update",)
WHAT = "copy.deepcopy keeps ParamIds: a target network inside the trained module makes from_grads raise TiedParamError"
WHY = """PyTorch keeps a target network (BYOL, MoCo, DQN, an EMA of weights) as
`copy.deepcopy(online)`, often as an attribute of the module it trains, and updates it in place
(`p_t.data.mul_(tau).add_(...)`). In Burn a copy of a module *is* the same parameters: `clone()`
and `copy.deepcopy` keep each parameter's `ParamId` (as Burn's `Module::clone` does), so the
module now holds one id at two paths, and gradient extraction and the optimizer refuse it with
`TiedParamError` rather than update one path and leave the other stale. Give the copy its own
identities with `online.map(NewParamIds())` (Burn's way: a `ModuleMapper` that rebuilds each
`Param` with `ParamId::new()`; trainable leaves become new, separate leaves) and freeze it with
`.no_grad()`. Modules are values, so the EMA update builds the new target from both modules'
values with `load_record`, which keeps the target's ids. A target kept *outside* the trained
module needs no new ids: `target = model` is already a snapshot, since the optimizer step returns
a new model."""
RECIPE = "target = online.map(NewParamIds()).no_grad(); EMA: target.load_record({n: t.val() * tau + ...})"


def torch_side():
    online = torch.nn.Linear(1, 1, bias=False)
    torch.nn.init.ones_(online.weight)
    model = torch.nn.ModuleDict({"online": online, "target": copy.deepcopy(online)})
    model.target.requires_grad_(False)
    opt = torch.optim.SGD(model.parameters(), lr=0.5)
    x = torch.ones(1, 1)
    (model.online(x) * model.target(x)).sum().backward()
    opt.step()
    with torch.no_grad():
        for p_t, p in zip(model.target.parameters(), model.online.parameters()):
            p_t.mul_(0.5).add_(p, alpha=0.5)
    model.target.weight.item()


def burn_literal():
    class Pair(Module):
        def __init__(self, online, target):
            self.online, self.target = online, target

    device = Device.cpu().autodiff()
    online = nn.LinearConfig(1, 1).with_bias(False).with_initializer(Initializer.ones()).init(device)
    model = Pair(online, copy.deepcopy(online).no_grad())
    x = Tensor.ones([1, 1], device)
    grads = (model.online.forward(x) * model.target.forward(x)).sum().backward()
    GradientsParams.from_grads(grads, model)


def burn_side():
    class Pair(Module):
        def __init__(self, online, target):
            self.online, self.target = online, target

    device = Device.cpu().autodiff()
    online = nn.LinearConfig(1, 1).with_bias(False).with_initializer(Initializer.ones()).init(device)
    model = Pair(online, online.map(NewParamIds()).no_grad())
    x = Tensor.ones([1, 1], device)
    grads = (model.online.forward(x) * model.target.forward(x)).sum().backward()
    model = SgdConfig().init().step(0.5, model, GradientsParams.from_grads(grads, model))
    now = dict(model.online.named_params())
    model.target = model.target.load_record({name: p.val() * 0.5 + now[name].val() * 0.5
                                             for name, p in model.target.named_params()})
    model.target.weight.val().into_scalar()


TORCH = {"model.target.weight.item()": 0.75}
LITERAL = Raises(TiedParamError, "is reachable at 2 paths of the module (online.weight, target.weight)")
BURN = {"model.target.weight.val().into_scalar()": 0.75}
