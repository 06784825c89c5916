"""One pytorch/examples MNIST CNN training step, burn_torch vs torch autograd, interleaved.

The network is pytorch/examples' ``mnist/main.py`` ``Net``: conv(1→c1, 3x3) → relu → conv(c1→c2,
3x3) → relu → max_pool2d(2) → dropout (off: evaluation-free timing needs determinism) → flatten
→ fc(c2·12·12→hidden) → relu → dropout (off) → fc(hidden→10) → log_softmax → nll_loss, on random
B x 1 x 28 x 28 inputs. The original widths are (32, 64, 128); the smaller sizes shrink them so
a step runs in milliseconds here. burn_torch is ported as a user would: ``module_ops.conv2d``,
``max_pool2d``, ``linear``, ``activation.log_softmax`` and the nll as ``-gather(...).mean()``.
Both sides start from the same weights; gradients are checked to agree before timing. Prints
per-size times (µs, min over interleaved rounds) and the ratio burn_torch / torch autograd
(target: <= 1.0 at every size), and the same step through ``burn_torch.capture``.

Usage: python benchmarks/mnist_cnn_step.py [--quick] [--threads N] [--no-autotune]
"""
from __future__ import annotations

import torch
import torch.nn.functional as F

from burn_torch import Device, Int, Tensor
from burn_torch import module_ops
from burn_torch.activation import log_softmax, relu
from burn_torch.capture import capture

from _harness import main, run

# (batch, channels of conv1, channels of conv2, hidden units of fc1)
SIZES = [(4, 8, 16, 32), (16, 16, 32, 64), (16, 32, 64, 128)]
CLASSES = 10
CONV = module_ops.ConvOptions(stride=[1, 1], padding=[0, 0], dilation=[1, 1], groups=1)


def make_params(c1: int, c2: int, hidden: int, seed: int = 0) -> list[torch.Tensor]:
    """conv1, conv2, fc1, fc2 weights and biases, in torch's layout (linear weight [out, in])."""
    gen = torch.Generator().manual_seed(seed)
    features = c2 * 12 * 12
    shapes = [(c1, 1, 3, 3), (c1,), (c2, c1, 3, 3), (c2,), (hidden, features), (hidden,),
              (CLASSES, hidden), (CLASSES,)]
    fan_in = [9, 9, c1 * 9, c1 * 9, features, features, hidden, hidden]
    return [torch.randn(s, generator=gen) / f ** 0.5 for s, f in zip(shapes, fan_in)]


def torch_step(x, labels, params):
    w1, b1, w2, b2, w3, b3, w4, b4 = params
    h = F.relu(F.conv2d(x, w1, b1))
    h = F.max_pool2d(F.relu(F.conv2d(h, w2, b2)), 2)
    h = F.relu(F.linear(torch.flatten(h, 1), w3, b3))
    out = F.log_softmax(F.linear(h, w4, b4), dim=1)
    F.nll_loss(out, labels).backward()
    grads = [p.grad for p in params]
    for p in params:
        p.grad = None
    return grads


def burn_step(x, labels, params):
    """``labels``: Int ``[B, 1]``; linear weights in Burn's [in, out] layout."""
    w1, b1, w2, b2, w3, b3, w4, b4 = params
    h = relu(module_ops.conv2d(x, w1, b1, CONV))
    h = module_ops.max_pool2d(relu(module_ops.conv2d(h, w2, b2, CONV)), [2, 2], [2, 2], [0, 0],
                              [1, 1])
    h = relu(module_ops.linear(h.flatten(1, 3), w3, b3))
    out = log_softmax(module_ops.linear(h, w4, b4), 1)
    grads = out.gather(1, labels).neg().mean().backward()
    return [p.grad(grads) for p in params]


def burn_inputs(x: torch.Tensor, labels: torch.Tensor, params):
    """burn_torch's arguments of :func:`burn_step` from the torch side's values."""
    ad = Device.cpu().autodiff()
    b_params = [Tensor.from_data(p.t().contiguous() if p.dim() == 2 else p, ad).require_grad()
                for p in params]
    return (Tensor.from_data(x, Device.cpu()), Tensor.from_data(labels[:, None], Device.cpu(), Int),
            b_params)


def to_torch_layout(grads) -> list[torch.Tensor]:
    return [g.to_torch().t() if g.rank() == 2 else g.to_torch() for g in grads]


def bench(B: int, c1: int, c2: int, hidden: int, rounds: int, inner: int):
    gen = torch.Generator().manual_seed(1)
    x = torch.randn(B, 1, 28, 28, generator=gen)
    labels = torch.randint(0, CLASSES, (B,), generator=gen)
    params = make_params(c1, c2, hidden)
    t_params = [p.clone().requires_grad_(True) for p in params]
    args = burn_inputs(x, labels, params)
    captured = capture(burn_step)
    return run(lambda: torch_step(x, labels, t_params),
               lambda: to_torch_layout(burn_step(*args)), rounds, inner, tolerance=1e-4,
               captured_step=lambda: to_torch_layout(captured(*args)))


if __name__ == "__main__":
    main(__doc__.splitlines()[0], "B,c1,c2,hidden", SIZES, bench,
         lambda B, c1, c2, h: 6 * B * (26 * 26 * 9 * c1 + 24 * 24 * 9 * c1 * c2 + 144 * c2 * h))
