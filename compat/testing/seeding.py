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
same random tensors twice silently gets different ones. The two libraries' random streams are
independent anyway: to compare a port with PyTorch, copy the values (for weights,
`load_torch_state_dict`) instead of relying on equal seeds."""
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
