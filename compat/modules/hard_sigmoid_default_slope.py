"""HardSigmoidConfig's default slope (ONNX's 0.2) vs torch.nn.Hardsigmoid's 1/6."""
import torch

from burn_torch import Device, nn
from burn_torch.compat import from_torch

ID = "hard_sigmoid_default_slope"
TITLE = "`HardSigmoid`'s default slope is 0.2, not 1/6"
CATEGORY = "modules"
SEVERITY = "silent"
DETECTORS = ("hardsigmoid_call",)
WHAT = "HardSigmoidConfig() is clamp(0.2 x + 0.5, 0, 1); torch.nn.Hardsigmoid is clamp(x / 6 + 0.5, 0, 1)"
WHY = """Burn's `HardSigmoidConfig` takes ONNX's defaults, `alpha = 0.2` and `beta = 0.5`, where
PyTorch's `Hardsigmoid` (and `hardswish`, built on it) uses a slope of 1/6: the two saturate at
x = 2.5 and x = 3. A port with the default config computes different activations everywhere
but at 0. burn_torch's `HardSwish` (and `activation.hard_swish`) uses 1/6, as PyTorch's."""
RECIPE = "nn.HardSigmoidConfig(1 / 6, 0.5).init() for torch.nn.Hardsigmoid()"


def torch_side():
    x = torch.tensor([[-2.0, 1.0, 2.5]])
    y = torch.nn.Hardsigmoid()(x)
    [round(v, 4) for v in y.flatten().tolist()]


def burn_literal():
    x = torch.tensor([[-2.0, 1.0, 2.5]])
    y = nn.HardSigmoidConfig().init().forward(from_torch(x, Device.cpu()))
    [round(v, 4) for v in y.to_torch().flatten().tolist()]


def burn_side():
    x = torch.tensor([[-2.0, 1.0, 2.5]])
    y = nn.HardSigmoidConfig(1 / 6, 0.5).init().forward(from_torch(x, Device.cpu()))
    [round(v, 4) for v in y.to_torch().flatten().tolist()]


TORCH = {"[round(v, 4) for v in y.flatten().tolist()]": [0.1667, 0.6667, 0.9167]}
LITERAL = {"[round(v, 4) for v in y.to_torch().flatten().tolist()]": [0.1, 0.7, 1.0]}
BURN = {"[round(v, 4) for v in y.to_torch().flatten().tolist()]": [0.1667, 0.6667, 0.9167]}
