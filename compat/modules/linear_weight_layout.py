"""Linear weight is [d_input, d_output] in Burn, [out, in] in PyTorch."""
import torch

from burn_torch import Device, nn

ID = "linear_weight_layout"
TITLE = "`Linear.weight` is `[d_input, d_output]` (transposed)"
CATEGORY = "modules"
SEVERITY = "silent"
DETECTORS = ("linear_weight_read",)
WHAT = "nn.Linear's weight is stored [d_input, d_output] (y = x @ W + b); torch.nn.Linear stores [out, in]"
WHY = """Burn's `Linear` computes `x @ weight + bias` with the weight laid out `[d_input, d_output]`,
the transpose of `torch.nn.Linear.weight` (`[out, in]`, `y = x @ W.T + b`). Copying weights
between the two without transposing either fails on shapes or, for square layers, silently
computes something else. `burn_torch.compat.load_torch_state_dict` and `to_torch_state_dict`
transpose for you."""
RECIPE = "load PyTorch weights with load_torch_state_dict(model, state_dict); transpose by hand only for raw tensors"


def torch_side():
    lin = torch.nn.Linear(3, 2)
    list(lin.weight.shape)


def burn_literal():
    lin = nn.LinearConfig(3, 2).init(Device.cpu())
    lin.weight.dims()


def burn_side():
    lin = nn.LinearConfig(3, 2).init(Device.cpu())
    lin.weight.transpose().dims()


TORCH = {"list(lin.weight.shape)": [2, 3]}
LITERAL = {"lin.weight.dims()": [3, 2]}
BURN = {"lin.weight.transpose().dims()": [2, 3]}
