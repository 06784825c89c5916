"""One nanoGPT-style GPT training step, burn_torch vs torch autograd, interleaved in one process.

The model is nanoGPT's (Karpathy): token and position embeddings, ``N_LAYER`` blocks of
``x + attn(ln_1(x))`` and ``x + mlp(ln_2(x))`` with causal self-attention (one ``c_attn``
projection split into q/k/v, ``scaled_dot_product_attention(is_causal=True)``, ``c_proj``; in
burn_torch ``module_ops.attention`` with ``AttentionModuleOptions(is_causal=True)``) and a
GELU MLP (``c_fc`` to 4D, ``c_proj`` back), a final layer norm and an lm head tied to the token
embedding, cross-entropy over every position. Layer norm is nanoGPT's own ``LayerNorm`` module,
whose forward is ``F.layer_norm(x, weight.shape, weight, bias, 1e-5)``: ``module_ops.layer_norm``
in burn_torch; dropout is off (nanoGPT's default 0.0). Both
sides start from the same weights; the gradients are checked to agree before timing. Prints
per-size times (µs, min over interleaved rounds) and the ratio burn_torch / torch autograd
(target: <= 1.0 at every size), the same step through ``burn_torch.capture`` and a tape-free
hand-written backward on torch's kernels (the floor for a layer over them).

Usage: python benchmarks/gpt_step.py [--quick] [--threads N] [--no-autotune]
"""
from __future__ import annotations

import torch
import torch.nn.functional as F

from burn_torch import Device, Int, Tensor, nn
from burn_torch import module_ops
from burn_torch.activation import gelu
from burn_torch.capture import capture

from _harness import cross_entropy_backward, main, run

# (batch, sequence length, width, heads, vocabulary)
SIZES = [(2, 16, 32, 2, 64), (4, 32, 64, 4, 128), (8, 64, 128, 4, 256)]
N_LAYER = 2
EPS = 1e-5
LOSS = nn.CrossEntropyLossConfig().init(Device.cpu())
aten = torch.ops.aten
CAUSAL = module_ops.AttentionModuleOptions(is_causal=True)
# per block, in order: (name, shape given D, is a linear weight in torch's [out, in] layout)
BLOCK = [("ln_1.w", lambda D: (D,), False), ("ln_1.b", lambda D: (D,), False),
         ("attn.c_attn.w", lambda D: (3 * D, D), True), ("attn.c_attn.b", lambda D: (3 * D,), False),
         ("attn.c_proj.w", lambda D: (D, D), True), ("attn.c_proj.b", lambda D: (D,), False),
         ("ln_2.w", lambda D: (D,), False), ("ln_2.b", lambda D: (D,), False),
         ("mlp.c_fc.w", lambda D: (4 * D, D), True), ("mlp.c_fc.b", lambda D: (4 * D,), False),
         ("mlp.c_proj.w", lambda D: (D, 4 * D), True), ("mlp.c_proj.b", lambda D: (D,), False)]


def make_params(T: int, D: int, V: int, seed: int = 0) -> tuple[list[torch.Tensor], list[bool]]:
    """The weights (wte, wpe, the blocks', ln_f) and, per weight, whether it is a linear weight."""
    gen = torch.Generator().manual_seed(seed)
    params = [torch.randn(V, D, generator=gen) * 0.02, torch.randn(T, D, generator=gen) * 0.02]
    linear = [False, False]
    for _ in range(N_LAYER):
        for name, shape, is_linear in BLOCK:
            if name.startswith("ln"):
                p = torch.ones(shape(D)) if name.endswith("w") else torch.zeros(shape(D))
                p = p + 0.1 * torch.randn(shape(D), generator=gen)
            else:
                p = torch.randn(shape(D), generator=gen) * 0.02
            params.append(p)
            linear.append(is_linear)
    params += [torch.ones(D), torch.zeros(D)]
    linear += [False, False]
    return params, linear


def torch_layer_norm(x, w, b):
    return F.layer_norm(x, w.shape, w, b, EPS)


