"""One CNN training step, burn_torch vs torch autograd, interleaved in one process.

Each step: conv2d(3x3, pad 1) + relu + max_pool2d(2) twice, a linear classifier and a
cross-entropy loss on a batch of B images of C x S x S, backward, and the gradient of every
weight and bias read out. burn_torch uses ``module_ops`` (Burn's layouts) and
``nn.CrossEntropyLoss`` (one fused step for logits and class indices); torch autograd uses
``torch.nn.functional`` (conv2d, relu, max_pool2d, linear, cross_entropy). Prints per-size
times (µs, min over interleaved rounds) and the ratio burn_torch / torch autograd (target: <= 0.95 at every size), then the same step through
``burn_torch.capture`` (replayed after one recording call; target <= 0.8 at the smallest size)
and a tape-free hand-written backward on torch's default kernels (the floor for a layer over
those kernels; burn_torch's autotuned convolutions may run faster ones).

Usage: python benchmarks/cnn_step.py [--quick] [--threads N] [--no-autotune]
"""
from __future__ import annotations

import torch
import torch.nn.functional as F

from burn_torch import Device, Tensor, nn
from burn_torch import module_ops
from burn_torch.activation import relu

from burn_torch.capture import capture

from _harness import cross_entropy_backward, main, run

# (batch, image channels, image side, channels of the first conv; the second has twice as many)
SIZES = [(8, 3, 16, 8), (32, 3, 32, 16), (64, 3, 32, 32)]
CLASSES = 10
LOSS = nn.CrossEntropyLossConfig().init(Device.cpu())
CONV = module_ops.ConvOptions(stride=[1, 1], padding=[1, 1], dilation=[1, 1], groups=1)
aten = torch.ops.aten


def make_params(C: int, S: int, K: int, seed: int = 0):
    """Conv weights/biases and the classifier in torch's layout (linear weight [out, in])."""
    gen = torch.Generator().manual_seed(seed)
    w1 = torch.randn(K, C, 3, 3, generator=gen) / (C * 9) ** 0.5
    w2 = torch.randn(2 * K, K, 3, 3, generator=gen) / (K * 9) ** 0.5
    features = 2 * K * (S // 4) ** 2
    wl = torch.randn(CLASSES, features, generator=gen) / features ** 0.5
    return [w1, torch.zeros(K), w2, torch.zeros(2 * K), wl, torch.zeros(CLASSES)]


def torch_step(x, labels, params):
    w1, b1, w2, b2, wl, bl = params
    h = F.max_pool2d(F.relu(F.conv2d(x, w1, b1, padding=1)), 2)
    h = F.max_pool2d(F.relu(F.conv2d(h, w2, b2, padding=1)), 2)
    logits = F.linear(h.flatten(1), wl, bl)
    F.cross_entropy(logits, labels).backward()
    grads = [p.grad for p in params]
    for p in params:
        p.grad = None
    return grads


def floor_step(x, labels, params):
    """The hand-written backward of :func:`torch_step` on plain tensors (no tape): the kernels
    torch autograd runs, forward and backward, each value freed once nothing needs it (as
    torch autograd frees what it saved; at the larger sizes each fresh buffer costs page faults)."""
    w1, b1, w2, b2, wl, bl = params
    r1 = torch.relu(F.conv2d(x, w1, b1, padding=1))
    p1, i1 = aten.max_pool2d_with_indices(r1, [2, 2], [2, 2])
    r2 = torch.relu(F.conv2d(p1, w2, b2, padding=1))
    p2, i2 = aten.max_pool2d_with_indices(r2, [2, 2], [2, 2])
    h = p2.flatten(1)
    g = cross_entropy_backward(torch.addmm(bl, h, wl.t()), labels)
    gwl, gbl, g = g.t() @ h, g.sum(0), g @ wl
    del h
    g = aten.max_pool2d_with_indices_backward(g.view_as(p2), r2, [2, 2], [2, 2], [0, 0], [1, 1],
                                              False, i2)
    del p2, i2
    g = aten.threshold_backward(g, r2, 0)
    del r2
    g, gw2, gb2 = aten.convolution_backward(g, p1, w2, [b2.numel()], [1, 1], [1, 1], [1, 1],
                                            False, [0, 0], 1, [True, True, True])
    del p1
    g = aten.max_pool2d_with_indices_backward(g, r1, [2, 2], [2, 2], [0, 0], [1, 1], False, i1)
    del i1
    g = aten.threshold_backward(g, r1, 0)
    del r1
    _, gw1, gb1 = aten.convolution_backward(g, x, w1, [b1.numel()], [1, 1], [1, 1], [1, 1],
                                            False, [0, 0], 1, [False, True, True])
    return [gw1, gb1, gw2, gb2, gwl, gbl]


def burn_step(x, labels, params):
    """``labels``: Int ``[B]``."""
    w1, b1, w2, b2, wl, bl = params
    h = module_ops.max_pool2d(relu(module_ops.conv2d(x, w1, b1, CONV)), [2, 2], [2, 2], [0, 0], [1, 1])
    h = module_ops.max_pool2d(relu(module_ops.conv2d(h, w2, b2, CONV)), [2, 2], [2, 2], [0, 0], [1, 1])
    logits = module_ops.linear(h.flatten(1, 3), wl, bl)
    grads = LOSS.forward(logits, labels).backward()
    return [p.grad(grads) for p in params]


def bench(B: int, C: int, S: int, K: int, rounds: int, inner: int):
    gen = torch.Generator().manual_seed(1)
    xt = torch.randn(B, C, S, S, generator=gen)
    labels = torch.randint(0, CLASSES, (B,), generator=gen)
    params = make_params(C, S, K)
    t_params = [p.clone().requires_grad_(True) for p in params]
    ad = Device.cpu().autodiff()
    burn_layout = params[:4] + [params[4].t().contiguous(), params[5]]  # linear weight [in, out]
    b_params = [Tensor.from_data(p, ad).require_grad() for p in burn_layout]
    bx = Tensor.from_data(xt, Device.cpu())
    b_labels = Tensor.from_data(labels, Device.cpu())

    captured = capture(burn_step)

    def burn_grads(step=burn_step):
        g = [t.to_torch() for t in step(bx, b_labels, b_params)]
        return g[:4] + [g[4].t(), g[5]]  # back to torch's layout for the comparison

    return run(lambda: torch_step(xt, labels, t_params), burn_grads, rounds, inner,
               tolerance=1e-4, captured_step=lambda: burn_grads(captured),
               floor_step=lambda: floor_step(xt, labels, params))


if __name__ == "__main__":
    main(__doc__.splitlines()[0], "B,C,S,K", SIZES, bench,
         lambda B, C, S, K: 3 * 9 * B * S * S * K * (C + K / 2))
