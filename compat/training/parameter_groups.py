"""Per-group learning rates: param_groups vs one optimizer step per group of gradients."""
import torch

from burn_torch import Device, Tensor, nn
from burn_torch.compat.entry import Raises
from burn_torch.module import Module
from burn_torch.nn import Initializer
from burn_torch.optim import GradientsParams, SgdConfig

ID = "parameter_groups"
TITLE = "Parameter groups: split the gradients, one step per group"
CATEGORY = "training"
SEVERITY = "loud"
DETECTORS = ("param_groups_use",)
WHAT = "optimizers have no param_groups; a step takes one learning rate for the gradients it is given"
WHY = """A Burn optimizer is not bound to parameters: `step(lr, module, grads)` updates the
parameters that have a gradient in `grads`, with the one `lr` it is given. PyTorch's parameter
groups (per-layer learning rates, no weight decay on biases, a frozen backbone) become separate
`GradientsParams` (`from_module(grads, model.backbone)`, `from_params(grads, model, ids)`), each
passed to its own optimizer (hyperparameters are per optimizer) with its own rate."""
RECIPE = "g1 = GradientsParams.from_module(grads, model.fc1); model = opt1.step(lr1, model, g1); same for each group"


def torch_side():
    class TwoLayers(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.fc1 = torch.nn.Linear(1, 1, bias=False)
            self.fc2 = torch.nn.Linear(1, 1, bias=False)

    model = TwoLayers()
    torch.nn.init.ones_(model.fc1.weight)
    torch.nn.init.ones_(model.fc2.weight)
    groups = [{"params": model.fc1.parameters()}, {"params": model.fc2.parameters()}]
    opt = torch.optim.SGD(groups, lr=0.1)
    opt.param_groups[1]["lr"] = 0.01
    x = torch.ones(1, 1)
    (model.fc1(x) + model.fc2(x)).sum().backward()
    opt.step()
    [round(model.fc1.weight.item(), 6), round(model.fc2.weight.item(), 6)]


def burn_literal():
    opt = SgdConfig().init()
    opt.param_groups[1]["lr"] = 0.01


def burn_side():
    class TwoLayers(Module):
        def __init__(self, device):
            super().__init__()
            config = nn.LinearConfig(1, 1).with_bias(False).with_initializer(Initializer.ones())
            self.fc1 = config.init(device)
            self.fc2 = config.init(device)

    device = Device.cpu().autodiff()
    model = TwoLayers(device)
    opt_fc1, opt_fc2 = SgdConfig().init(), SgdConfig().init()
    x = Tensor.ones([1, 1], device)
    grads = (model.fc1.forward(x) + model.fc2.forward(x)).sum().backward()
    grads_fc1 = GradientsParams.from_module(grads, model.fc1)
    grads_fc2 = GradientsParams.from_module(grads, model.fc2)
    model = opt_fc1.step(0.1, model, grads_fc1)
    model = opt_fc2.step(0.01, model, grads_fc2)
    [round(model.fc1.weight.val().into_scalar(), 6), round(model.fc2.weight.val().into_scalar(), 6)]


TORCH = {"[round(model.fc1.weight.item(), 6), round(model.fc2.weight.item(), 6)]": [0.9, 0.99]}
LITERAL = Raises(AttributeError, "'ModuleOptimizer' object has no attribute 'param_groups'")
BURN = {"[round(model.fc1.weight.val().into_scalar(), 6), round(model.fc2.weight.val().into_scalar(), 6)]": [0.9, 0.99]}
