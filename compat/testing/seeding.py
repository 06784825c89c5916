"""torch.manual_seed does not seed burn_torch: Device.seed."""
import torch

from burn_torch import Device, Distribution, Tensor

ID = "seeding"
TITLE = "`torch.manual_seed` does not seed burn_torch: `device.seed(n)`"
CATEGORY = "testing"
SEVERITY = "silent"
DETECTORS = ("manual_seed_call",)
WHAT = "burn_torch's random tensors and initializers use the device's own generator, which torch.manual_seed does not touch"
WHY = """As Burn seeds per backend/device, burn_torch keeps one random generator per torch device,
seeded with `device.seed(n)`. `Tensor.random`, `random_like` and the module initializers draw from
it; torch's global generator is neither used nor affected. A test that seeds torch to get the
same random tensors twice silently gets different ones. Seeded alike, the two draw the same
values: `device.seed(s)` gives the draws `torch.manual_seed(s)` gives (normal and uniform noise,
dropout masks), which is how `verify_port` compares stochastic steps exactly. Seed right before
the draws you compare: building a model draws its initial weights from the device generator, so
seeding before `config.init(device)` leaves the later draws out of step with torch's. For
weights, copy the values (`load_torch_state_dict`) rather than relying on equal seeds: the two
libraries' initialisers differ."""
RECIPE = "device.seed(n) before creating random tensors or modules; copy values across to compare with torch"


def torch_side():
    torch.manual_seed(0)
    a = torch.rand(3)
    torch.manual_seed(0)
    b = torch.rand(3)
    a.tolist() == b.tolist()


def burn_literal():
    cpu = Device.cpu()
    torch.manual_seed(0)
    a = Tensor.random([3], Distribution.default(), cpu)
    torch.manual_seed(0)
    b = Tensor.random([3], Distribution.default(), cpu)
    a.to_data().to_list() == b.to_data().to_list()


def burn_side():
    cpu = Device.cpu()
    cpu.seed(0)
    a = Tensor.random([3], Distribution.default(), cpu)
    cpu.seed(0)
    b = Tensor.random([3], Distribution.default(), cpu)
    a.to_data().to_list() == b.to_data().to_list()


TORCH = {"a.tolist() == b.tolist()": True}
LITERAL = {"a.to_data().to_list() == b.to_data().to_list()": False}
BURN = {"a.to_data().to_list() == b.to_data().to_list()": True}
