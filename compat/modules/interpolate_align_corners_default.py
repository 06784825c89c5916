"""Burn's interpolation aligns corners by default; torch's linear modes do not."""
import torch

from burn_torch import Device, nn
from burn_torch.compat import from_torch

ID = "interpolate_align_corners_default"
TITLE = "Interpolation aligns corners by default (`align_corners=True`)"
CATEGORY = "modules"
SEVERITY = "silent"
DETECTORS = ("interpolate_without_align_corners",)
WHAT = "Interpolate1d/2d and InterpolateOptions default align_corners to True; torch's linear modes to False"
WHY = """Burn's `Interpolate1dConfig`, `Interpolate2dConfig` and `module_ops.InterpolateOptions`
default `align_corners` to true: the corner samples of input and output coincide and the
positions in between are spread over `(size_in - 1) / (size_out - 1)`. `torch.nn.functional.interpolate`
and `torch.nn.Upsample` default it to false in their linear and cubic modes (samples at pixel
centres). A literal port resizes to other values everywhere but at the corners, without an error.
Nearest-neighbour resizing is the same in both."""
RECIPE = "with_align_corners(False) on the interpolate config (InterpolateOptions(mode=..., align_corners=False))"


def torch_side():
    x = torch.tensor([[[0.0, 1.0, 4.0]]])
    out = torch.nn.functional.interpolate(x, size=5, mode="linear")
    [round(v, 4) for v in out.flatten().tolist()]


def burn_literal():
    x = from_torch(torch.tensor([[[0.0, 1.0, 4.0]]]), Device.cpu())
    out = nn.Interpolate1dConfig(5, None, nn.InterpolateMode.LINEAR).init().forward(x)
    [round(v, 4) for v in out.reshape([-1]).to_data().to_list()]


def burn_side():
    x = from_torch(torch.tensor([[[0.0, 1.0, 4.0]]]), Device.cpu())
    config = nn.Interpolate1dConfig(5, None, nn.InterpolateMode.LINEAR).with_align_corners(False)
    out = config.init().forward(x)
    [round(v, 4) for v in out.reshape([-1]).to_data().to_list()]


TORCH = {"[round(v, 4) for v in out.flatten().tolist()]": [0.0, 0.4, 1.0, 2.8, 4.0]}
LITERAL = {"[round(v, 4) for v in out.reshape([-1]).to_data().to_list()]": [0.0, 0.5, 1.0, 2.5, 4.0]}
BURN = {"[round(v, 4) for v in out.reshape([-1]).to_data().to_list()]": [0.0, 0.4, 1.0, 2.8, 4.0]}
