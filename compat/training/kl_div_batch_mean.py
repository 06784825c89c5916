"""KLDivLoss's default reduction: Burn's batch mean vs torch's element mean."""
import torch
import torch.nn.functional as F

from burn_torch import Device, nn
from burn_torch.compat import from_torch

ID = "kl_div_batch_mean"
TITLE = "`KLDivLoss` reduces to the batch mean by default"
CATEGORY = "training"
SEVERITY = "silent"
DETECTORS = ("kl_div_call",)
WHAT = "KLDivLoss's default reduction (AUTO) is the sum over the batch size; torch's is the mean of every element"
WHY = """Burn's `KLDivLoss` reduces with `Reduction::Auto`, which for this loss is the batch mean
(the sum divided by the size of dim 0: the KL divergence per sample). PyTorch's `kl_div` and
`nn.KLDivLoss` default to `reduction="mean"`, the mean over every element (PyTorch warns that
this is not the KL divergence). A port that keeps the default gets a loss, and gradients,
`num_classes` times larger than the PyTorch code it replaces."""
RECIPE = "loss.forward(log_probs, targets, nn.Reduction.MEAN) for torch's default; AUTO is reduction='batchmean'"


def torch_side():
    g = torch.Generator().manual_seed(0)
    log_p, t = torch.randn(2, 4, generator=g).log_softmax(1), torch.randn(2, 4, generator=g).softmax(1)
    loss = F.kl_div(log_p, t)
    round(loss.item(), 4)


def burn_literal():
    g = torch.Generator().manual_seed(0)
    log_p, t = torch.randn(2, 4, generator=g).log_softmax(1), torch.randn(2, 4, generator=g).softmax(1)
    loss = nn.KLDivLossConfig().init().forward(from_torch(log_p, Device.cpu()), from_torch(t, Device.cpu()))
    round(loss.into_scalar(), 4)


def burn_side():
    g = torch.Generator().manual_seed(0)
    log_p, t = torch.randn(2, 4, generator=g).log_softmax(1), torch.randn(2, 4, generator=g).softmax(1)
    loss = nn.KLDivLossConfig().init().forward(from_torch(log_p, Device.cpu()), from_torch(t, Device.cpu()), nn.Reduction.MEAN)
    round(loss.into_scalar(), 4)


TORCH = {"round(loss.item(), 4)": 0.2288}
LITERAL = {"round(loss.into_scalar(), 4)": 0.9152}
BURN = {"round(loss.into_scalar(), 4)": 0.2288}
