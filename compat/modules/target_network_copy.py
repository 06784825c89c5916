"""Target networks / EMA: copy.deepcopy + in-place updates vs modules as values."""
import copy

import torch

from burn_torch import Device, Tensor, nn
from burn_torch.compat.entry import Raises
from burn_torch.nn import Initializer
from burn_torch.optim import GradientsParams, SgdConfig

ID = "target_network_copy"
TITLE = "Target networks and EMA: a module is a value, `target = model` is a snapshot"
CATEGORY = "modules"
SEVERITY = "loud"
DETECTORS = ("target_network_update",)
WHAT = "an EMA/target update writes into the target's tensors in place; burn_torch tensors have no in-place ops"
WHY = """PyTorch keeps a target network (DQN, BYOL, EMA of weights) as a deep copy and updates it
in place (`p_t.data.mul_(tau).add_(...)`, `target.load_state_dict(model.state_dict())`). Burn
modules are values: an optimizer step returns a *new* model and leaves the old one as it was, so
`target = model` already is a snapshot (no deepcopy needed), and an EMA update builds the new
target from both modules' values with `load_record`. The target keeps its parameters' ids, so
gradients of the online model never reach it."""
RECIPE = "target = model; then target = target.load_record({n: t.val() * tau + p.val() * (1 - tau) ...})"


def torch_side():
    model = torch.nn.Linear(1, 1, bias=False)
    torch.nn.init.ones_(model.weight)
    target = copy.deepcopy(model)
    opt = torch.optim.SGD(model.parameters(), lr=0.5)
    model(torch.ones(1, 1)).sum().backward()
    opt.step()
    with torch.no_grad():
        for p_t, p in zip(target.parameters(), model.parameters()):
            p_t.mul_(0.5).add_(p, alpha=0.5)
    target.weight.item()


def burn_literal():
    device = Device.cpu().autodiff()
    model = nn.LinearConfig(1, 1).with_bias(False).with_initializer(Initializer.ones()).init(device)
    target = copy.deepcopy(model)
    grads = model.forward(Tensor.ones([1, 1], device)).sum().backward()
    model = SgdConfig().init().step(0.5, model, GradientsParams.from_grads(grads, model))
    for p_t, p in zip(target.params(), model.params()):
        p_t.val().mul_(0.5).add_(p.val(), alpha=0.5)


def burn_side():
    device = Device.cpu().autodiff()
    model = nn.LinearConfig(1, 1).with_bias(False).with_initializer(Initializer.ones()).init(device)
    target = model                                   # a snapshot: the step below returns a new model
    grads = model.forward(Tensor.ones([1, 1], device)).sum().backward()
    model = SgdConfig().init().step(0.5, model, GradientsParams.from_grads(grads, model))
    online = dict(model.named_params())
    target = target.load_record({name: p.val() * 0.5 + online[name].val() * 0.5
                                 for name, p in target.named_params()})
    target.weight.val().into_scalar()


TORCH = {"target.weight.item()": 0.75}
LITERAL = Raises(AttributeError, "'Tensor' object has no attribute 'mul_'")
BURN = {"target.weight.val().into_scalar()": 0.75}
