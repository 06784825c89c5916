"""One transformer-block training step, burn_torch vs torch autograd, interleaved in one process.

Each step on a batch of B sequences of length L with width D and H heads: a pre-norm block
(layer norm written as mean/var over the last dim, no affine; q/k/v/output projections and
scaled dot-product attention; layer norm; a 4D-wide GELU feed-forward; residual adds), a linear
head to V classes and a cross-entropy loss, backward, and the gradient of every weight and bias
read out. burn_torch uses ``module_ops.linear`` / ``module_ops.attention`` (Burn's layouts),
``mean_dim``, ``activation.gelu`` and ``nn.CrossEntropyLoss`` (one fused step for logits and
class indices); torch autograd uses the same
layer-norm formula with ``mean``, ``F.linear``, ``F.scaled_dot_product_attention``, ``F.gelu``
and ``F.cross_entropy``. Prints per-size times
(µs, min over interleaved rounds) and the ratio burn_torch / torch autograd (target: <= 0.95 at every size), then the same step through
``burn_torch.capture`` (replayed after one recording call; target <= 0.8 at the smallest size)
and a tape-free hand-written backward on torch's kernels (the floor for a layer over them).

Usage: python benchmarks/transformer_step.py [--quick] [--threads N] [--no-autotune]
"""
from __future__ import annotations

import torch
import torch.nn.functional as F

from burn_torch import Device, Tensor, nn
from burn_torch import module_ops
from burn_torch.activation import gelu

from burn_torch.capture import capture

from _harness import cross_entropy_backward, main, run

SIZES = [(4, 16, 32, 2, 64), (8, 64, 128, 4, 256), (16, 128, 256, 8, 512)]
EPS = 1e-5
# names of the weights (torch layout [out, in]) and their biases, in step order
LAYERS = ["q", "k", "v", "o", "ff1", "ff2", "head"]
LOSS = nn.CrossEntropyLossConfig().init(Device.cpu())
aten = torch.ops.aten


def make_params(D: int, V: int, seed: int = 0) -> list[torch.Tensor]:
    """Per layer of LAYERS: weight [out, in] (torch's layout), then bias."""
    gen = torch.Generator().manual_seed(seed)
    dims = {"q": (D, D), "k": (D, D), "v": (D, D), "o": (D, D), "ff1": (4 * D, D),
            "ff2": (D, 4 * D), "head": (V, D)}
    params = []
    for name in LAYERS:
        out, inp = dims[name]
        params += [torch.randn(out, inp, generator=gen) / inp ** 0.5,
                   torch.randn(out, generator=gen) * 0.02]
    return params


def normalized(x):
    """The layer norm written out (no affine), and the scale it divided by."""
    xc = x - x.mean(-1, keepdim=True)
    scale = ((xc * xc).mean(-1, keepdim=True) + EPS).sqrt()
    return xc / scale, scale


def torch_layer_norm(x):
    return normalized(x)[0]


