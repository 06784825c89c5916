"""F.nll_loss on log-probabilities vs CrossEntropyLoss on the logits."""
import torch
import torch.nn.functional as F

from burn_torch import Device, nn
from burn_torch.compat import from_torch
from burn_torch.compat.entry import Raises

ID = "nll_loss"
TITLE = "No NLL loss: use `CrossEntropyLoss` on the logits"
CATEGORY = "training"
SEVERITY = "loud"
DETECTORS = ("nll_loss_call",)
WHAT = "burn_torch has no nll_loss/NLLLoss; CrossEntropyLoss takes logits (or probabilities with logits=False)"
WHY = """Burn's classification loss is `CrossEntropyLoss`, which applies `log_softmax` itself.
PyTorch models that end in `log_softmax` and train with `F.nll_loss` (pytorch/examples' MNIST,
word_language_model) port to `CrossEntropyLoss` on the same outputs: `log_softmax` of
log-probabilities is the identity, so the loss value and gradient are the same whether the
model keeps its final `log_softmax` or not (drop it to save the work)."""
RECIPE = "nn.CrossEntropyLossConfig().init(device).forward(logits_or_log_probs, targets)"


def torch_side():
    logits, targets = torch.randn(4, 3, generator=torch.Generator().manual_seed(0)), torch.tensor([0, 2, 1, 2])
    loss = F.nll_loss(F.log_softmax(logits, dim=1), targets)
    round(loss.item(), 4)


def burn_literal():
    logits = from_torch(torch.randn(4, 3, generator=torch.Generator().manual_seed(0)), Device.cpu())
    targets = from_torch(torch.tensor([0, 2, 1, 2]), Device.cpu())
    loss = nn.nll_loss(nn.log_softmax(logits, 1), targets)


def burn_side():
    logits = from_torch(torch.randn(4, 3, generator=torch.Generator().manual_seed(0)), Device.cpu())
    targets = from_torch(torch.tensor([0, 2, 1, 2]), Device.cpu())
    loss = nn.CrossEntropyLossConfig().init(Device.cpu()).forward(nn.log_softmax(logits, 1), targets)
    round(loss.into_scalar(), 4)


TORCH = {"round(loss.item(), 4)": 0.9357}
LITERAL = Raises(AttributeError, "module 'burn_torch.nn' has no attribute 'nll_loss'")
BURN = {"round(loss.into_scalar(), 4)": 0.9357}
