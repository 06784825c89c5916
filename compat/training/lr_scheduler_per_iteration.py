"""Burn's LR schedulers step once per iteration; torch's StepLR is usually stepped per epoch."""
import torch

from burn_torch.optim import StepLrSchedulerConfig

ID = "lr_scheduler_per_iteration"
TITLE = "Learning-rate schedulers step once per iteration (`StepLR` steps per epoch)"
CATEGORY = "training"
SEVERITY = "silent"
DETECTORS = ("scheduler_step_call",)
WHAT = "scheduler.step() returns the rate for this iteration; step_size counts iterations, not epochs"
WHY = """A Burn scheduler is a function of the iteration count: the training loop calls
`lr = scheduler.step()` before every optimizer step and passes `lr` to `optimizer.step(lr, ...)`
(the optimizer holds no learning rate). PyTorch's `StepLR`, `ExponentialLR` and most other
schedulers are stepped once per epoch by convention, so their `step_size` (and `T_max`,
`gamma`'s cadence) count epochs. Translated as is, the rate decays `iterations per epoch` times
too early."""
RECIPE = "scale epoch counts by iterations per epoch: StepLrSchedulerConfig(lr, step_size * iters_per_epoch)"


def torch_side():
    opt = torch.optim.SGD([torch.zeros(1, requires_grad=True)], lr=0.1)
    scheduler = torch.optim.lr_scheduler.StepLR(opt, step_size=2, gamma=0.1)
    lrs = []
    for epoch in range(3):
        for batch in range(2):
            lrs.append(opt.param_groups[0]["lr"])
            opt.step()
        scheduler.step()
    [round(lr, 6) for lr in lrs]


def burn_literal():
    scheduler = StepLrSchedulerConfig(0.1, step_size=2, gamma=0.1).init()
    lrs = []
    for epoch in range(3):
        for batch in range(2):
            lrs.append(scheduler.step())
    [round(lr, 6) for lr in lrs]


def burn_side():
    iters_per_epoch = 2
    scheduler = StepLrSchedulerConfig(0.1, step_size=2 * iters_per_epoch, gamma=0.1).init()
    lrs = []
    for epoch in range(3):
        for batch in range(iters_per_epoch):
            lrs.append(scheduler.step())
    [round(lr, 6) for lr in lrs]


TORCH = {"[round(lr, 6) for lr in lrs]": [0.1, 0.1, 0.1, 0.1, 0.01, 0.01]}
LITERAL = {"[round(lr, 6) for lr in lrs]": [0.1, 0.1, 0.01, 0.01, 0.001, 0.001]}
BURN = {"[round(lr, 6) for lr in lrs]": [0.1, 0.1, 0.1, 0.1, 0.01, 0.01]}