def torch_step(idx, targets, params, H: int):
    B, T = idx.shape
    wte, wpe = params[0], params[1]
    x = F.embedding(idx, wte) + F.embedding(torch.arange(T), wpe)
    for i in range(N_LAYER):
        (l1w, l1b, aw, ab, pw, pb, l2w, l2b, fw, fb, mw, mb) = params[2 + 12 * i: 14 + 12 * i]
        D = x.shape[-1]
        q, k, v = F.linear(torch_layer_norm(x, l1w, l1b), aw, ab).split(D, dim=2)
        q, k, v = (t.view(B, T, H, D // H).transpose(1, 2) for t in (q, k, v))
        y = F.scaled_dot_product_attention(q, k, v, is_causal=True)
        x = x + F.linear(y.transpose(1, 2).contiguous().view(B, T, D), pw, pb)
        x = x + F.linear(F.gelu(F.linear(torch_layer_norm(x, l2w, l2b), fw, fb)), mw, mb)
    x = torch_layer_norm(x, params[-2], params[-1])
    logits = F.linear(x, wte)
    F.cross_entropy(logits.view(-1, logits.size(-1)), targets.view(-1)).backward()
    grads = [p.grad for p in params]
    for p in params:
        p.grad = None
    return grads


def floor_step(idx, targets, params, H: int):
    """The hand-written backward of :func:`torch_step` on plain tensors (no tape): its forward's
    kernels, the backward through torch's backward kernels (layer norm, flash attention, GELU,
    embedding, the loss), a split's gradient one ``cat`` as torch's."""
    B, T = idx.shape
    wte, wpe = params[0], params[1]
    D = wte.shape[1]
    n = B * T
    x = (F.embedding(idx, wte) + F.embedding(torch.arange(T), wpe)).view(n, D)
    saved = []
    for i in range(N_LAYER):
        (l1w, l1b, aw, ab, pw, pb, l2w, l2b, fw, fb, mw, mb) = params[2 + 12 * i: 14 + 12 * i]
        h1, m1, r1 = torch.native_layer_norm(x, [D], l1w, l1b, EPS)
        q, k, v = (t.view(B, T, H, D // H).transpose(1, 2)
                   for t in torch.addmm(ab, h1, aw.t()).split(D, 1))
        out, lse = aten._scaled_dot_product_flash_attention_for_cpu(q, k, v, 0.0, True)
        y = out.transpose(1, 2).reshape(n, D)
        x1 = x + torch.addmm(pb, y, pw.t())
        h2, m2, r2 = torch.native_layer_norm(x1, [D], l2w, l2b, EPS)
        z = torch.addmm(fb, h2, fw.t())
        f = F.gelu(z)
        saved.append((x, h1, m1, r1, q, k, v, out, lse, y, x1, h2, m2, r2, z, f))
        x = x1 + torch.addmm(mb, f, mw.t())
    xf, mf, rf = torch.native_layer_norm(x, [D], params[-2], params[-1], EPS)
    g = cross_entropy_backward(xf @ wte.t(), targets.view(-1))
    g_wte = g.t() @ xf
    gx, g_lfw, g_lfb = aten.native_layer_norm_backward(g @ wte, x, [D], mf, rf, params[-2],
                                                       params[-1], [True, True, True])
    grads = [g_lfw, g_lfb]
    for i in range(N_LAYER - 1, -1, -1):
        (l1w, l1b, aw, ab, pw, pb, l2w, l2b, fw, fb, mw, mb) = params[2 + 12 * i: 14 + 12 * i]
        x, h1, m1, r1, q, k, v, out, lse, y, x1, h2, m2, r2, z, f = saved.pop()
        g_mw, g_mb = gx.t() @ f, gx.sum(0)
        g = aten.gelu_backward(gx @ mw, z)
        g_fw, g_fb = g.t() @ h2, g.sum(0)
        g, g_l2w, g_l2b = aten.native_layer_norm_backward(g @ fw, x1, [D], m2, r2, l2w, l2b,
                                                          [True, True, True])
        gx = gx + g
        g_pw, g_pb = gx.t() @ y, gx.sum(0)
        g = (gx @ pw).view(B, T, H, D // H).transpose(1, 2)
        g = torch.cat([t.transpose(1, 2).reshape(n, D) for t in
                       aten._scaled_dot_product_flash_attention_for_cpu_backward(
                           g, q, k, v, out, lse, 0.0, True)], 1)
        g_aw, g_ab = g.t() @ h1, g.sum(0)
        g, g_l1w, g_l1b = aten.native_layer_norm_backward(g @ aw, x, [D], m1, r1, l1w, l1b,
                                                          [True, True, True])
        gx = gx + g
        grads[:0] = [g_l1w, g_l1b, g_aw, g_ab, g_pw, g_pb, g_l2w, g_l2b, g_fw, g_fb, g_mw, g_mb]
    g_wte = g_wte + aten.embedding_dense_backward(gx, idx.view(-1), wte.shape[0], -1, False)
    g_wpe = aten.embedding_dense_backward(gx.view(B, T, D).sum(0), torch.arange(T), T, -1, False)
    return [g_wte, g_wpe] + grads


def burn_layer_norm(x, w, b):
    return module_ops.layer_norm(x, w, b, EPS)


def burn_step(idx, pos, targets, params, H: int):
    """``idx`` Int [B, T], ``pos`` Int [1, T], ``targets`` Int [B * T]; linear weights in Burn's
    [in, out] layout."""
    B, T = idx.dims()
    wte, wpe = params[0], params[1]
    x = module_ops.embedding(wte, idx) + module_ops.embedding(wpe, pos)
    for i in range(N_LAYER):
        (l1w, l1b, aw, ab, pw, pb, l2w, l2b, fw, fb, mw, mb) = params[2 + 12 * i: 14 + 12 * i]
        D = x.dims()[2]
        q, k, v = module_ops.linear(burn_layer_norm(x, l1w, l1b), aw, ab).split(D, 2)
        q, k, v = (t.reshape([B, T, H, D // H]).swap_dims(1, 2) for t in (q, k, v))
        y = module_ops.attention(q, k, v, options=CAUSAL)
        x = x + module_ops.linear(y.swap_dims(1, 2).reshape([B, T, D]), pw, pb)
        x = x + module_ops.linear(gelu(module_ops.linear(burn_layer_norm(x, l2w, l2b), fw, fb)),
                                  mw, mb)
    x = burn_layer_norm(x, params[-2], params[-1])
    logits = module_ops.linear(x, wte.transpose()).reshape([B * T, -1])
    grads = LOSS.forward(logits, targets).backward()
    return [p.grad(grads) for p in params]


def burn_inputs(idx: torch.Tensor, targets: torch.Tensor, params, linear):
    """burn_torch's arguments of :func:`burn_step` (minus H) from the torch side's values."""
    T = idx.shape[1]
    cpu = Device.cpu()
    ad = cpu.autodiff()
    b_params = [Tensor.from_data(p.t().contiguous() if lin else p, ad).require_grad()
                for p, lin in zip(params, linear)]
    return (Tensor.from_data(idx, cpu, Int), Tensor.from_data(torch.arange(T)[None], cpu, Int),
            Tensor.from_data(targets.reshape(-1), cpu, Int), b_params)


def to_torch_layout(grads, linear) -> list[torch.Tensor]:
    return [g.to_torch().t() if lin else g.to_torch() for g, lin in zip(grads, linear)]


def bench(B: int, T: int, D: int, H: int, V: int, rounds: int, inner: int):
    gen = torch.Generator().manual_seed(1)
    idx = torch.randint(0, V, (B, T), generator=gen)
    targets = torch.randint(0, V, (B, T), generator=gen)
    params, linear = make_params(T, D, V)
    t_params = [p.clone().requires_grad_(True) for p in params]
    args = burn_inputs(idx, targets, params, linear)
    captured = capture(burn_step)
    return run(lambda: torch_step(idx, targets, t_params, H),
               lambda: to_torch_layout(burn_step(*args, H), linear), rounds, inner,
               tolerance=1e-4,
               captured_step=lambda: to_torch_layout(captured(*args, H), linear),
               floor_step=lambda: floor_step(idx, targets, params, H))


if __name__ == "__main__":
    main(__doc__.splitlines()[0], "B,T,D,H,V", SIZES, bench,
         lambda B, T, D, H, V: 6 * B * T * D * N_LAYER * (12 * D + 2 * T) + 6 * B * T * D * V)
