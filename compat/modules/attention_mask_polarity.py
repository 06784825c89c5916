"""module_ops.attention's Bool mask is True where masked out; SDPA's is True where kept."""
import torch
import torch.nn.functional as F

from burn_torch import Device, module_ops
from burn_torch.compat import from_torch

ID = "attention_mask_polarity"
TITLE = "An attention mask is True where a position is *masked out*"
CATEGORY = "modules"
SEVERITY = "silent"
DETECTORS = ("sdpa_attention_mask",)
WHAT = "attention(q, k, v, mask) drops positions where mask is True; scaled_dot_product_attention keeps them"
WHY = """Burn's attention masks (`module_ops.attention`'s `mask`, `MhaInput`'s `mask_pad` and
`mask_attn`) mark the positions to *remove* (their scores become -inf), the convention of
Burn's `generate_autoregressive_mask`. `torch.nn.functional.scaled_dot_product_attention`'s Bool
`attn_mask` marks the positions to *keep*. A torch causal mask (`torch.ones(n, n).tril().bool()`)
passed as is masks the past instead of the future: rows that keep one position give wrong
numbers, and the last row, masked entirely, gives zeros (Burn's NaN-safe softmax)."""
RECIPE = "invert a torch Bool mask: attention(q, k, v, mask=keep.bool_not()); a causal mask is ones.triu(1) > 0"


def torch_side():
    q, k, v = torch.randn(3, 1, 1, 3, 2, generator=torch.Generator().manual_seed(0))
    keep = torch.ones(3, 3).tril().bool()          # causal: True where attended
    out = F.scaled_dot_product_attention(q, k, v, attn_mask=keep)
    out[..., 2, :].abs().sum().item() > 0


def burn_literal():
    tq, tk, tv = torch.randn(3, 1, 1, 3, 2, generator=torch.Generator().manual_seed(0))
    q, k, v = (from_torch(t, Device.cpu()) for t in (tq, tk, tv))
    keep = from_torch(torch.ones(1, 1, 3, 3).tril().bool(), Device.cpu())
    out = module_ops.attention(q, k, v, mask=keep)
    out.slice([(0, 1), (0, 1), (2, 3)]).abs().sum().into_scalar() > 0


def burn_side():
    tq, tk, tv = torch.randn(3, 1, 1, 3, 2, generator=torch.Generator().manual_seed(0))
    q, k, v = (from_torch(t, Device.cpu()) for t in (tq, tk, tv))
    keep = from_torch(torch.ones(1, 1, 3, 3).tril().bool(), Device.cpu())
    out = module_ops.attention(q, k, v, mask=keep.bool_not())
    out.slice([(0, 1), (0, 1), (2, 3)]).abs().sum().into_scalar() > 0
    out.all_close(from_torch(F.scaled_dot_product_attention(tq, tk, tv, attn_mask=keep.to_torch()), Device.cpu()), atol=1e-6)


TORCH = {"out[..., 2, :].abs().sum().item() > 0": True}
LITERAL = {"out.slice([(0, 1), (0, 1), (2, 3)]).abs().sum().into_scalar() > 0": False}
BURN = {"out.slice([(0, 1), (0, 1), (2, 3)]).abs().sum().into_scalar() > 0": True,
        "out.all_close(from_torch(F.scaled_dot_product_attention(tq, tk, tv, attn_mask=keep.to_torch()), Device.cpu()), atol=1e-06)": True}
