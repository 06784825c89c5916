"""optimizer.state_dict() / scheduler.state_dict() vs to_record() / load_record()."""
import torch

from burn_torch import Device, Tensor, nn
from burn_torch.compat.entry import Raises
from burn_torch.optim import AdamConfig, GradientsParams, StepLrSchedulerConfig

ID = "optimizer_state_dict"
TITLE = "Save optimizer and scheduler state with `to_record()` / `load_record()`"
CATEGORY = "training"
SEVERITY = "loud"
DETECTORS = ("optimizer_state_dict_call",)
WHAT = "optimizers and schedulers have no state_dict/load_state_dict; their state is a record"
WHY = """Burn's optimizers keep their state per `ParamId` and save it as a record
(`optimizer.to_record()`, restored with `load_record(record)`), schedulers as their position
(`scheduler.to_record()`). The learning rate is not optimizer state in Burn (each step is given
it), so a resumed run restores the scheduler's record and the model's record (which keeps the
ParamIds the optimizer state is keyed by). Records pickle; PyTorch's optimizer state dicts,
keyed by parameter position, do not convert."""
RECIPE = "state = (optimizer.to_record(), scheduler.to_record()); later optimizer.load_record(...), scheduler.load_record(...)"


def torch_side():
    lin = torch.nn.Linear(2, 1)
    opt = torch.optim.Adam(lin.parameters(), lr=0.1)
    scheduler = torch.optim.lr_scheduler.StepLR(opt, step_size=1)
    lin(torch.ones(1, 2)).sum().backward()
    opt.step()
    scheduler.step()
    state = {"optimizer": opt.state_dict(), "scheduler": scheduler.state_dict()}
    len(state['optimizer']['state'])
    state['scheduler']['last_epoch']


def burn_literal():
    device = Device.cpu().autodiff()
    lin = nn.LinearConfig(2, 1).init(device)
    opt = AdamConfig().init()
    scheduler = StepLrSchedulerConfig(0.1, 1).init()
    grads = lin.forward(Tensor.ones([1, 2], device)).sum().backward()
    lin = opt.step(scheduler.step(), lin, GradientsParams.from_grads(grads, lin))
    state = {"optimizer": opt.state_dict(), "scheduler": scheduler.state_dict()}


def burn_side():
    device = Device.cpu().autodiff()
    lin = nn.LinearConfig(2, 1).init(device)
    opt = AdamConfig().init()
    scheduler = StepLrSchedulerConfig(0.1, 1).init()
    grads = lin.forward(Tensor.ones([1, 2], device)).sum().backward()
    lin = opt.step(scheduler.step(), lin, GradientsParams.from_grads(grads, lin))
    state = {"optimizer": opt.to_record(), "scheduler": scheduler.to_record()}
    len(state['optimizer'])
    state['scheduler']['iter_idx']


TORCH = {"len(state['optimizer']['state'])": 2, "state['scheduler']['last_epoch']": 1}
LITERAL = Raises(AttributeError, "'ModuleOptimizer' object has no attribute 'state_dict'")
BURN = {"len(state['optimizer'])": 2, "state['scheduler']['iter_idx']": 0}
