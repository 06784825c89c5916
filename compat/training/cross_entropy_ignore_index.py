"""cross_entropy(ignore_index=...) vs CrossEntropyLossConfig(pad_tokens=...)."""
import torch
import torch.nn.functional as F

from burn_torch import Device, nn
from burn_torch.compat import from_torch
from burn_torch.compat.entry import Raises

ID = "cross_entropy_ignore_index"
TITLE = "`ignore_index` is `pad_tokens`, and nothing is ignored by default"
CATEGORY = "training"
SEVERITY = "loud"
DETECTORS = ()
WHAT = "CrossEntropyLossConfig has no ignore_index; pad_tokens lists the ignored classes (none by default)"
WHY = """Burn's `CrossEntropyLossConfig` names the ignored target classes `pad_tokens` (a list:
several may be ignored) and ignores none by default. PyTorch's `ignore_index` defaults to
`-100`, so PyTorch code may mark padding with `-100` without ever setting it; in burn_torch a
target of `-100` is not a class index. Map such targets to a real padding class and list it in
`pad_tokens`."""
RECIPE = "nn.CrossEntropyLossConfig(pad_tokens=(PAD,)).init(device); targets use PAD where torch used -100"


def torch_side():
    logits, targets = torch.randn(4, 3, generator=torch.Generator().manual_seed(0)), torch.tensor([0, 2, 1, 0])
    loss = F.cross_entropy(logits, targets, ignore_index=0)
    round(loss.item(), 4)


def burn_literal():
    logits = from_torch(torch.randn(4, 3, generator=torch.Generator().manual_seed(0)), Device.cpu())
    targets = from_torch(torch.tensor([0, 2, 1, 0]), Device.cpu())
    loss_fn = nn.CrossEntropyLossConfig(ignore_index=0).init(Device.cpu())


def burn_side():
    logits = from_torch(torch.randn(4, 3, generator=torch.Generator().manual_seed(0)), Device.cpu())
    targets = from_torch(torch.tensor([0, 2, 1, 0]), Device.cpu())
    loss_fn = nn.CrossEntropyLossConfig(pad_tokens=(0,)).init(Device.cpu())
    round(loss_fn.forward(logits, targets).into_scalar(), 4)


TORCH = {"round(loss.item(), 4)": 1.4364}
LITERAL = Raises(TypeError, "unexpected keyword argument 'ignore_index'")
BURN = {"round(loss_fn.forward(logits, targets).into_scalar(), 4)": 1.4364}
