"""PyTorch layers and losses whose Burn defaults differ (porting-checker sample; never run)."""
import torch
import torch.nn.functional as F
from torch import nn

block = nn.Sequential(nn.Linear(8, 8), nn.Hardsigmoid(), nn.RMSNorm(8))
lrn = nn.LocalResponseNorm(4)
criterion = nn.KLDivLoss()


def losses(logits, targets, log_probs, probs):
    ce = F.cross_entropy(logits, targets, ignore_index=-1)
    plain = F.cross_entropy(logits, targets)
    kl = F.kl_div(log_probs, probs, reduction="batchmean")
    return ce + plain + kl + criterion(log_probs, probs)


centred = nn.LocalResponseNorm(5)
norm = nn.BatchNorm2d(8)
