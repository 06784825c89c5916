"""burn_torch and torch tensors do not mix; convert with from_torch."""
import torch

from burn_torch import Device, Tensor
from burn_torch.compat.entry import Raises

ID = "mixing_torch_tensors"
TITLE = "torch tensors and burn_torch tensors do not mix"
CATEGORY = "tensors"
SEVERITY = "loud"
DETECTORS = ("torch_value_meets_burn",)
WHAT = "operators between a burn_torch Tensor and a torch.Tensor or numpy array raise TypeError, either side"
WHY = """A burn_torch tensor wraps torch storage but is not a `torch.Tensor`, and its operators only
accept burn_torch tensors and Python scalars, so a half-ported program fails where the two meet
instead of mixing two autodiff systems. `burn_torch.compat.from_torch(t, device)` wraps a torch
tensor without copying; `to_torch(x)` goes the other way."""
RECIPE = "wrap the torch tensor: from_torch(t, device) (zero-copy); back with to_torch(x)"


def torch_side():
    x = torch.tensor([1.0, 2.0])
    w = torch.tensor([3.0, 4.0])
    (x * w).tolist()


def burn_literal():
    x = Tensor.from_floats([1.0, 2.0], Device.cpu())
    w = torch.tensor([3.0, 4.0])
    x * w


def burn_side():
    from burn_torch.compat import from_torch
    x = Tensor.from_floats([1.0, 2.0], Device.cpu())
    w = torch.tensor([3.0, 4.0])
    (x * from_torch(w, Device.cpu())).to_data().to_list()


TORCH = {"(x * w).tolist()": [3.0, 8.0]}
LITERAL = Raises(TypeError, "cannot combine a burn_torch Tensor with a torch.Tensor; convert it first")
BURN = {"(x * from_torch(w, Device.cpu())).to_data().to_list()": [3.0, 8.0]}
