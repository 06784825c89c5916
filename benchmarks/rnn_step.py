"""Recurrent training steps, burn_torch vs torch's own nn.LSTM / nn.GRU, interleaved in one process.

``lstm``: a 2-layer LSTM language model (embedding of V tokens into H, a batch-first 2-layer LSTM
of width H, a linear decoder to V, cross entropy over every position of a [B, T] batch).
``gru``: one batch-first GRU layer of width H over a [B, T, D] input, mean-squared loss on its
output. Each step runs forward, loss and backward and reads the gradient of every parameter.
Both sides hold the same weights (burn_torch's converted with ``from_torch_module``); burn_torch
runs each layer's whole sequence as one op-table entry (``lstm``/``gru``), torch runs its
aten LSTM/GRU kernels. Prints per-size medians (µs) and the ratio burn_torch / torch (target:
<= 1.0), and the same step through ``burn_torch.capture`` (the modules are its arguments).

Usage: python benchmarks/rnn_step.py [--quick] [--threads N] [--no-autotune]
"""
from __future__ import annotations

import torch
import torch.nn.functional as F

from burn_torch import Device, Tensor, nn
from burn_torch.capture import capture
from burn_torch.compat import from_torch_module
from burn_torch.interop import to_torch_layout

from _harness import main, run

# (kind, B, T, H, V or D)
SIZES = [("lstm", 8, 16, 32, 100), ("lstm", 20, 35, 200, 1000),
         ("gru", 8, 16, 32, 16), ("gru", 32, 50, 256, 128)]
AD = Device.cpu().autodiff()
LOSS = nn.CrossEntropyLossConfig().init(Device.cpu())


def _torch_grads(modules):
    grads = [p.grad for m in modules for p in m.parameters()]
    for m in modules:
        m.zero_grad(set_to_none=True)
    return grads


def _in_torch_layout(modules, torch_modules, grads):
    """burn_torch's gradients (one per parameter, in ``named_params`` order) in torch's names,
    layouts and order."""
    out, k = [], 0
    for m, tm in zip(modules, torch_modules):
        names = [n for n, _ in m.named_params()]
        by_torch = to_torch_layout(m, dict(zip(names, grads[k:k + len(names)])))
        k += len(names)
        out.extend(by_torch[name] for name, _ in tm.named_parameters())
    return out


def _leaves(modules):
    """The modules' parameter tensors, in ``named_params`` order (listed once per benchmark, as
    torch's side holds its parameters)."""
    return [p.val() for m in modules for p in m.params()]


def bench_lstm(B, T, H, V, rounds, inner):
    torch.manual_seed(0)
    emb, lstm, dec = torch.nn.Embedding(V, H), torch.nn.LSTM(H, H, 2, batch_first=True), torch.nn.Linear(H, V)
    t_mods = [emb, lstm, dec]
    b_emb, b_lstm, b_dec = (from_torch_module(m, AD) for m in t_mods)
    tokens = torch.randint(0, V, (B, T))
    targets = torch.randint(0, V, (B * T,))
    b_tokens = Tensor.from_data(tokens, Device.cpu())
    b_targets = Tensor.from_data(targets, Device.cpu())

    def torch_step():
        out, _ = lstm(emb(tokens))
        F.cross_entropy(dec(out).reshape(B * T, V), targets).backward()
        return _torch_grads(t_mods)

    b_mods = [b_emb, b_lstm, b_dec]
    leaves = _leaves(b_mods)

    def burn_step(emb, lstm, dec):
        out, _ = lstm.forward(emb.forward(b_tokens))
        grads = LOSS.forward(dec.forward(out).reshape([B * T, V]), b_targets).backward()
        return [p.grad(grads).to_torch() for p in leaves]

    captured = capture(burn_step)
    return run(torch_step, lambda: burn_step(*b_mods), rounds, inner, tolerance=1e-4,
               captured_step=lambda: captured(*b_mods),
               in_torch_layout=lambda grads: _in_torch_layout(b_mods, t_mods, grads))


def bench_gru(B, T, H, D, rounds, inner):
    torch.manual_seed(0)
    gru = torch.nn.GRU(D, H, batch_first=True)
    b_gru = from_torch_module(gru, AD)
    x = torch.randn(B, T, D)
    bx = Tensor.from_data(x, Device.cpu())

    def torch_step():
        out, _ = gru(x)
        out.square().mean().backward()
        return _torch_grads([gru])

    leaves = _leaves([b_gru])

    def burn_step(gru):
        grads = gru.forward(bx).square().mean().backward()
        return [p.grad(grads).to_torch() for p in leaves]

    captured = capture(burn_step)
    return run(torch_step, lambda: burn_step(b_gru), rounds, inner, tolerance=1e-4,
               captured_step=lambda: captured(b_gru),
               in_torch_layout=lambda grads: _in_torch_layout([b_gru], [gru], grads))


def bench(kind, B, T, H, X, rounds, inner):
    return (bench_lstm if kind == "lstm" else bench_gru)(B, T, H, X, rounds, inner)


def work(kind, B, T, H, X):
    return B * T * H * (8 * H + 2 * X) * (2 if kind == "lstm" else 1)


if __name__ == "__main__":
    main(__doc__.splitlines()[0], "kind,B,T,H,V|D", SIZES, bench, work)
