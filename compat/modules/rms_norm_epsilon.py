"""RmsNormConfig's epsilon 1e-5 vs torch.nn.RMSNorm's default (the dtype's machine epsilon)."""
import torch

from burn_torch import Device, nn
from burn_torch.compat import from_torch

ID = "rms_norm_epsilon"
TITLE = "`RmsNorm`'s epsilon defaults to 1e-5"
CATEGORY = "modules"
SEVERITY = "silent"
DETECTORS = ("rms_norm_call",)
WHAT = "RmsNormConfig(d).epsilon is 1e-5; torch.nn.RMSNorm(d) uses torch.finfo(dtype).eps (1.2e-7 in float32)"
WHY = """Burn's `RmsNormConfig` defaults `epsilon` to `1e-5`; PyTorch's `RMSNorm` with `eps=None`
uses the machine epsilon of the input's dtype. Where the mean square of a row is not far above
1e-5 (small activations, early in training) the two normalise differently; loaded weights
then give different outputs."""
RECIPE = "nn.RmsNormConfig(d).with_epsilon(torch.finfo(torch.float32).eps) for torch.nn.RMSNorm(d)"


def torch_side():
    x = torch.tensor([[0.001, 0.002]])
    y = torch.nn.RMSNorm(2)(x)
    [round(v, 4) for v in y.flatten().tolist()]


def burn_literal():
    x = from_torch(torch.tensor([[0.001, 0.002]]), Device.cpu())
    y = nn.RmsNormConfig(2).init(Device.cpu()).forward(x)
    [round(v, 4) for v in y.to_torch().flatten().tolist()]


def burn_side():
    x = from_torch(torch.tensor([[0.001, 0.002]]), Device.cpu())
    y = nn.RmsNormConfig(2).with_epsilon(torch.finfo(torch.float32).eps).init(Device.cpu()).forward(x)
    [round(v, 4) for v in y.to_torch().flatten().tolist()]


TORCH = {"[round(v, 4) for v in y.flatten().tolist()]": [0.6179, 1.2358]}
LITERAL = {"[round(v, 4) for v in y.to_torch().flatten().tolist()]": [0.2828, 0.5657]}
BURN = {"[round(v, 4) for v in y.to_torch().flatten().tolist()]": [0.6179, 1.2358]}
