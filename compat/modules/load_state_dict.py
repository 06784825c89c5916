"""model.load_state_dict(sd) vs load_torch_state_dict(model, sd)."""
import torch

from burn_torch import Device, Tensor, nn
from burn_torch.compat.entry import Raises

ID = "load_state_dict"
TITLE = "Load PyTorch weights with `load_torch_state_dict(model, state_dict)`"
CATEGORY = "modules"
SEVERITY = "loud"
DETECTORS = ("load_state_dict_call",)
WHAT = "modules have no load_state_dict / state_dict; the compat adapter converts names and layouts"
WHY = """Burn modules save and load records keyed by their structure (`into_record`, `load_record`,
`save_file` / `load_file`). A PyTorch `state_dict` uses torch's names and layouts (Linear weights
transposed), so it goes through `burn_torch.compat.load_torch_state_dict(model, state_dict)`,
which returns the loaded module (modules are values) and the incompatible keys; the reverse is
`to_torch_state_dict(model)`. Between two burn_torch modules no state dict is involved: a copy
is `target = model` (a value; later optimizer steps return new modules) or, into a module built
separately, `target = target.load_record(model.into_record())`, which copies the values *and*
the ParamIds; load a record of plain tensors (`{name: p.val() for name, p in
model.named_params()}`) to keep the target's own ids."""
RECIPE = "from torch: load_torch_state_dict(model, sd); between burn_torch modules: target.load_record(model.into_record())"


def torch_side():
    source = torch.nn.Linear(2, 1)
    lin = torch.nn.Linear(2, 1)
    lin.load_state_dict(source.state_dict())
    torch.equal(lin(torch.ones(1, 2)), source(torch.ones(1, 2)))


def burn_literal():
    source = torch.nn.Linear(2, 1)
    lin = nn.LinearConfig(2, 1).init(Device.cpu())
    lin.load_state_dict(source.state_dict())


def burn_side():
    from burn_torch.compat import from_torch, load_torch_state_dict
    source = torch.nn.Linear(2, 1)
    lin, _ = load_torch_state_dict(nn.LinearConfig(2, 1).init(Device.cpu()), source.state_dict())
    expected = from_torch(source(torch.ones(1, 2)), Device.cpu())
    twin = nn.LinearConfig(2, 1).init(Device.cpu()).load_record(lin.into_record())  # burn → burn
    lin.forward(Tensor.ones([1, 2], Device.cpu())).all_close(expected)
    twin.weight.val().equal(lin.weight.val()).all().into_scalar()


TORCH = {"torch.equal(lin(torch.ones(1, 2)), source(torch.ones(1, 2)))": True}
LITERAL = Raises(AttributeError, "'Linear' object has no attribute 'load_state_dict'")
BURN = {"lin.forward(Tensor.ones([1, 2], Device.cpu())).all_close(expected)": True,
        "twin.weight.val().equal(lin.weight.val()).all().into_scalar()": True}
