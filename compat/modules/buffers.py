"""register_buffer vs a frozen Param (or a plain constant)."""
import torch

from burn_torch import Device, Tensor
from burn_torch.compat.entry import Raises
from burn_torch.module import Module, Param

ID = "buffers"
TITLE = "Buffers are frozen `Param`s (saved) or plain tensor attributes (not saved)"
CATEGORY = "modules"
SEVERITY = "loud"
DETECTORS = ("register_buffer_call",)
WHAT = "modules have no register_buffer; state that is saved but not trained is a Param with set_require_grad(False)"
WHY = """Burn modules have no buffers: everything a module holds is a field. State that must be
saved and loaded with the weights but not trained (BatchNorm's running statistics) is a
`Param` configured with `set_require_grad(False)`: it is in the record and the state dict, and
gets no gradient, so optimizers leave it. A tensor attribute that is not a Param is a constant:
it moves with the module (`to_device`) but is not saved, like PyTorch's
`register_buffer(..., persistent=False)`."""
RECIPE = "self.running = Param(Tensor.zeros([3], device)).set_require_grad(False)"


def torch_side():
    class Stats(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.register_buffer("running", torch.zeros(3))

    stats = Stats()
    list(stats.state_dict())
    len(list(stats.parameters()))


def burn_literal():
    class Stats(Module):
        def __init__(self, device):
            super().__init__()
            self.register_buffer("running", Tensor.zeros([3], device))

    stats = Stats(Device.cpu())


def burn_side():
    class Stats(Module):
        def __init__(self, device):
            super().__init__()
            self.running = Param(Tensor.zeros([3], device)).set_require_grad(False)

    stats = Stats(Device.cpu().autodiff()).train()
    [name for name, _ in stats.named_params()]
    len([p for p in stats.params() if p.is_require_grad()])


TORCH = {"list(stats.state_dict())": ["running"], "len(list(stats.parameters()))": 0}
LITERAL = Raises(AttributeError, "'Stats' object has no attribute 'register_buffer'")
BURN = {"[name for name, _ in stats.named_params()]": ["running"],
        "len([p for p in stats.params() if p.is_require_grad()])": 0}
