"""One transformer-decoder training step, burn_torch vs torch autograd, interleaved in one process.

Each step on a batch of B target sequences of length T over memories of length M, width D, H
heads, N layers (d_ff = 4D, GELU, post-norm, dropout 0): Burn's ``nn.TransformerDecoder`` (with
``TransformerDecoderInput``, a causal target mask from ``generate_autoregressive_mask`` and a
memory padding mask) against ``torch.nn.TransformerDecoder`` holding the same weights (loaded
through ``load_torch_state_dict``); the loss is the sum of the output times a fixed cotangent;
backward; the gradient of every parameter, of the target and of the memory read out (burn_torch's
in its own layout: the conversion to torch's for the check is not timed). Prints
per-size medians (µs) and the ratio burn_torch / torch autograd (target: <= 1.0), and the same
step through ``burn_torch.capture`` (the model's parameter tensors passed as arguments).

Usage: python benchmarks/decoder_step.py [--quick] [--threads N] [--no-autotune]
"""
from __future__ import annotations

import torch

from burn_torch import Device, Tensor, nn
from burn_torch.capture import capture
from burn_torch.interop import load_torch_state_dict, to_torch_layout

from _harness import main, run

SIZES = [(4, 16, 16, 32, 2, 2), (8, 64, 64, 128, 4, 2), (16, 128, 128, 256, 8, 2)]


def bench(B: int, T: int, M: int, D: int, H: int, N: int, rounds: int, inner: int):
    torch.manual_seed(0)
    layer = torch.nn.TransformerDecoderLayer(D, H, 4 * D, dropout=0.0, activation="gelu",
                                             batch_first=True)
    reference = torch.nn.TransformerDecoder(layer, N).train()
    ad = Device.cpu().autodiff()
    model, _ = load_torch_state_dict(
        nn.TransformerDecoderConfig(D, 4 * D, H, N).with_dropout(0.0).init(ad),
        reference.state_dict())
    model = model.train()
    gen = torch.Generator().manual_seed(1)
    target, memory = torch.randn(B, T, D, generator=gen), torch.randn(B, M, D, generator=gen)
    cot = torch.randn(B, T, D, generator=gen)
    pad = torch.zeros(B, M, dtype=torch.bool)
    pad[0, M // 2:] = True
    causal = torch.ones(T, T, dtype=torch.bool).triu(1)
    t_target, t_memory = target.clone().requires_grad_(True), memory.clone().requires_grad_(True)
    names = [n for n, _ in reference.named_parameters()]

    def torch_step():
        out = reference(t_target, t_memory, tgt_mask=causal, memory_key_padding_mask=pad)
        (out * cot).sum().backward()
        grads = [t_target.grad, t_memory.grad] + [p.grad for p in reference.parameters()]
        reference.zero_grad(set_to_none=True)
        t_target.grad = t_memory.grad = None
        return grads

    b_cot, b_pad = Tensor.from_data(cot, ad), Tensor.from_data(pad, ad)
    b_mask = nn.generate_autoregressive_mask(B, T, ad)
    b_target = Tensor.from_data(target, ad).require_grad()
    b_memory = Tensor.from_data(memory, ad).require_grad()
    params = list(model.named_params())

    def burn_step_on(target, memory, *param_values):  # the model's own parameter tensors
        inp = nn.TransformerDecoderInput(target, memory).target_mask_attn(b_mask)
        out = model.forward(inp.memory_mask_pad(b_pad))
        grads = (out * b_cot).sum().backward()
        return [t.grad(grads).to_torch() for t in (target, memory, *param_values)]

    def in_torch_layout(grads):
        by_path = {path: g for (path, _), g in zip(params, grads[2:])}
        torch_layout = to_torch_layout(model, by_path)
        return grads[:2] + [torch_layout[n] for n in names]

    values = [p.val() for _, p in params]
    captured = capture(burn_step_on)
    return run(torch_step, lambda: burn_step_on(b_target, b_memory, *values), rounds, inner,
               tolerance=1e-3, captured_step=lambda: captured(b_target, b_memory, *values),
               in_torch_layout=in_torch_layout)


if __name__ == "__main__":
    main(__doc__.splitlines()[0], "B,T,M,D,H,N", SIZES, bench,
         lambda B, T, M, D, H, N: 6 * B * T * D * N * (16 * D + 2 * T + 2 * M))
