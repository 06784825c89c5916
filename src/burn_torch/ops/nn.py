"""Neural-network module ops (Burn's ``tensor::module``): linear, embedding, interpolate, unfold4d,
fold4d, pixel (un)shuffle, attention, the weights of Burn's ``MultiHeadAttention`` and its
rotary positional encoding.
Convolutions live in ``ops.conv``, pooling in ``ops.pool``.

``linear`` gets its inputs as one tuple (``forward(datas, *attrs)`` with ``(x, weight)`` or
``(x, weight, bias)``: the bias may be absent; applied with ``applyn``, or ``apply3`` with a
bias), ``attention`` likewise over ``(q, k, v)`` and an optional ``attn_bias``:
its forward returns ``(out, *residuals)``, the state its rule needs besides the inputs. Both
have one fused rule computing every tracked input's gradient. The others are one-input entries
applied with ``apply1``, except ``mha_weights`` (``apply2`` over ``q`` and ``k``, one fused rule).
"""
import functools

import torch

from .table import COMPUTE, MEMORY, defop, vjp
from .tuning import MAX_EXTRA_BYTES, Tunable, anchored
from .kernels import kernel

aten = torch.ops.aten
_reshape = torch.reshape
_EMBEDDING_BACKWARD = kernel(aten.embedding_dense_backward.default)
_UPSAMPLE_BACKWARD = {
    "nearest": kernel(aten.upsample_nearest2d_backward.default),
    "bilinear": kernel(aten.upsample_bilinear2d_backward.default),
    "bicubic": kernel(aten.upsample_bicubic2d_backward.default),
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
_threads = torch.get_num_threads
_F_linear = torch.nn.functional.linear
_matmul = torch.matmul
_softmax = torch.softmax
_softmax_backward = torch._softmax_backward_data


# ---- linear: y = x @ weight + bias, weight [d_input, d_output] (no transpose, as Burn) ----------
def _linear_strided(x, weight_t, bias):
    return _F_linear(x, weight_t, bias)


def _linear_contiguous(x, weight_t, bias):
    return _F_linear(x.contiguous(), weight_t, bias)


# An x whose leading dims do not flatten without a copy (a batch-first RNN output) makes torch's
# matmul run one small GEMM per batch entry against a broadcast weight (bmm); copying x first
# gives one GEMM (what torch does when x requires torch grad): faster except on small inputs, so
# the two are tuned (``burn_torch.autotune``)
LINEAR_STRIDED_KERNELS = Tunable("linear_strided", {"linear": _linear_strided,
                                                    "contiguous": _linear_contiguous})


def _linear_forward(datas):
    # torch's linear takes the weight as [d_output, d_input]: ours, transposed as a view; it
    # flattens the leading dims of x itself (one kernel call, addmm as for a 2-D x)
    x = datas[0]
    if x.dim() == 2:  # what torch's linear runs for a 2-D x, without transposing the weight twice
        return _mm(x, datas[1]) if len(datas) == 2 else _addmm(datas[2], x, datas[1])
    weight, bias = datas[1], datas[2] if len(datas) == 3 else None
    if x.is_contiguous() or x.numel() * x.element_size() > MAX_EXTRA_BYTES:
        return _F_linear(x, weight.t(), bias)
    return LINEAR_STRIDED_KERNELS((anchored(x.shape), weight.shape, x.dtype,
                                   bias is None, _threads()), x, weight.t(), bias)


def _linear_rule(g, s, parents):
    g2 = g if g.dim() == 2 else g.reshape(-1, g.shape[-1])  # leading dims as rows
    gx = gw = None
    if parents[0] is not None:
        gx = _F_linear(g, s.weight)  # g @ weightᵀ over g's leading dims, no transposed view
    if parents[1] is not None:
        x = s.x
        gw = _mm((x if x.dim() == 2 else x.reshape(-1, x.shape[-1])).t(), g2)  # x as a matrix
    if len(parents) == 2:
        return gx, gw
    return gx, gw, g2.sum(0) if parents[2] is not None else None


# x is needed only for the weight's gradient, the weight only for x's; the bias needs nothing
_LINEAR_NEEDS = (("weight",), ("x",), ())


# ---- embedding: attrs (indices,) -----------------------------------------------------------------
def _embedding_rule(g, s):
    return _EMBEDDING_BACKWARD(g, s.indices, s.weight_shape[0], -1, False)


# ---- interpolate: attrs (output_size, mode, align_corners) ---------------------------------------
def _interpolate_forward(x, output_size, mode, align_corners):
    if mode == "nearest":
        return _UPSAMPLE[mode](x, output_size)
    return _UPSAMPLE[mode](x, output_size, align_corners)


def _interpolate_rule(g, s):
    mode = s.mode
    input_size = list(s.x_shape)
    if mode == "nearest":
        return _UPSAMPLE_BACKWARD[mode](g, s.output_size, input_size)
    return _UPSAMPLE_BACKWARD[mode](g, s.output_size, input_size, s.align_corners)


# ---- unfold4d: attrs (kernel_size, dilation, padding, stride), torch's im2col order --------------
def _unfold4d_rule(g, s):
    return _col2im(g, list(s.x_shape[-2:]), s.kernel_size, s.dilation, s.padding, s.stride)


# ---- attention (Burn 0.21's attention_fallback): inputs (q, k, v, attn_bias?); attrs (mask, scale,
# softcap, causal). scores = q kᵀ · scale; with softcap, softcap · tanh(scores / softcap); -inf
# where mask is True, and with ``causal`` above the diagonal (module_ops sets ``causal`` only for
# is_causal over square scores with no mask, and folds is_causal into the mask otherwise); +
# attn_bias; Burn's NaN-safe softmax (a fully masked row gets probabilities 0, hence output 0 and
# no gradient); times v.
# On CPU, for float32/float64 with equal q/v head dims, no bias, no softcap and no fully masked
# row, torch's fused flash-attention kernels run both ways (residuals flash_out, logsumexp and
# mask_bias: the output, its logsumexp and the additive mask, None when the mask is ``causal``,
# which the kernels apply themselves; probs is None). Otherwise the fallback runs as kernels:
# scores, softmax, product (residuals probs and, with softcap, tanh: tanh(scores / softcap),
# whose derivative the rule needs; the others None).
_FLASH = torch._scaled_dot_product_flash_attention_for_cpu  # torch's binding: cheaper to call
_FLASH_BACKWARD = kernel(aten._scaled_dot_product_flash_attention_for_cpu_backward.default)
_FLASH_DTYPES = (torch.float32, torch.float64)


def _flash_ok(q, v, mask) -> bool:
    return (q.is_cpu and q.dtype in _FLASH_DTYPES and q.shape[-1] == v.shape[-1]
            and (mask is None or not bool(mask.all(-1).any())))


_ATTENTION_RESIDUALS = ("flash_out", "logsumexp", "mask_bias", "probs", "tanh")


def _attention_forward(datas, mask, scale, softcap, causal):
    q, k, v = datas[:3]
    bias = datas[3] if len(datas) == 4 else None
    if bias is None and softcap is None and _flash_ok(q, v, mask):
        additive = None if mask is None else q.new_zeros(mask.shape).masked_fill_(
            mask, float("-inf"))
        out, lse = _FLASH(q, k, v, 0.0, causal, attn_mask=additive, scale=scale)
        return out, out, lse, additive, None, None
    if causal:
        mask = torch.ones(q.shape[-2], k.shape[-2], dtype=torch.bool, device=q.device).triu(1)
    scores = _matmul(q, k.transpose(-2, -1)).mul_(scale)
    tanh = None
    if softcap is not None:
        tanh = scores.div_(softcap).tanh_()
        scores = tanh * softcap
    if mask is not None:
        scores.masked_fill_(mask, float("-inf"))
    if bias is not None:
        scores = scores + bias
    p = _softmax(scores, -1)
    if mask is not None:
        p = p.masked_fill(mask.all(-1, keepdim=True), 0.0)  # Burn's NaN-safe softmax
    return _matmul(p, v), None, None, None, p, tanh


def _attention_rule(g, s, parents):
    pq, pk, pv = parents[:3]
    pb = parents[3] if len(parents) == 4 else None
    q, k, v = s.q, s.k, s.v
    scale = s.scale
    if s.probs is None:  # the flash path
        gq, gk, gv = _FLASH_BACKWARD(g, q, k, v, s.flash_out, s.logsumexp, 0.0, s.causal,
                                     attn_mask=s.mask_bias, scale=scale)
        return (gq if pq is not None else None, gk if pk is not None else None,
                gv if pv is not None else None)
    p = s.probs
    gq = gk = gv = gb = None
    if pv is not None:
        gv = _matmul(p.transpose(-2, -1), g)
    if pq is not None or pk is not None or pb is not None:
        gs = _softmax_backward(_matmul(g, v.transpose(-2, -1)), p, -1, p.dtype)
        if pb is not None:
            gb = gs if gs.shape == pb.shape else gs.sum_to_size(pb.shape)  # a broadcast bias
        if pq is not None or pk is not None:
            graw = gs * (1 - s.tanh * s.tanh) if s.tanh is not None else gs.clone()
            graw.mul_(scale)
            if pq is not None:
                gq = _matmul(graw, k)
            if pk is not None:
                gk = _matmul(graw.transpose(-2, -1), q)
    out = (gq, gk, gv)
    return out + (gb,) if len(parents) == 4 else out


# Either path's gradient of any input reads the inputs and its path's residuals (those of the
# other path are None, and saved as such).
_ATTENTION_NEEDS = ("q", "k", "v") + _ATTENTION_RESIDUALS

LINEAR = defop("linear", _linear_forward, COMPUTE, inputs=("x", "weight", "bias"),
               fused=_linear_rule, needs=_LINEAR_NEEDS)
EMBEDDING = defop("embedding", torch.embedding, COMPUTE, inputs=("weight",), attrs=("indices",),
                  vjp=(vjp(_embedding_rule, "weight_shape"),))
INTERPOLATE = defop("interpolate", _interpolate_forward, COMPUTE,
                    attrs=("output_size", "mode", "align_corners"),
                    vjp=(vjp(_interpolate_rule, "x_shape"),))
# im2col only moves data (its output is kernel-size times larger than its input): recomputing it
# under BALANCED checkpointing is cheaper than keeping it.
UNFOLD4D = defop("unfold4d", _im2col, MEMORY, attrs=("kernel_size", "dilation", "padding", "stride"),
                 vjp=(vjp(_unfold4d_rule, "x_shape"),))


# ---- fold4d: col2im (overlapping blocks summed), the adjoint of unfold4d; its rule is im2col -----
def _fold4d_forward(x, output_size, kernel_size, dilation, padding, stride):
    return _col2im(x, output_size, kernel_size, dilation, padding, stride)


def _fold4d_rule(g, s):
    return _im2col(g, s.kernel_size, s.dilation, s.padding, s.stride)


FOLD4D = defop("fold4d", _fold4d_forward, MEMORY,
               attrs=("output_size", "kernel_size", "dilation", "padding", "stride"),
               vjp=(vjp(_fold4d_rule),))

# ---- pixel shuffle / unshuffle: attrs (factor,); each one's rule is the other (a permutation) -----
PIXEL_SHUFFLE = defop("pixel_shuffle", torch.pixel_shuffle, MEMORY, attrs=("factor",),
                      vjp=(vjp(lambda g, s: torch.pixel_unshuffle(g, s.factor)),))
PIXEL_UNSHUFFLE = defop("pixel_unshuffle", torch.pixel_unshuffle, MEMORY, attrs=("factor",),
                        vjp=(vjp(lambda g, s: torch.pixel_shuffle(g, s.factor)),))
ATTENTION = defop("attention", _attention_forward, COMPUTE, inputs=("q", "k", "v", "attn_bias"),
                  attrs=("mask", "scale", "softcap", "causal"), residuals=_ATTENTION_RESIDUALS,
                  fused=_attention_rule, needs=(_ATTENTION_NEEDS,) * 4)


# ---- mha_weights: Burn's MultiHeadAttention weights over the keys, softmax(mask_fill(q kᵀ /
# divisor * drop, mask, fill)), as one step: the scores are divided, dropped out and masked in
# place (Burn's module composes up to six ops, each allocating a scores-sized tensor and holding
# a step); the rule is torch's softmax backward, zeroed where masked, dropped out and divided in
# place, then the two matmuls. attrs: (mask, divisor, fill, drop), ``mask`` a Bool tensor
# broadcastable to the scores (True: masked) or None, ``drop`` the scaled dropout mask or None.
def _mha_weights_forward(q, k, mask, divisor, fill, drop):
    scores = _matmul(q, k.transpose(-2, -1)).div_(divisor)
    if drop is not None:
        scores.mul_(drop)
    if mask is not None:
        scores.masked_fill_(mask, fill)
    return _softmax(scores, -1)


def _mha_weights_rule(g, s, parents):
    gs = _softmax_backward(g, s.out, -1, g.dtype)
    if s.mask is not None:
        gs.masked_fill_(s.mask, 0.0)
    if s.drop is not None:
        gs.mul_(s.drop)
    gs.div_(s.divisor)
    return (_matmul(gs, s.k) if parents[0] is not None else None,
            _matmul(gs.transpose(-2, -1), s.q) if parents[1] is not None else None)


MHA_WEIGHTS = defop("mha_weights", _mha_weights_forward, COMPUTE, inputs=("q", "k"),
                    attrs=("mask", "divisor", "fill", "drop"), fused=_mha_weights_rule,
                    needs=(("k", "out"), ("q", "out")))


# ---- rotary: Burn's RotaryEncoding, x cos + rot(x) sin with rot turning each adjacent pair (a, b)
# of the last dim into (-b, a); attrs (cos, sin), constant [seq, d_model] tables broadcast over
# x [..., seq, d_model]. The same kernels as Burn's composition in one step; the rule is the
# transposed rotation: g cos - rot(g sin).
def _rotated(x):
    pairs = x.unflatten(-1, (-1, 2))
    return torch.stack((pairs[..., 1].neg(), pairs[..., 0]), -1).flatten(-2)


def _rotary_forward(x, cos, sin):
    return x * cos + _rotated(x) * sin


def _rotary_rule(g, s):
    return g * s.cos - _rotated(g * s.sin)


ROTARY = defop("rotary", _rotary_forward, MEMORY, attrs=("cos", "sin"), vjp=(vjp(_rotary_rule),))


# ---- grid_sample_2d: attrs (mode, padding_mode, align_corners) as torch's integer codes --------
def _grid_sample_forward(x, grid, mode, padding_mode, align_corners):
    return aten.grid_sampler_2d(x, grid, mode, padding_mode, align_corners)


def _grid_sample_rule(g, s, parents):
    px, pgrid = parents
    gx, ggrid = aten.grid_sampler_2d_backward(g, s.x, s.grid, s.mode, s.padding_mode,
                                              s.align_corners, [px is not None, pgrid is not None])
    return (gx if px is not None else None), (ggrid if pgrid is not None else None)


GRID_SAMPLE_2D = defop("grid_sample_2d", _grid_sample_forward, COMPUTE, inputs=("x", "grid"),
                       attrs=("mode", "padding_mode", "align_corners"), fused=_grid_sample_rule,
                       needs=(("x", "grid"), ("x", "grid")))


# ---- cross entropy over class indices: attrs (targets,), residual log_p ------------------------
# The fused form of Burn's CrossEntropyLoss for logits and class indices (no weights, no
# smoothing): mean over rows of -log_softmax(logits)[row, target]. The forward returns its
# log-softmax as the residual ``log_p``; the rule is torch's nll_loss and log_softmax backward
# kernels (the nll backward reads the row count as a 0-d tensor: one per count, dtype and
# device, made once).
_NLL_LOSS_BACKWARD = kernel(aten.nll_loss_backward.default)
_log_softmax_backward = torch._log_softmax_backward_data
_nll_loss = torch._C._nn.nll_loss_nd


def _cross_entropy_forward(logits, targets):
    log_p = torch.log_softmax(logits, 1)
    return _nll_loss(log_p, targets, None, 1, -100).reshape(1), log_p  # mean, no ignored class


@functools.lru_cache(maxsize=64)
def _row_count(rows: int, dtype: torch.dtype, device: torch.device) -> torch.Tensor:
    return torch.full((), rows, dtype=dtype, device=device)


def _cross_entropy_rule(g, s):
    targets = s.targets
    log_p = s.log_p
    total = _row_count(targets.shape[0], log_p.dtype, log_p.device)
    g_log_p = _NLL_LOSS_BACKWARD(_reshape(g, ()), log_p, targets, None, 1, -100, total)
    return _log_softmax_backward(g_log_p, log_p, 1, log_p.dtype)


CROSS_ENTROPY = defop("cross_entropy", _cross_entropy_forward, COMPUTE, inputs=("logits",),
                      attrs=("targets",), residuals=("log_p",),
                      vjp=(vjp(_cross_entropy_rule, "log_p"),))