def torch_step(x, labels, params, H: int):
    wq, bq, wk, bk, wv, bv, wo, bo, w1, b1, w2, b2, wh, bh = params
    B, L, D = x.shape
    h = torch_layer_norm(x)
    q, k, v = (F.linear(h, w, b).view(B, L, H, D // H).transpose(1, 2)
               for w, b in ((wq, bq), (wk, bk), (wv, bv)))
    a = F.scaled_dot_product_attention(q, k, v).transpose(1, 2).reshape(B, L, D)
    x = x + F.linear(a, wo, bo)
    x = x + F.linear(F.gelu(F.linear(torch_layer_norm(x), w1, b1)), w2, b2)
    logits = F.linear(x, wh, bh)
    F.cross_entropy(logits.reshape(B * L, -1), labels.reshape(-1)).backward()
    grads = [p.grad for p in params]
    for p in params:
        p.grad = None
    return grads


def floor_step(x, labels, params, H: int):
    """The hand-written backward of :func:`torch_step` on plain tensors (no tape): its forward's
    kernels (the layer norm as written there, torch's flash attention), the backward written out
    (the layer norm's in closed form; attention, GELU and the loss through torch's backward
    kernels), each value freed once nothing needs it. ``x`` needs no gradient, so the first
    layer norm has no backward."""
    wq, bq, wk, bk, wv, bv, wo, bo, w1, b1, w2, b2, wh, bh = params
    B, L, D = x.shape
    n = B * L
    h = torch_layer_norm(x).view(n, D)
    q, k, v = (torch.addmm(b, h, w.t()).view(B, L, H, D // H).transpose(1, 2)
               for w, b in ((wq, bq), (wk, bk), (wv, bv)))
    out, lse = aten._scaled_dot_product_flash_attention_for_cpu(q, k, v, 0.0, False)
    a = out.transpose(1, 2).reshape(n, D)
    x = x.view(n, D) + torch.addmm(bo, a, wo.t())
    h2, s = normalized(x)
    z = torch.addmm(b1, h2, w1.t())
    f = F.gelu(z)
    x = x + torch.addmm(b2, f, w2.t())
    g = cross_entropy_backward(torch.addmm(bh, x, wh.t()), labels.view(-1))
    gwh, gbh = g.t() @ x, g.sum(0)
    gx = g @ wh
    gw2, gb2 = gx.t() @ f, gx.sum(0)
    g = aten.gelu_backward(gx @ w2, z)
    del f, z
    gw1, gb1 = g.t() @ h2, g.sum(0)
    g = g @ w1  # through the second layer norm, in closed form
    gx = gx + (g - g.mean(-1, keepdim=True) - h2 * (g * h2).mean(-1, keepdim=True)) / s
    del h2, s
    gwo, gbo = gx.t() @ a, gx.sum(0)
    g = (gx @ wo).view(B, L, H, D // H).transpose(1, 2)
    gq, gk, gv = (t.transpose(1, 2).reshape(n, D) for t in
                  aten._scaled_dot_product_flash_attention_for_cpu_backward(g, q, k, v, out, lse,
                                                                           0.0, False))
    return [gq.t() @ h, gq.sum(0), gk.t() @ h, gk.sum(0), gv.t() @ h, gv.sum(0), gwo, gbo,
            gw1, gb1, gw2, gb2, gwh, gbh]


def burn_layer_norm(x):
    xc = x - x.mean_dim(2)
    return xc / ((xc * xc).mean_dim(2) + EPS).sqrt()


def burn_step(x, labels, params, H: int):
    """``labels``: Int ``[B * L]``."""
    wq, bq, wk, bk, wv, bv, wo, bo, w1, b1, w2, b2, wh, bh = params
    B, L, D = x.dims()
    h = burn_layer_norm(x)
    q, k, v = (module_ops.linear(h, w, b).reshape([B, L, H, D // H]).swap_dims(1, 2)
               for w, b in ((wq, bq), (wk, bk), (wv, bv)))
    a = module_ops.attention(q, k, v).swap_dims(1, 2).reshape([B, L, D])
    x = x + module_ops.linear(a, wo, bo)
    x = x + module_ops.linear(gelu(module_ops.linear(burn_layer_norm(x), w1, b1)), w2, b2)
    logits = module_ops.linear(x, wh, bh).reshape([B * L, -1])
    grads = LOSS.forward(logits, labels).backward()
    return [p.grad(grads) for p in params]


def bench(B: int, L: int, D: int, H: int, V: int, rounds: int, inner: int):
    gen = torch.Generator().manual_seed(1)
    xt = torch.randn(B, L, D, generator=gen)
    labels = torch.randint(0, V, (B, L), generator=gen)
    params = make_params(D, V)
    t_params = [p.clone().requires_grad_(True) for p in params]
    ad = Device.cpu().autodiff()
    # Burn's linear weight is [in, out]: transpose every weight (the even entries)
    b_params = [Tensor.from_data(p.t().contiguous() if i % 2 == 0 else p, ad).require_grad()
                for i, p in enumerate(params)]
    bx = Tensor.from_data(xt, Device.cpu())
    b_labels = Tensor.from_data(labels.reshape(-1), Device.cpu())

    captured = capture(burn_step)

    def burn_grads(step=burn_step):
        g = [t.to_torch() for t in step(bx, b_labels, b_params, H)]
        return [t.t() if i % 2 == 0 else t for i, t in enumerate(g)]

    return run(lambda: torch_step(xt, labels, t_params, H), burn_grads, rounds, inner,
               tolerance=1e-4, captured_step=lambda: burn_grads(captured),
               floor_step=lambda: floor_step(xt, labels, params, H))


if __name__ == "__main__":
    main(__doc__.splitlines()[0], "B,L,D,H,V", SIZES, bench,
         lambda B, L, D, H, V: 6 * B * L * D * (12 * D + 2 * L + V))
