"""Burn's RotaryEncoding rotates adjacent pairs; Hugging Face's rotate_half pairs x[i], x[i + d/2]."""
import torch

from burn_torch import Device, nn
from burn_torch.compat import from_torch

ID = "rotary_pair_layout"
TITLE = "`RotaryEncoding` rotates adjacent pairs (not `rotate_half`'s halves)"
CATEGORY = "modules"
SEVERITY = "silent"
DETECTORS = ("rotate_half_definition",)
WHAT = "RotaryEncoding rotates (x[2i], x[2i+1]); a rotate_half RoPE rotates (x[i], x[i + d/2])"
WHY = """Burn's `RotaryEncoding` (like Meta's original Llama code) treats each adjacent pair
`(x[2i], x[2i + 1])` of the last dim as one complex number rotated by `position * theta_i`.
Hugging Face's `rotate_half` implementation pairs `x[i]` with `x[i + d/2]` instead. Both are RoPE,
and a model trained with one gives other attention scores with the other: a port of a
`rotate_half` model that calls `RotaryEncoding` as is runs and silently computes something
else. Hugging Face's conversion scripts permute the query and key projections for exactly this."""
RECIPE = "interleave the halves first: x.reshape([..., 2, d // 2]).swap_dims(-1, -2).reshape([..., d]), and back after"


def torch_side():
    def rotate_half(x):
        return torch.cat((-x[..., 2:], x[..., :2]), dim=-1)
    x = torch.tensor([[1.0, 0.0, 0.0, 0.0], [1.0, 0.0, 0.0, 0.0]])      # [seq, d]
    inv = 1.0 / 10000 ** (torch.arange(0, 4, 2).float() / 4)
    emb = torch.outer(torch.arange(2).float(), inv).repeat(1, 2)
    out = x * emb.cos() + rotate_half(x) * emb.sin()
    [round(v, 4) for v in out[1].tolist()]


def burn_literal():
    rope = nn.RotaryEncodingConfig(2, 4).init(Device.cpu())
    x = from_torch(torch.tensor([[1.0, 0.0, 0.0, 0.0], [1.0, 0.0, 0.0, 0.0]]), Device.cpu())
    out = rope.forward(x)
    [round(v, 4) for v in out.slice([(1, 2)]).reshape([-1]).to_data().to_list()]


def burn_side():
    rope = nn.RotaryEncodingConfig(2, 4).init(Device.cpu())
    x = from_torch(torch.tensor([[1.0, 0.0, 0.0, 0.0], [1.0, 0.0, 0.0, 0.0]]), Device.cpu())
    interleaved = x.reshape([2, 2, 2]).swap_dims(1, 2).reshape([2, 4])
    out = rope.forward(interleaved).reshape([2, 2, 2]).swap_dims(1, 2).reshape([2, 4])
    [round(v, 4) for v in out.slice([(1, 2)]).reshape([-1]).to_data().to_list()]


TORCH = {"[round(v, 4) for v in out[1].tolist()]": [0.5403, 0.0, 0.8415, 0.0]}
LITERAL = {"[round(v, 4) for v in out.slice([(1, 2)]).reshape([-1]).to_data().to_list()]": [0.5403, 0.8415, 0.0, 0.0]}
BURN = {"[round(v, 4) for v in out.slice([(1, 2)]).reshape([-1]).to_data().to_list()]": [0.5403, 0.0, 0.8415, 0.0]}
