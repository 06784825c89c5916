"""cross_entropy(ignore_index=...) vs CrossEntropyLossConfig(pad_tokens=...)."""
import torch
import torch.nn.functional as F

from burn_torch import Device, nn
from burn_torch.compat import from_torch

ID = "cross_entropy_ignore_index"
TITLE = "`ignore_index` is `pad_tokens`, and padded rows still count in the mean"
CATEGORY = "training"
SEVERITY = "silent"
DETECTORS = ("cross_entropy_ignore_index_call",)
WHAT = "pad_tokens lists ignored targets (none by default); padded rows count in the mean, unlike ignore_index"
WHY = """Burn's `CrossEntropyLossConfig` names the ignored target values `pad_tokens` (a list:
several may be ignored; burn_torch accepts any integer, `-1` or `-100` included) and ignores
none by default, where PyTorch's `ignore_index` defaults to `-100`. A padded row adds 0 to the
loss but, as in Burn, still counts in the denominator of the mean (with class weights, the sum
of every row's class weight), where PyTorch divides by the rows it kept. With padding, the loss
(and every gradient) is smaller by the fraction of rows padded; the ratio changes from batch to
batch."""
RECIPE = ("nn.CrossEntropyLossConfig(pad_tokens=(-100,)); multiply by rows / kept rows for "
          "PyTorch's value")


def torch_side():
    logits, targets = torch.randn(4, 3, generator=torch.Generator().manual_seed(0)), torch.tensor([-100, 2, 1, -100])
    loss = F.cross_entropy(logits, targets)
    round(loss.item(), 4)


def burn_literal():
    logits = from_torch(torch.randn(4, 3, generator=torch.Generator().manual_seed(0)), Device.cpu())
    targets = from_torch(torch.tensor([-100, 2, 1, -100]), Device.cpu())
    loss_fn = nn.CrossEntropyLossConfig(pad_tokens=(-100,)).init(Device.cpu())
    loss = loss_fn.forward(logits, targets)
    round(loss.into_scalar(), 4)


def burn_side():
    logits = from_torch(torch.randn(4, 3, generator=torch.Generator().manual_seed(0)), Device.cpu())
    targets = from_torch(torch.tensor([-100, 2, 1, -100]), Device.cpu())
    loss_fn = nn.CrossEntropyLossConfig(pad_tokens=(-100,)).init(Device.cpu())
    loss = loss_fn.forward(logits, targets)
    kept = targets.not_equal_elem(-100).int().sum().into_scalar()
    round(loss.into_scalar() * 4 / kept, 4)


TORCH = {"round(loss.item(), 4)": 1.4364}
LITERAL = {"round(loss.into_scalar(), 4)": 0.7182}
BURN = {"round(loss.into_scalar() * 4 / kept, 4)": 1.4364}
