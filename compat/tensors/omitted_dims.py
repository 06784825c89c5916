"""x.flatten(1), x.chunk(2): torch lets you omit dims that Burn requires."""
import torch

from burn_torch import Device, Tensor
from burn_torch.compat.entry import Raises

ID = "omitted_dims"
TITLE = "`flatten`, `chunk` and `split` need every dim: `x.flatten(1, -1)`, `x.chunk(2, 0)`"
CATEGORY = "tensors"
SEVERITY = "loud"
DETECTORS = ("dim_omitted",)
WHAT = "flatten(start, end), chunk(n, dim) and split(size, dim) take no defaults; torch's flatten() and chunk(n) raise"
WHY = """PyTorch fills in dims you leave out: `flatten()` flattens everything, `flatten(1)` from dim 1
to the last, `chunk(n)` and `split(size)` along dim 0. Burn's `flatten(start_dim, end_dim)`,
`chunk(chunks, dim)` and `split(split_size, dim)` take every dim explicitly (negative dims count
from the end), so the short forms raise TypeError."""
RECIPE = "x.flatten(0, -1) for flatten(), x.flatten(1, -1) for flatten(1), x.chunk(n, 0), x.split(size, 0)"


def torch_side():
    x = torch.ones(2, 3, 4)
    list(x.flatten(1).shape)
    [list(c.shape) for c in x.chunk(2)]


def burn_literal():
    x = Tensor.ones([2, 3, 4], Device.cpu())
    x.flatten(1)


def burn_side():
    x = Tensor.ones([2, 3, 4], Device.cpu())
    x.flatten(1, -1).dims()
    [c.dims() for c in x.chunk(2, 0)]


TORCH = {"list(x.flatten(1).shape)": [2, 12], "[list(c.shape) for c in x.chunk(2)]": [[1, 3, 4], [1, 3, 4]]}
LITERAL = Raises(TypeError, "flatten() missing 1 required positional argument: 'end_dim'")
BURN = {"x.flatten(1, -1).dims()": [2, 12], "[c.dims() for c in x.chunk(2, 0)]": [[1, 3, 4], [1, 3, 4]]}
