"""LocalResponseNorm with an even size: Burn's window reaches up, torch's down."""
import torch

from burn_torch import Device, nn
from burn_torch.compat import from_torch

ID = "local_response_norm_even_size"
TITLE = "An even `LocalResponseNorm` window leans the other way"
CATEGORY = "modules"
SEVERITY = "silent"
DETECTORS = ("local_response_norm_call",)
WHAT = "for an even size, Burn's channel window is c - size/2 + 1 .. c + size/2; torch's c - size/2 .. c + size/2 - 1"
WHY = """Both average the squares over a window of `size` channels (zeros past the edges). For
an odd size the window is centred in both. For an even size Burn pads `(size - 1) / 2` channels
below and `size / 2` above, PyTorch the reverse, so every channel is normalised by a different
window. Flipping the channels before and after the layer turns one into the other."""
RECIPE = "lrn.forward(x.flip([1])).flip([1]) for torch's window with an even size"


def torch_side():
    x = torch.arange(1.0, 5.0).reshape(1, 4, 1)
    y = torch.nn.LocalResponseNorm(2, alpha=1.0)(x)
    [round(v, 4) for v in y.flatten().tolist()]


def burn_literal():
    x = from_torch(torch.arange(1.0, 5.0).reshape(1, 4, 1), Device.cpu())
    y = nn.LocalResponseNormConfig(2).with_alpha(1.0).init().forward(x)
    [round(v, 4) for v in y.to_torch().flatten().tolist()]


def burn_side():
    x = from_torch(torch.arange(1.0, 5.0).reshape(1, 4, 1), Device.cpu())
    y = nn.LocalResponseNormConfig(2).with_alpha(1.0).init().forward(x.flip([1])).flip([1])
    [round(v, 4) for v in y.to_torch().flatten().tolist()]


TORCH = {"[round(v, 4) for v in y.flatten().tolist()]": [0.7378, 0.7816, 0.662, 0.5679]}
LITERAL = {"[round(v, 4) for v in y.to_torch().flatten().tolist()]": [0.3908, 0.4413, 0.426, 0.7698]}
BURN = {"[round(v, 4) for v in y.to_torch().flatten().tolist()]": [0.7378, 0.7816, 0.662, 0.5679]}
