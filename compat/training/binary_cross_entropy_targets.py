"""F.binary_cross_entropy on soft targets: Burn's BinaryCrossEntropyLoss takes 0/1 Int targets."""
import torch
import torch.nn.functional as F

from burn_torch import Device, Tensor, nn
from burn_torch.compat.entry import Raises

ID = "binary_cross_entropy_targets"
TITLE = "`BinaryCrossEntropyLoss` takes 0/1 Int targets and averages: write soft targets and sums out"
CATEGORY = "training"
SEVERITY = "loud"
DETECTORS = ("binary_cross_entropy_call",)
WHAT = "BinaryCrossEntropyLoss.forward raises for Float targets (torch's are floats, often soft) and only averages"
WHY = """PyTorch's `F.binary_cross_entropy`, `nn.BCELoss` and their `_with_logits` forms take Float
targets, anywhere in [0, 1] (a VAE's pixel intensities, label smoothing, a GAN's 0.9 labels), and
`reduction="sum"` (or the old `size_average=False`) sums instead of averaging. Burn's
`BinaryCrossEntropyLoss` is for 0/1 class labels: it takes an Int targets tensor (Float targets
raise TypeError) and returns the mean. For soft targets or a sum, write the loss out: it is one
line, and autodiff differentiates it like PyTorch's (PyTorch also clamps each log at -100)."""
RECIPE = "-(t * p.log() + (1.0 - t) * (1.0 - p).log()).mean() (.sum() for reduction='sum'); 0/1 labels: t.int()"


def torch_side():
    p = torch.tensor([0.2, 0.7])
    t = torch.tensor([0.3, 1.0])
    round(F.binary_cross_entropy(p, t).item(), 4)


def burn_literal():
    device = Device.cpu()
    p = Tensor.from_floats([0.2, 0.7], device)
    t = Tensor.from_floats([0.3, 1.0], device)
    nn.BinaryCrossEntropyLossConfig().init(device).forward(p, t)


def burn_side():
    device = Device.cpu()
    p = Tensor.from_floats([0.2, 0.7], device)
    t = Tensor.from_floats([0.3, 1.0], device)
    loss = -(t * p.log() + (1.0 - t) * (1.0 - p).log()).mean()
    round(loss.into_scalar(), 4)


TORCH = {"round(F.binary_cross_entropy(p, t).item(), 4)": 0.4979}
LITERAL = Raises(TypeError, "targets must be an Int tensor, got Float")
BURN = {"round(loss.into_scalar(), 4)": 0.4979}
