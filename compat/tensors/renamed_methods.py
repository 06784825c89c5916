"""item(), view(), tolist(), ...: Burn's names."""
import torch

from burn_torch import Device, Tensor
from burn_torch.compat.entry import Raises

ID = "renamed_methods"
TITLE = "`item()`, `view()`, `tolist()` and friends have Burn's names"
CATEGORY = "tensors"
SEVERITY = "loud"
DETECTORS = ("renamed_method_call", "squeeze_with_dim")
WHAT = "PyTorch-only method names do not exist: item, tolist, numpy, view, dim, numel, masked_fill, squeeze, long..."
WHY = """burn_torch keeps Burn's method names (the API reference lists them): `into_scalar()` for `item()`,
`to_data().to_list()` / `to_data().to_numpy()` for `tolist()` / `numpy()`, `reshape(dims)` for
`view`, `rank()` for `dim()`, `num_elements()` for `numel()`, `mask_fill` for `masked_fill`,
`squeeze_dim(d)` for `squeeze(d)`, `int()` for `long()`, `cast(DType.F64)` for `double()`. The
porting checker names the replacement for each call it finds."""
RECIPE = "use the Burn name (the checker prints it for each call)"


def torch_side():
    x = torch.tensor([1.0, 2.0])
    x.sum().item()


def burn_literal():
    x = Tensor.from_floats([1.0, 2.0], Device.cpu())
    x.sum().item()


def burn_side():
    x = Tensor.from_floats([1.0, 2.0], Device.cpu())
    x.sum().into_scalar()


TORCH = {"x.sum().item()": 3.0}
LITERAL = Raises(AttributeError, "'Tensor' object has no attribute 'item'")
BURN = {"x.sum().into_scalar()": 3.0}
