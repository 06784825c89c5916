"""PyTorch resampling and rotary-embedding idioms (porting-checker sample; never run)."""
import torch
import torch.nn.functional as F
from torch import nn


def rotate_half(x):
    x1, x2 = x[..., : x.shape[-1] // 2], x[..., x.shape[-1] // 2:]
    return torch.cat((-x2, x1), dim=-1)


x = torch.randn(1, 3, 8, 8)
a = F.interpolate(x, size=(16, 16), mode="bilinear")
b = F.interpolate(x, size=(16, 16), mode="bilinear", align_corners=False)
c = F.interpolate(x, scale_factor=2)
up = nn.Upsample(scale_factor=2, mode="bicubic")
down = nn.Upsample(size=4, mode="nearest")
