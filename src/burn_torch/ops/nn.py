"""Neural-network module ops (Burn's ``tensor::module``): linear, embedding, interpolate, unfold4d
and attention. Convolutions live in ``ops.conv``, pooling in ``ops.pool``.

``linear`` is applied with ``applyn`` (``forward(datas, *attrs)`` with ``(x, weight)`` or
``(x, weight, bias)``), ``attention`` with ``applyn`` over ``(q, k, v)``: its last attribute is a
fresh empty list (a *sink*) into which ``forward`` appends the state its rule needs besides the
inputs. The others are one-input entries applied with ``apply1``.
"""
import torch

from .table import COMPUTE, MEMORY, defop, save_inputs, save_nothing

aten = torch.ops.aten
_EMBEDDING_BACKWARD = aten.embedding_dense_backward.default
_UPSAMPLE_BACKWARD = {
    "nearest": aten.upsample_nearest2d_backward.default,
    "bilinear": aten.upsample_bilinear2d_backward.default,
    "bicubic": aten.upsample_bicubic2d_backward.default,
}
_UPSAMPLE = {
    "nearest": torch._C._nn.upsample_nearest2d,
    "bilinear": torch._C._nn.upsample_bilinear2d,
    "bicubic": torch._C._nn.upsample_bicubic2d,
}
_im2col = torch._C._nn.im2col
_col2im = torch._C._nn.col2im
_mm = torch.mm
_addmm = torch.addmm
_matmul = torch.matmul
_softmax = torch.softmax
_softmax_backward = torch._softmax_backward_data


# ---- linear: y = x @ weight + bias, weight [d_input, d_output] (no transpose, as Burn) ----------
def _linear_forward(datas):
    x, w = datas[0], datas[1]
    x2 = x if x.dim() == 2 else x.reshape(-1, w.shape[0])
    out = _addmm(datas[2], x2, w) if len(datas) == 3 else _mm(x2, w)
    return out if x.dim() == 2 else out.view(*x.shape[:-1], w.shape[1])


def _linear_rule(g, n):
    parents = n.parents
    px, pw = parents[0], parents[1]
    x, w = n.saved
    g2 = g if g.dim() == 2 else g.reshape(-1, g.shape[-1])
    gx = gw = None
    if px is not None:
        gx = _mm(g2, w.t())
        if g.dim() != 2:
            gx = gx.view(px.shape)
    if pw is not None:
        gw = _mm(x.t(), g2)
    if len(parents) == 2:
        return gx, gw
    return gx, gw, g2.sum(0) if parents[2] is not None else None


def _save_linear(datas, out, parents):
    """x (as a matrix) is needed only for the weight's gradient, the weight only for x's."""
    x, w = datas[0], datas[1]
    if parents[1] is None:
        x = None
    elif x.dim() != 2:
        x = x.reshape(-1, x.shape[-1])
    return x, w if parents[0] is not None else None


# ---- embedding: attrs (indices,) -----------------------------------------------------------------
def _embedding_rule(g, n):
    return (_EMBEDDING_BACKWARD(g, n.attrs[0], n.parents[0].shape[0], -1, False),)


# ---- interpolate: attrs (output_size, mode, align_corners) ---------------------------------------
def _interpolate_forward(x, output_size, mode, align_corners):
    if mode == "nearest":
        return _UPSAMPLE[mode](x, output_size)
    return _UPSAMPLE[mode](x, output_size, align_corners)


def _interpolate_rule(g, n):
    output_size, mode, align_corners = n.attrs
    input_size = list(n.parents[0].shape)
    if mode == "nearest":
        return (_UPSAMPLE_BACKWARD[mode](g, output_size, input_size),)
    return (_UPSAMPLE_BACKWARD[mode](g, output_size, input_size, align_corners),)


# ---- unfold4d: attrs (kernel_size, dilation, padding, stride), torch's im2col order --------------
def _unfold4d_rule(g, n):
    return (_col2im(g, list(n.parents[0].shape[-2:]), *n.attrs),)


