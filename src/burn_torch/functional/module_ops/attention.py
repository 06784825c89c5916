"""Burn's ``module::attention`` (scaled dot-product attention, Burn 0.21's) and its
[`AttentionModuleOptions`][burn_torch.functional.module_ops.AttentionModuleOptions].
"""
from __future__ import annotations

import math
from dataclasses import dataclass

import torch

from ... import validate
from ...autodiff.recorder import apply3, applyn
from ...dtype import Bool, kind_of
from ...ops import nn as nn_ops
from ...tensor import Tensor
from .checks import _describe, _flag, _float, _shape


# ============================================================================ attention ====
@dataclass(frozen=True, kw_only=True)
class AttentionModuleOptions:
    """Burn's ``AttentionModuleOptions``: ``scale`` (None: ``1 / sqrt(head_dim)``), ``softcap``
    (None, or positive: scores become ``softcap * tanh(scores / softcap)`` before masking, as
    Gemma 2) and ``is_causal`` (mask key ``j`` for query ``i`` when ``j > i + seq_k - seq_q``,
    the causal boundary aligned at the bottom-right corner)."""

    scale: float | None = None
    softcap: float | None = None
    is_causal: bool = False

    def __post_init__(self) -> None:
        for field in ("scale", "softcap"):
            value = getattr(self, field)
            if value is not None:
                value = validate.real("AttentionModuleOptions", field, value)
                object.__setattr__(self, field, float(value))
        if self.softcap is not None and not self.softcap > 0:
            raise ValueError(f"AttentionModuleOptions: softcap must be positive, got "
                             f"{self.softcap}")
        _flag("AttentionModuleOptions", "is_causal", self.is_causal)


_NO_OPTIONS = AttentionModuleOptions()


def attention(q: Tensor, k: Tensor, v: Tensor, mask: Tensor | None = None,
              attn_bias: Tensor | None = None,
              options: AttentionModuleOptions | None = None) -> Tensor:
    """Scaled dot-product attention, Burn's (0.21): ``softmax(q kᵀ · scale [softcapped], -inf
    where masked, + attn_bias) v``.

    q ``[batch, heads, seq_q, head_dim]``, k ``[batch, heads, seq_k, head_dim]``, v ``[batch,
    heads, seq_k, val_dim]`` (same batch and heads); the optional Bool ``mask`` (broadcastable to
    ``[batch, heads, seq_q, seq_k]``) is True where a position is masked out; the optional Float
    ``attn_bias`` (broadcastable likewise, differentiable) is added to the scores after masking
    (ALiBi, relative positions); ``options``:
    [`AttentionModuleOptions`][burn_torch.functional.module_ops.AttentionModuleOptions]. A fully
    masked row attends to nothing: its output and gradients are 0 (Burn's NaN-safe softmax). Returns
    ``[batch, heads, seq_q, val_dim]``. Raises TypeError/ValueError (naming the shapes) for other
    kinds or shapes.
    """
    # one cheap check on the hot path; _attention_error explains a failure
    if not (isinstance(q, Tensor) and isinstance(k, Tensor) and isinstance(v, Tensor)
            and _attention_ok(q._data.shape, k._data.shape, v._data.shape)
            and q._data.is_floating_point() and k._data.is_floating_point()
            and v._data.is_floating_point()):
        _attention_error(q, k, v)
    if options is None:
        options = _NO_OPTIONS
    elif type(options) is not AttentionModuleOptions:
        raise TypeError(f"attention: options must be AttentionModuleOptions, got {options!r}")
    qs, ks = q._data.shape, k._data.shape
    scores = (qs[0], qs[1], qs[2], ks[2])
    mask_data = None
    if mask is not None:
        if not isinstance(mask, Tensor) or kind_of(mask._data.dtype) is not Bool:
            raise TypeError(f"attention: mask must be a Bool Tensor, got {_describe(mask)}")
        if not _broadcasts(mask, scores):
            raise ValueError(f"attention: mask {_shape(mask)} must broadcast to the scores "
                             f"{list(scores)}")
        mask_data = mask._data
    # is_causal alone over square scores is the op's ``causal`` attr (torch's own causal
    # kernels, no mask tensor); with a mask, or with seq_q != seq_k (Burn aligns the diagonal
    # at the bottom-right corner), it is folded into the mask
    causal = options.is_causal
    if causal and (mask_data is not None or qs[2] != ks[2]):
        seq_q, seq_k = qs[2], ks[2]
        device = q._data.device
        rows = torch.arange(seq_q, device=device).view(-1, 1) + (seq_k - seq_q)
        folded = (torch.arange(seq_k, device=device).view(1, -1) > rows).view(
            1, 1, seq_q, seq_k)
        mask_data = folded if mask_data is None else mask_data | folded
        causal = False
    scale = options.scale
    if scale is None:
        scale = 1.0 / math.sqrt(qs[3])
    attrs = (mask_data, scale, options.softcap, causal)
    if attn_bias is None:
        return apply3(nn_ops.ATTENTION, q, k, v, attrs)
    _float("attention", "attn_bias", attn_bias, 4, " [batch, heads, seq_q, seq_k]")
    if not _broadcasts(attn_bias, scores):
        raise ValueError(f"attention: attn_bias {_shape(attn_bias)} must broadcast to the "
                         f"scores {list(scores)}")
    return applyn(nn_ops.ATTENTION, (q, k, v, attn_bias), attrs)


def _attention_ok(qs, ks, vs) -> bool:
    """Whether q, k, v of these shapes are rank 4 with the same batch and heads, q and k the
    same head_dim, k and v the same seq_k."""
    return (len(qs) == 4 and len(ks) == 4 and len(vs) == 4 and qs[0] == ks[0] == vs[0]
            and qs[1] == ks[1] == vs[1] and qs[3] == ks[3] and ks[2] == vs[2])


def _attention_error(q, k, v) -> None:
    """Raises the error that explains why q, k, v are not valid attention inputs."""
    layout = " [batch, heads, seq, dim]"
    for name, t in (("q", q), ("k", k), ("v", v)):
        _float("attention", name, t, 4, layout)
    qs, ks, vs = _shape(q), _shape(k), _shape(v)
    raise ValueError(f"attention: incompatible shapes q {qs}, k {ks}, v {vs} (they need the "
                     f"same batch and heads, q and k the same head_dim, k and v the same "
                     f"seq_k)")


def _broadcasts(t: Tensor, shape) -> bool:
    """Whether ``t`` (rank 4) broadcasts to ``shape`` (4 sizes)."""
    ts = t._data.shape
    return len(ts) == 4 and all(a == b or a == 1 for a, b in zip(ts, shape))