# ---- attention: softmax(q kᵀ · scale, -inf where mask is True) v; attrs (mask, scale, sink) ------
# On CPU, for float32/float64 with equal q/v head dims and no fully masked row, torch's fused
# flash-attention kernels run both ways (the sink holds (output, logsumexp, additive mask)).
# Otherwise Burn's fallback runs as kernels: scores, softmax, product (the sink holds the
# probabilities; a fully masked row gives NaN, as in Burn).
_FLASH = aten._scaled_dot_product_flash_attention_for_cpu.default
_FLASH_BACKWARD = aten._scaled_dot_product_flash_attention_for_cpu_backward.default
_FLASH_DTYPES = (torch.float32, torch.float64)


def _flash_ok(q, v, mask) -> bool:
    return (q.device.type == "cpu" and q.dtype in _FLASH_DTYPES and q.shape[-1] == v.shape[-1]
            and (mask is None or not bool(mask.all(-1).any())))


def _attention_forward(datas, mask, scale, sink):
    q, k, v = datas
    if _flash_ok(q, v, mask):
        bias = None if mask is None else q.new_zeros(mask.shape).masked_fill_(mask, float("-inf"))
        out, lse = _FLASH(q, k, v, 0.0, False, attn_mask=bias, scale=scale)
        sink.append((out, lse, bias))
        return out
    scores = _matmul(q, k.transpose(-2, -1)).mul_(scale)
    if mask is not None:
        scores.masked_fill_(mask, float("-inf"))
    p = _softmax(scores, -1)
    sink.append(p)
    return _matmul(p, v)


def _attention_rule(g, n):
    pq, pk, pv = n.parents
    q, k, v = n.saved
    _, scale, (state,) = n.attrs
    if type(state) is tuple:
        out, lse, bias = state
        gq, gk, gv = _FLASH_BACKWARD(g, q, k, v, out, lse, 0.0, False, attn_mask=bias, scale=scale)
        return (gq if pq is not None else None, gk if pk is not None else None,
                gv if pv is not None else None)
    p = state
    gq = gk = gv = None
    if pv is not None:
        gv = _matmul(p.transpose(-2, -1), g)
    if pq is not None or pk is not None:
        gs = _softmax_backward(_matmul(g, v.transpose(-2, -1)), p, -1, p.dtype).mul_(scale)
        if pq is not None:
            gq = _matmul(gs, k)
        if pk is not None:
            gk = _matmul(gs.transpose(-2, -1), q)
    return gq, gk, gv


LINEAR = defop("linear", _linear_forward, _linear_rule, COMPUTE, _save_linear)
EMBEDDING = defop("embedding", torch.embedding, _embedding_rule, COMPUTE, save_nothing)
INTERPOLATE = defop("interpolate", _interpolate_forward, _interpolate_rule, COMPUTE, save_nothing)
# im2col only moves data (its output is kernel-size times larger than its input): recomputing it
# under BALANCED checkpointing is cheaper than keeping it.
UNFOLD4D = defop("unfold4d", _im2col, _unfold4d_rule, MEMORY, save_nothing)
ATTENTION = defop("attention", _attention_forward, _attention_rule, COMPUTE, save_inputs)


# ---- cross entropy over class indices: attrs (targets, sink) ----------------------------------
# The fused form of Burn's CrossEntropyLoss for logits and class indices (no weights, no
# smoothing): mean over rows of -log_softmax(logits)[row, target]. The forward appends its
# log-softmax to the sink; the rule is torch's nll_loss and log_softmax backward kernels.
_NLL_LOSS_BACKWARD = aten.nll_loss_backward.default
_log_softmax_backward = torch._log_softmax_backward_data


def _cross_entropy_forward(logits, targets, sink):
    log_p = torch.log_softmax(logits, 1)
    sink.append(log_p)
    return torch.nn.functional.nll_loss(log_p, targets).reshape(1)


def _cross_entropy_rule(g, n):
    targets, sink = n.attrs
    log_p = sink[0]
    total = log_p.new_full((), targets.shape[0])
    g_log_p = _NLL_LOSS_BACKWARD(g.reshape(()), log_p, targets, None, 1, -100, total)
    return (_log_softmax_backward(g_log_p, log_p, 1, log_p.dtype),)


CROSS_ENTROPY = defop("cross_entropy", _cross_entropy_forward, _cross_entropy_rule, COMPUTE,
                      save_nothing)
